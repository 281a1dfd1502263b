// A catalogue problem: the DAE a method integrates plus what the source paper states about
// it (initial state, horizon, outputs to report). Problems are read-only once built.
//
// A contract header: it depends on the DAE contract and the parameters only, never on the
// model layer (problems/model/). The model behind a problem is held by pointer; a method
// that reads it includes problems/model/model_structure.h itself.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "problems/core/mechanical_dae.h"
#include "problems/core/parameters.h"

namespace mbb {

struct ModelStructure;  // problems/model/model_structure.h

/// Residuals of the initial state (max norms): as stated by the source or model file, and
/// after assembly/projection (what the methods start from), reported in every result.
struct InitialResiduals {
  bool recorded = false;  // false until CheckInitialConditions (or the model assembly) ran
  double position_stated = 0.0, position = 0.0;  // |Phi(t0, q0)|_inf
  double velocity_stated = 0.0, velocity = 0.0;  // |Phi_q v0 + Phi_t|_inf
};

struct Problem {
  std::string id;
  std::string title;
  std::string source;                             // paper and section, e.g. "001 s3"
  std::map<std::string, std::string> parameters;  // resolved, as the result records them
  std::shared_ptr<const MechanicalDae> dae;
  /// Registry name of the coordinate set the DAE is written in ("planar",
  /// "euler-parameters", ...); empty for a hand-written problem without one.
  std::string formulation;
  /// The model behind the DAE (bodies, joint rows, kinematic tree); null for a hand-written
  /// problem that has none. Methods needing it say not_applicable when it is null.
  std::shared_ptr<const ModelStructure> structure;
  /// Momentum components the forces leave conserved, named "linear_x", "linear_y",
  /// "linear_z", "angular_x", "angular_y", "angular_z" (angular about the origin);
  /// metrics.momentum.conserved_max_abs_drift is measured over these.
  std::vector<std::string> conserved_momentum;

  double t0 = 0.0;
  double t_end = 1.0;       // the source's horizon
  double h_default = 1e-3;  // fixed step used by fixed-step methods unless --set h
  Vector q0, v0;            // consistent initial state

  /// Optional names of the coordinates of q (e.g. the paper's alpha1, alpha2, alpha3), used
  /// by methods reporting per-coordinate series; empty: none given.
  std::vector<std::string> coordinate_names;

  /// Named outputs of the source's plots (docs/problems.md, "Output names": a contract).
  std::vector<std::string> output_names;
  std::function<void(double t, const Vector& q, const Vector& v, Vector& out)> calc_outputs;
  /// Per output: the period of an angle the harness unwraps along a run (continuous, as the
  /// IFToMM result files report angles), 0 for an ordinary output. Empty: none periodic.
  std::vector<double> output_periods;

  /// Per coordinate: the period of an angle that may turn without bound (2 pi), 0 for an
  /// ordinary coordinate; empty: none periodic. The divergence criterion measures such a
  /// coordinate's distance from q0 on the circle (a crank that turns is not diverging).
  std::vector<double> coordinate_periods;
  /// Offsets of the 4-blocks of q that are unit quaternions (Euler parameters): e and -e are
  /// one attitude, so every error metric compares such a block with the nearer of +-ref.
  std::vector<int> unit_quaternion_offsets;

  /// Amplitude scale of q - q0 used by the stability search's growth criterion when the
  /// source states one (e.g. the stiff pendulum's static deflection); 0 = take it from a
  /// reference run.
  double stability_amplitude = 0.0;

  /// Notes from building the problem (e.g. initial conditions projected), copied into
  /// every result.
  std::vector<std::string> warnings;

  /// Residuals of the stated and the assembled initial state, copied into every result.
  InitialResiduals initial_residuals;

  /// Name of an angle output (unwrapped, rad) whose first full revolution the harness times
  /// (`metrics.revolution_period_s`), e.g. the slider-crank's crank_angle; empty: none.
  std::string revolution_output;

  /// Methods the default catalogue runs on this problem.
  std::vector<std::string> default_methods;

  int n() const { return dae->num_coordinates(); }
  int m() const { return dae->num_constraints(); }
};

/// Position of a Problem::conserved_momentum name in (linear x, y, z, angular x, y, z),
/// -1 if the name is not one of the six.
inline int MomentumComponentIndex(const std::string& name) {
  static const char* const kNames[] = {"linear_x",  "linear_y",  "linear_z",
                                       "angular_x", "angular_y", "angular_z"};
  for (int k = 0; k < 6; ++k)
    if (name == kNames[k]) return k;
  return -1;
}

/// One catalogue entry: metadata plus a factory from validated parameters.
struct ProblemEntry {
  std::string id;
  std::string summary;
  std::string source;
  std::vector<ParameterSpec> parameters;
  std::function<Problem(const ParameterSet&)> build;
};

/// The catalogue, sorted by id (problems/catalogue/catalogue.cc is the one list).
const std::vector<ProblemEntry>& ProblemCatalogue();

/// Finds an entry; throws InputError listing the known ids if there is none.
const ProblemEntry& FindProblem(const std::string& id);

/// Validates `params` against the entry and builds the problem; throws InputError on bad
/// input (unknown key, non-finite value, inconsistent initial conditions).
Problem BuildProblem(const std::string& id, const ParameterSet& params);

}  // namespace mbb
