// The energy-momentum mid-point scheme shared by constrained-em and null-space-em (paper 002,
// Betsch & Leyendecker 2006, eq 10; paper 002 Part I for the discrete gradient):
//   q1 - q0 = h v_{1/2},   v_{1/2} = (v0 + v1) / 2                                  (10.1)
//   M (v1 - v0) = -h dV(q0, q1) + h Q_nc(t_{1/2}, q_{1/2}, v_{1/2}) - h G(q_{1/2})^T lambda  (10.2)
//   Phi(t1, q1) = 0                                                               (10.3)
// with a constant mass matrix M, the mid-point constraint Jacobian G(q_{1/2}) (the exact
// discrete derivative of constraints at most quadratic, paper 002 eq 67) and the Gonzalez
// discrete gradient of the potential
//   dV(q0, q1) = grad V(q_{1/2}) + [V(q1) - V(q0) - grad V(q_{1/2}) . dq] / |dq|^2 dq,
// dq = q1 - q0, so that dV . dq = V(q1) - V(q0) exactly (energy consistency). Q_nc is
// everything else the problem applies (dampers, applied forces; Q + grad V), taken at the
// mid-point, so that the energy changes by exactly h v_{1/2} . Q_nc per step.
//
// Velocities: v1 = 2 (q1 - q0) / h - v0 (10.1). The node velocities v0, v1 the methods
// report (and the energy metric uses) satisfy G(q_{1/2}) v_{1/2} = 0, not necessarily the
// hidden constraint G(q1) v1 = 0 at the node; the energy 1/2 v^T M v + V(q) of the node
// velocities is the one the scheme conserves.
#pragma once

#include <Eigen/QR>
#include <Eigen/SVD>
#include <memory>
#include <string>
#include <vector>

#include "methods/common/extrapolator.h"
#include "problems/core/constraint_factorization.h"
#include "problems/core/problem.h"

namespace mbb {

/// Empty if the schemes can treat `problem` (constant mass matrix, a potential the DAE
/// separates, constraints at most quadratic in q), else the reason.
std::string CheckMidpointSchemeApplicable(const Problem& problem);

/// K(mu) = d(G(q)^T mu)/dq = sum_r mu_r Phi_r,qq, the term the schemes' Newton matrices
/// take from the constraint forces. The schemes' constraints are at most quadratic in q
/// (CheckMidpointSchemeApplicable), so each Hessian Phi_r,qq is constant in q: it is taken
/// once from the DAE (one CalcReactionStiffness per row, with a unit multiplier) and K is
/// then a weighted sum over its non-zeros, where each DAE call is a second-order AD pass per
/// pair of Phi_q's column groups (39 % of a Bricard step in directors). The Hessians are
/// kept only where K at a second time and configuration agrees with them; otherwise (a
/// quadratic part that moves with t) every K is the DAE's call.
class ConstraintHessians {
 public:
  ConstraintHessians(const MechanicalDae& dae, DaeWorkspace& ws, double t0, const Vector& q0);
  /// k = K(mu) at (t, q) (n x n; mu has all m rows).
  void ReactionStiffness(DaeWorkspace& ws, double t, const Vector& q, const Vector& mu,
                         Matrix& k) const;
  bool constant() const { return constant_; }

 private:
  struct Entry {
    int row, i, j;
    double value;
  };
  const MechanicalDae& dae_;
  bool constant_ = false;
  std::vector<Entry> entries_;
};

/// The first iterate of a mid-point step, q1 = q0 + h mean, with the rule's own mean
/// velocity (v0 + v1) / 2 and v1 extrapolated from the last accepted steps
/// (`predictor=extrapolation`, methods/common/extrapolator.h), or mean = v0 (`constant`, and
/// where the history chooses no extrapolation). Allocates only at construction.
class MidpointStart {
 public:
  MidpointStart(int n, bool extrapolate) : velocities_(n, extrapolate), v1_(n), mean_(n) {}
  /// The history starts from the initial velocity.
  void Begin(const Vector& v0) { velocities_.Start(v0); }
  /// The mean velocity of the first iterate of a step of length h from v0.
  const Vector& MeanVelocity(double h, const Vector& v0) {
    if (velocities_.Predict(h, v1_) > 0) {
      mean_ = 0.5 * (v0 + v1_);
    } else {
      mean_ = v0;
    }
    return mean_;
  }
  /// Records the velocity at the end of an accepted step of length h.
  void Accept(const Vector& v1, double h) { velocities_.Accept(v1, h); }

 private:
  Extrapolator velocities_;
  Vector v1_, mean_;
};

/// The momentum balance (10.2) without the constraint forces, in impulse form:
///   r(q1) = M (v1 - v0) + h dV(q0, q1) - h Q_nc(t_{1/2}, q_{1/2}, v_{1/2}),
/// and its Jacobian with respect to q1. Holds the constant M and the scratch of one run.
class MidpointBalance {
 public:
  explicit MidpointBalance(const Problem& problem);

  const MechanicalDae& dae() const { return dae_; }
  DaeWorkspace& workspace() { return *ws_; }
  const Matrix& mass() const { return mass_; }

  /// Starts a step from (t0, q0, v0) of size h: evaluates the force Jacobians the
  /// iteration matrix uses (at the predictor q0 + h v0; exact for a potential at most
  /// quadratic and no other forces, else a modified Newton).
  void BeginStep(double t0, double h, const Vector& q0, const Vector& v0);
  /// r(q1) as above; also sets v1 and q_mid.
  void Residual(const Vector& q1, Vector& r);
  /// The same for q1 = q0 + dq, with v1 = 2 dq / h - v0 from the increment itself: the
  /// velocities then carry the rounding of dq (eps |v|), not that of q1 - q0 (eps |q| / h),
  /// which would make the energy error a random walk at 1e-13.
  void ResidualFromStep(const Vector& dq, Vector& r);
  const Vector& q1() const { return q1_; }
  /// dr/dq1 = 2 M / h - h/2 dQ/dq - dQ/dv (the force Jacobians of BeginStep).
  const Matrix& Jacobian() const { return jacobian_; }
  /// k = K(mu) = d(G^T mu)/dq at q_{1/2} (ConstraintHessians; mu has all m rows).
  void ReactionStiffness(const Vector& mu, Matrix& k) {
    hessians_.ReactionStiffness(*ws_, t_mid(), q_mid_, mu, k);
  }

  /// After Residual(q1) at the converged q1: |E(q1, v1) - E(q0, v0) - h v_{1/2} . Q_nc|, the
  /// step's energy balance residual (0 up to the Newton tolerance and rounding for scleronomic
  /// constraints: the discrete gradient makes dV . dq = V(q1) - V(q0) exact).
  double StepEnergyResidual();

  const Vector& v1() const { return v1_; }
  const Vector& q_mid() const { return q_mid_; }
  double t_mid() const { return t0_ + 0.5 * h_; }
  double t1() const { return t0_ + h_; }

 private:
  const MechanicalDae& dae_;
  std::unique_ptr<DaeWorkspace> ws_;
  int n_;
  Matrix mass_, dq_, dv_, jacobian_;
  Vector q0_, v0_, v1_, q_mid_, v_mid_, grad_mid_, grad_scratch_, forces_, dv_bar_, step_, q1_;
  Vector step_velocity_;  // v1 - v0
  ConstraintHessians hessians_;
  double t0_ = 0.0, h_ = 0.0, v0_potential_ = 0.0;
};

/// 2-norm condition number sigma_max / sigma_min of a matrix (inf if singular).
double ConditionNumber2(const Matrix& a);
/// The same through an SVD the caller keeps (no U, V): no allocation once it has a's size.
double ConditionNumber2(Eigen::JacobiSVD<Matrix>& svd, const Matrix& a);

/// x = the basic least-squares solution of A x = b from the column-pivoting QR of A (rank
/// qr.rank(), the rest of x zero): Eigen's solve() without its temporaries, for Newton loops
/// that must not allocate. b is overwritten with Q^T b; x has A's column count.
void SolveWithQr(const Eigen::ColPivHouseholderQR<Matrix>& qr, Vector& b, Vector& x);

}  // namespace mbb
