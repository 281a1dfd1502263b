#include "problems/model/model_problem.h"

#include <cstdio>

#include "problems/model/formulation_registry.h"
#include "problems/model/model_assembly.h"
#include "problems/model/model_validation.h"

namespace mbb {
namespace {

std::shared_ptr<const ModelStructure> MakeStructure(const FormulatedModel& formulated,
                                                    const std::string& formulation) {
  auto structure = std::make_shared<ModelStructure>();
  structure->model = formulated.model;
  structure->formulation = formulation;
  structure->bodies = formulated.body_coordinates;
  structure->rows = formulated.rows;
  structure->joint_ends = ResolveJointEnds(formulated.model);
  structure->coordinates_from_bodies = formulated.coordinates_from_bodies;
  structure->bodies_from_coordinates = formulated.bodies_from_coordinates;
  structure->tree = BuildKinematicTree(formulated.model);
  return structure;
}

}  // namespace

Problem BuildModelProblem(const ModelDescription& model, const std::string& id) {
  ValidateModel(model);  // the common rules and those of the model's formulation
  const FormulationEntry& formulation = FindFormulation(model);
  FormulatedModel formulated = formulation.formulate(model);
  Problem problem;
  problem.id = id;
  problem.title = model.title;
  problem.source = model.source;
  problem.dae = formulated.dae;
  problem.formulation = formulation.name;
  problem.structure = MakeStructure(formulated, formulation.name);
  problem.conserved_momentum = model.conserved_momentum;
  problem.t0 = 0.0;
  problem.t_end = model.t_end;
  problem.h_default = model.h_default;
  const AssemblyReport report =
      AssembleInitialState(model, formulated, problem.t0, problem.q0, problem.v0, problem.warnings);
  problem.initial_residuals.recorded = true;
  problem.initial_residuals.position_stated = report.position_residual_before;
  problem.initial_residuals.velocity_stated = report.velocity_residual_before;
  for (const auto& o : formulated.model.outputs) {
    problem.output_names.push_back(o.name);
    // An angle the formulation computes modulo 2 pi (a spatial rotation angle, a planar
    // angle in directors): the harness unwraps it along a run.
    const bool periodic = o.kind == OutputKind::kAngle && formulated.angle_outputs_wrap;
    problem.output_periods.push_back(periodic ? 2.0 * M_PI * std::abs(o.scale) : 0.0);
  }
  problem.calc_outputs = formulated.calc_outputs;
  problem.coordinate_periods = formulated.coordinate_periods;
  problem.unit_quaternion_offsets = formulated.unit_quaternion_offsets;
  problem.default_methods = model.default_methods;
  problem.conserved_momentum = model.conserved_momentum;
  return problem;
}

Problem BuildModelProblem(ModelDescription model, const std::string& id,
                          const ParameterSet& params) {
  // The catalogue declares the formulation parameter with the dimension's default
  // (FormulationParameter): the same text when the key is absent.
  const std::string fallback =
      model.formulation.empty() ? DefaultFormulation(model.dimension) : model.formulation;
  model.formulation = params.GetString("formulation", fallback);
  return BuildModelProblem(model, id);
}

}  // namespace mbb
