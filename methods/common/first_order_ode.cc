#include "methods/common/first_order_ode.h"

#include <cstring>
#include <limits>

namespace mbb {

OdeFormOptions OdeFormOptions::FromParameters(const ParameterSet& p) {
  OdeFormOptions o;
  o.projection = p.GetString("projection", "on") == "on";
  o.gains.alpha = p.GetDouble("baumgarte_alpha", 0.0);
  o.gains.beta = p.GetDouble("baumgarte_beta", 0.0);
  o.solves = ParseConstraintSolves(p.GetString("constraint_solves", "auto"));
  return o;
}

std::vector<ParameterSpec> OdeFormOptions::Specs() {
  return {
      {"projection", "on", "project q and v onto the constraints after each step", {"on", "off"}},
      {"baumgarte_alpha", "0", "Baumgarte velocity gain, 1/s", {}},
      {"baumgarte_beta", "0", "Baumgarte position gain, 1/s", {}},
      {"constraint_solves",
       "auto",
       "acceleration and projection solves: dense QR, sparse Cholesky of Phi_q M^-1 Phi_q^T, or "
       "auto (sparse from " +
           std::to_string(kSparseMinCoordinates) + " coordinates on)",
       {"auto", "dense", "sparse"}}};
}

FirstOrderOde::FirstOrderOde(const Problem& problem, const OdeFormOptions& options)
    : options_(options),
      n_(problem.n()),
      m_(problem.m()),
      ws_(problem.dae->MakeWorkspace()),
      solver_(*problem.dae, *ws_, options.gains, options.solves),
      projector_(*problem.dae, *ws_, options.solves),
      q_(n_),
      v_(n_),
      a_(n_),
      lambda_(m_) {}

bool FirstOrderOde::Rhs(double t, const double* y, double* dydt) {
  ++rhs_evals_;
  if (!RepeatsLastRhs(t, y)) {
    q_ = Eigen::Map<const Vector>(y, n_);
    v_ = Eigen::Map<const Vector>(y + n_, n_);
    // At the projected state the projector has just factored Phi_q (Project below).
    last_ok_ = solver_.Solve(t, q_, v_, a_, lambda_, projector_.DenseFactorizationAt(t, q_));
    last_t_ = t;
    last_valid_ = !rank_from_next_rhs_;  // the cap below changes what the next solve computes
    if (rank_from_next_rhs_) {           // the rank on the manifold caps later solves (header)
      solver_.set_max_rank(solver_.last_computed_rank());
      projector_.set_manifold_rank(solver_.last_computed_rank());
      rank_from_next_rhs_ = false;
    }
  }
  Eigen::Map<Vector>(dydt, n_) = v_;
  Eigen::Map<Vector>(dydt + n_, n_) = a_;
  return last_ok_;
}

bool FirstOrderOde::RepeatsLastRhs(double t, const double* y) const {
  // Bit for bit (memcmp): -0.0 and 0.0 compare equal but may not give the same f.
  return last_valid_ && t == last_t_ && std::memcmp(y, q_.data(), n_ * sizeof(double)) == 0 &&
         std::memcmp(y + n_, v_.data(), n_ * sizeof(double)) == 0;
}

bool FirstOrderOde::Project(double t, double* y) {
  if (!projection_enabled()) return true;
  last_valid_ = false;  // the rank cap below may change
  Eigen::Map<Vector> q(y, n_);
  Eigen::Map<Vector> v(y + n_, n_);
  // Tolerance: 10 ulps of the coordinate scale, the level a converged Newton step reaches.
  const double tol =
      10.0 * std::numeric_limits<double>::epsilon() * (q.lpNorm<Eigen::Infinity>() + 1.0);
  const bool ok =
      projector_.ProjectPositions(t, q, tol, 3) || projector_.last_position_residual() < 1e3 * tol;
  projector_.ProjectVelocities(t, q, v);
  solver_.set_max_rank(projector_.last_rank());  // Phi_q was factored at the projected q
  // A run that starts at a singular position takes the sparse route again once past it.
  projector_.set_manifold_rank(projector_.last_rank());
  return ok;
}

}  // namespace mbb
