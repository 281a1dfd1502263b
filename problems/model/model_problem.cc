#include "problems/model/model_problem.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "problems/model/formulation_registry.h"
#include "problems/model/model_assembly.h"
#include "problems/model/model_validation.h"

namespace mbb {
namespace {

// The structure keeps the formulated model: moved in, not copied (a large chain holds the
// model once).
std::shared_ptr<const ModelStructure> MakeStructure(FormulatedModel& formulated,
                                                    const std::string& formulation) {
  auto structure = std::make_shared<ModelStructure>();
  structure->formulation = formulation;
  structure->bodies = std::move(formulated.body_coordinates);
  structure->rows = formulated.rows;
  structure->joint_ends = ResolveJointEnds(formulated.model);
  structure->coordinates_from_bodies = formulated.coordinates_from_bodies;
  structure->bodies_from_coordinates = formulated.bodies_from_coordinates;
  structure->tree = BuildKinematicTree(formulated.model);
  structure->model = std::move(formulated.model);
  return structure;
}

// A copy of `model` without its bodies, joints, forces and drivers (what makes a large
// model large): the name and metadata the problem reads once the formulation owns the model.
// The elements are moved out and back, so no field is forgotten.
ModelDescription WithoutElements(ModelDescription& model) {
  std::vector<BodyDescription> bodies = std::move(model.bodies);
  std::vector<JointDescription> joints = std::move(model.joints);
  std::vector<ForceDescription> forces = std::move(model.forces);
  std::vector<DriverDescription> drivers = std::move(model.drivers);
  ModelDescription header = model;
  model.bodies = std::move(bodies);
  model.joints = std::move(joints);
  model.forces = std::move(forces);
  model.drivers = std::move(drivers);
  return header;
}

// The problem of `model`, which the formulation takes over (no copy of its elements).
Problem BuildOwnedModelProblem(ModelDescription model, const std::string& id) {
  ValidateModel(model);  // the common rules and those of the model's formulation
  const FormulationEntry& formulation = FindFormulation(model);
  const ModelDescription header = WithoutElements(model);
  FormulatedModel formulated = formulation.formulate(std::move(model));
  Problem problem;
  problem.id = id;
  problem.title = header.title;
  problem.source = header.source;
  problem.dae = formulated.dae;
  problem.formulation = formulation.name;
  problem.t0 = 0.0;
  problem.t_end = header.t_end;
  problem.h_default = header.h_default;
  // The assembly reads the model for its name in messages only.
  const AssemblyReport report = AssembleInitialState(header, formulated, problem.t0, problem.q0,
                                                     problem.v0, problem.warnings);
  problem.initial_residuals.recorded = true;
  problem.initial_residuals.position_stated = report.position_residual_before;
  problem.initial_residuals.velocity_stated = report.velocity_residual_before;
  problem.structure = MakeStructure(formulated, formulation.name);
  for (const auto& o : problem.structure->model.outputs) {
    problem.output_names.push_back(o.name);
    // An angle the formulation computes modulo 2 pi (a spatial rotation angle, a planar
    // angle in directors): the harness unwraps it along a run.
    const bool periodic = o.kind == OutputKind::kAngle && formulated.angle_outputs_wrap;
    problem.output_periods.push_back(periodic ? 2.0 * M_PI * std::abs(o.scale) : 0.0);
  }
  problem.calc_outputs = formulated.calc_outputs;
  problem.coordinate_periods = formulated.coordinate_periods;
  problem.unit_quaternion_offsets = formulated.unit_quaternion_offsets;
  problem.default_methods = header.default_methods;
  problem.conserved_momentum = header.conserved_momentum;
  return problem;
}

}  // namespace

Problem BuildModelProblem(const ModelDescription& model, const std::string& id) {
  return BuildOwnedModelProblem(model, id);  // the one copy the formulation keeps
}

Problem BuildModelProblem(ModelDescription model, const std::string& id,
                          const ParameterSet& params) {
  // The catalogue declares the formulation parameter with the dimension's default
  // (FormulationParameter): the same text when the key is absent.
  const std::string fallback =
      model.formulation.empty() ? DefaultFormulation(model.dimension) : model.formulation;
  model.formulation = params.GetString("formulation", fallback);
  return BuildOwnedModelProblem(std::move(model), id);
}

}  // namespace mbb
