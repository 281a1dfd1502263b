// The formulations a model can be compiled in: the one list of coordinate sets, sorted by
// name. Each entry says which model dimensions it accepts, which body and joint kinds it
// supports, whether it admits zero body mass, the validation rules that belong to it and
// the function that writes the equations. What the equations then declare about the
// coordinates (each body block's layout, periodic angles, unit quaternions, whether angle
// outputs wrap) travels in the FormulatedModel (formulation.h); docs/adding-a-problem.md,
// "Adding a formulation", lists what a new one must declare. The catalogue's `formulation` choice
// parameter, the model files' "formulation" key and every result's problem.formulation are names
// from this list. A new coordinate set (directors, joint coordinates on a tree) is one more entry
// here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "problems/model/formulation.h"

namespace mbb {

struct FormulationEntry {
  std::string name;
  std::vector<int> dimensions;  // model dimensions it accepts
  std::string summary;
  std::vector<BodyKind> body_kinds;
  std::vector<JointKind> joint_kinds;
  /// The formulation's own rules (after ValidateModel's common ones); throws InputError.
  std::function<void(const ModelDescription&)> validate;
  /// Writes the equations of a validated model, keeping it as FormulatedModel::model (by
  /// value: a model moved in is not copied).
  std::function<FormulatedModel(ModelDescription)> formulate;
  /// Bodies of zero or rank-deficient mass allowed (paper 004's joint coordinates); else
  /// ValidateModel requires mass > 0 of every body.
  bool admits_zero_mass = false;

  bool Accepts(int dimension) const;
};

/// The registry, sorted by name.
const std::vector<FormulationEntry>& FormulationRegistry();

/// The formulation a model without a "formulation" gets: "planar" for dimension 2,
/// "euler-parameters" for dimension 3 (as before the registry existed).
std::string DefaultFormulation(int dimension);

/// Names of the formulations accepting `dimension`, sorted.
std::vector<std::string> FormulationsFor(int dimension);

/// The entry named by model.formulation (empty: the default for the dimension) if it
/// accepts the model's dimension, else null.
const FormulationEntry* FormulationOf(const ModelDescription& model);

/// The entry named by model.formulation (empty: the default for the dimension); throws
/// InputError naming the model and listing the formulations for its dimension if the name
/// is unknown or does not accept the model's dimension, or if the model has a body or
/// joint kind the formulation does not support.
const FormulationEntry& FindFormulation(const ModelDescription& model);

}  // namespace mbb
