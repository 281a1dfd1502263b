// The index-1 first-order ODE form of the mechanical DAE that the explicit baselines
// (Boost.Odeint, ARKODE) integrate: y = [q; v], y' = [v; a(t, q, v)] with a from the
// null-space acceleration solve (acceleration_solver.h), optional Baumgarte terms, and
// optional coordinate projection of y onto Phi = 0, Phi_q v + Phi_t = 0 after each
// accepted step (Hairer, Wanner: "projection methods"; it keeps the order of the method).
//
// Redundant constraints (Bricard, six_body_linkage): the rank of Phi_q in the acceleration
// solve is capped at its rank on the manifold, taken at the initial state and after every
// projection. Without the cap a Runge-Kutta stage, off the manifold by O(h^2 |v|^2
// curvature) (about 1e-8 at Bricard's steps), gives the redundant row a singular value
// above the rank threshold (1e-9); the solve then inverts it, the stage acceleration is
// wrong by the drift over that singular value, and the error estimate rejects the step:
// Dormand-Prince rejected about one step per accepted step, with steps limited by the
// threshold rather than by the tolerance.
#pragma once

#include <string>

#include "methods/common/acceleration_solver.h"
#include "problems/core/constraint_projection.h"
#include "problems/core/parameters.h"
#include "problems/core/problem.h"

namespace mbb {

/// Options shared by the ODE baselines, read from the method parameters
/// `projection` (on|off), `baumgarte_alpha`, `baumgarte_beta`, `constraint_solves`
/// (auto|dense|sparse: problems/core/sparse_constraint_system.h).
struct OdeFormOptions {
  bool projection = true;
  BaumgarteGains gains;
  ConstraintSolves solves = ConstraintSolves::kAuto;
  static OdeFormOptions FromParameters(const ParameterSet& p);
  static std::vector<ParameterSpec> Specs();
};

class FirstOrderOde {
 public:
  FirstOrderOde(const Problem& problem, const OdeFormOptions& options);

  int size() const { return 2 * n_; }
  /// dydt = f(t, y). Returns false if the acceleration solve failed (singular reduced mass).
  /// A call at the last call's t and y returns its result without solving again: ARKODE's
  /// ERK asks for f at each step's start twice (for its interpolant, then as the first stage),
  /// one call in six on Bricard. rhs_evals() counts every call.
  bool Rhs(double t, const double* y, double* dydt);
  /// Projects y in place if projection is on (no-op without constraints).
  /// Returns false if the position Newton iteration does not converge.
  bool Project(double t, double* y);
  bool projection_enabled() const { return options_.projection && m_ > 0; }

  /// a and lambda of the last Rhs call (for observers).
  const Vector& acceleration() const { return a_; }
  const Vector& multipliers() const { return lambda_; }
  long rhs_evals() const { return rhs_evals_; }

 private:
  OdeFormOptions options_;
  int n_, m_;
  std::unique_ptr<DaeWorkspace> ws_;
  AccelerationSolver solver_;
  ConstraintProjector projector_;
  Vector q_, v_, a_, lambda_;
  long rhs_evals_ = 0;
  bool rank_from_next_rhs_ = true;  // the first Rhs is at the (consistent) initial state
  // The last Rhs call's t and outcome (its y is [q_; v_]); valid while nothing since has
  // changed what a solve at that y computes.
  bool RepeatsLastRhs(double t, const double* y) const;
  double last_t_ = 0.0;
  bool last_ok_ = false;
  bool last_valid_ = false;
};

}  // namespace mbb
