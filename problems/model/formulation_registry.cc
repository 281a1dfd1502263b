// The formulation registry (formulation_registry.h): one entry per coordinate set, sorted
// by name.
#include "problems/model/formulation_registry.h"

#include <algorithm>
#include <utility>

#include "problems/core/parameters.h"
#include "problems/model/joint_tree.h"
#include "problems/model/lift_planar.h"
#include "problems/model/model_compiler.h"

namespace mbb {
namespace {

const std::vector<JointKind> kPlanarJoints = {JointKind::kRevolute, JointKind::kPrismatic,
                                              JointKind::kFixed, JointKind::kDistance,
                                              JointKind::kPointOnLine};
const std::vector<JointKind> kAllJoints = {
    JointKind::kRevolute,  JointKind::kPrismatic,   JointKind::kSpherical,
    JointKind::kUniversal, JointKind::kCylindrical, JointKind::kPlanar,
    JointKind::kFixed,     JointKind::kDistance,    JointKind::kPointOnLine};

// Euler parameters: a spatial model as it is; a planar one lifted into 3-D first
// (lift_planar.h), after the planar rules it was written against.
void ValidateEulerParameters(const ModelDescription& model) {
  if (model.dimension == 2) {
    ValidatePlanarModel(model);
    ValidateEulerParameterModel(LiftPlanarModel(model));
  } else {
    ValidateEulerParameterModel(model);
  }
}

FormulatedModel FormulateEulerParameters(ModelDescription model) {
  if (model.dimension == 2) return FormulateSpatialEuler(LiftPlanarModel(model));
  return FormulateSpatialEuler(std::move(model));
}

std::vector<FormulationEntry> MakeRegistry() {
  std::vector<FormulationEntry> entries = {
      {"directors",
       {2, 3},
       "centre of mass + body-frame directors per rigid body (12 coordinates in space, 6 in "
       "the plane; paper 002 eqs 21-25), constant mass matrix, constraints at most quadratic",
       {BodyKind::kRigid, BodyKind::kPointMass},
       kAllJoints,
       ValidateDirectorModel,
       FormulateDirectors,
       /*admits_zero_mass=*/false},
      {"euler-parameters",
       {2, 3},
       "Cartesian position + Euler parameters per rigid body, e^T e = 1 (paper 000 eq 61); "
       "a planar model is lifted into 3-D",
       {BodyKind::kRigid, BodyKind::kPointMass},
       kAllJoints,
       ValidateEulerParameters,
       FormulateEulerParameters,
       /*admits_zero_mass=*/false},
      {"joint-tree",
       {2, 3},
       "joint coordinates on a kinematic tree, absolute coordinates per body (paper 004 "
       "s3.1); zero and rank-deficient body masses allowed; loops closed by constraints on "
       "their cut joints (in space: Euler-angle and link-angle charts for spherical and "
       "distance joints and free bodies)",
       {BodyKind::kRigid, BodyKind::kPointMass},
       kAllJoints,
       ValidateJointTreeModel,
       FormulateJointTree,
       /*admits_zero_mass=*/true},
      {"planar",
       {2},
       "(x, y, theta) per rigid body, (x, y) per point mass; constant mass matrix",
       {BodyKind::kRigid, BodyKind::kPointMass},
       kPlanarJoints,
       ValidatePlanarModel,
       FormulatePlanar,
       /*admits_zero_mass=*/false},
  };
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return entries;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

bool FormulationEntry::Accepts(int dimension) const {
  return std::find(dimensions.begin(), dimensions.end(), dimension) != dimensions.end();
}

const std::vector<FormulationEntry>& FormulationRegistry() {
  static const std::vector<FormulationEntry> registry = MakeRegistry();
  return registry;
}

std::string DefaultFormulation(int dimension) {
  return dimension == 2 ? "planar" : "euler-parameters";
}

std::vector<std::string> FormulationsFor(int dimension) {
  std::vector<std::string> names;
  for (const auto& e : FormulationRegistry())
    if (e.Accepts(dimension)) names.push_back(e.name);
  return names;
}

const FormulationEntry* FormulationOf(const ModelDescription& model) {
  const std::string name =
      model.formulation.empty() ? DefaultFormulation(model.dimension) : model.formulation;
  for (const auto& e : FormulationRegistry())
    if (e.name == name && e.Accepts(model.dimension)) return &e;
  return nullptr;
}

const FormulationEntry& FindFormulation(const ModelDescription& model) {
  const std::string name =
      model.formulation.empty() ? DefaultFormulation(model.dimension) : model.formulation;
  const FormulationEntry* found = FormulationOf(model);
  if (!found)
    throw InputError(model.Where() + ": formulation '" + name + "' is not available for a " +
                     std::to_string(model.dimension) + "-dimensional model (choices: " +
                     Join(FormulationsFor(model.dimension)) + ")");
  for (const auto& j : model.joints)
    if (std::find(found->joint_kinds.begin(), found->joint_kinds.end(), j.kind) ==
        found->joint_kinds.end())
      throw InputError(model.Where() + ": joint '" + j.name + "' (" + JointKindName(j.kind) +
                       ") is not supported by formulation '" + name + "'");
  for (const auto& b : model.bodies)
    if (std::find(found->body_kinds.begin(), found->body_kinds.end(), b.kind) ==
        found->body_kinds.end())
      throw InputError(model.Where() + ": body '" + b.name + "' is of a kind formulation '" + name +
                       "' does not support");
  return *found;
}

}  // namespace mbb
