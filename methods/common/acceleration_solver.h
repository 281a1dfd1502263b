// Index-1 acceleration solve by the null-space method, for the ODE baselines:
//
//   M a + Phi_q^T lambda = Q,   Phi_q a = gamma_s,
//   gamma_s = gamma - 2 alpha (Phi_q v + Phi_t) - beta^2 Phi    (Baumgarte, off by default)
//
// Phi_q^T P = [Y Z] [R; 0] (the rank-revealing factorisation of
// problems/core/constraint_factorization.h, numerical rank r). a = Y y + Z z with
// R11^T y = (P^T gamma_s)_1 and (Z^T M Z) z = Z^T (Q - M Y y). Redundant constraints
// (r < m) and a mass matrix singular off the tangent space (the stiff pendulum's
// M = diag(m, m, 0)) are both handled; lambda is the least-squares multiplier.
//
// On a large sparse model with a constant block-diagonal mass matrix (`ConstraintSolves`
// kAuto, the default, or kSparse) the same equations are solved as
// a = M^-1 Q + M^-1 Phi_q^T mu with (Phi_q M^-1 Phi_q^T) mu = gamma_s - Phi_q M^-1 Q,
// lambda = -mu, by the sparse system of problems/core/sparse_constraint_system.h: O(n) on a
// chain. Where it does not factor (a singular position, redundant rows) that call takes the
// null-space route above.
// Storage is allocated at construction; Solve() does not allocate while the rank is
// unchanged.
#pragma once

#include <climits>

#include "problems/core/constraint_factorization.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {

struct BaumgarteGains {
  double alpha = 0.0;  // 1/s
  double beta = 0.0;   // 1/s
};

class AccelerationSolver {
 public:
  AccelerationSolver(const MechanicalDae& dae, DaeWorkspace& ws, BaumgarteGains gains = {},
                     ConstraintSolves solves = ConstraintSolves::kAuto);

  /// Computes a (n) and lambda (m). Returns false if Z^T M Z is not positive definite
  /// (the mass matrix is singular on the tangent space). `known`, if given, is a dense
  /// factorisation of Phi_q at exactly (t, q), uncapped (the projector's at the projected
  /// state): the dense route copies it instead of evaluating and factoring Phi_q again.
  bool Solve(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a, VectorRef lambda,
             const ConstraintFactorization* known = nullptr);

  int last_rank() const { return sparse_solved_ ? m_ : factorization_.rank(); }
  /// Numerical rank of Phi_q at the last Solve before the cap of set_max_rank (m when the
  /// sparse system factored: its pivots bound the rows away from dependence).
  int last_computed_rank() const { return sparse_solved_ ? m_ : factorization_.computed_rank(); }
  /// True if the last Solve took the sparse route.
  bool last_solve_sparse() const { return sparse_solved_; }
  /// Caps the rank of Phi_q in later solves (ConstraintFactorization::Compute): a caller
  /// that knows the rank on the manifold keeps a redundant row, whose singular value is
  /// only the drift off the manifold, from being inverted (first_order_ode.h).
  void set_max_rank(int max_rank) { max_rank_ = max_rank; }

 private:
  bool SolveDense(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a, VectorRef lambda,
                  const ConstraintFactorization* known);
  bool SamePositionsAsLastSolve(double t, ConstVectorRef q) const;
  // Phi_q's factors (or known's), Z^T M Z's
  bool FactorPositionTerms(double t, ConstVectorRef q, const ConstraintFactorization* known);
  void CalcStabilizedGamma(double t, ConstVectorRef q, ConstVectorRef v);  // gamma_s
  const MechanicalDae& dae_;
  DaeWorkspace& ws_;
  BaumgarteGains gains_;
  int n_, m_;
  Matrix mass_, phi_q_, z_mass_, reduced_;
  ConstraintFactorization factorization_;
  Eigen::LLT<Matrix> reduced_llt_;
  std::unique_ptr<SparseConstraintSystem> sparse_;
  bool sparse_solved_ = false;
  Vector forces_, gamma_, work_m_, rhs_, z_, residual_;
  bool constant_mass_ready_ = false;
  int max_rank_ = INT_MAX;
  // The last solve's t, q and rank cap, and whether the dense factors are of them: a solve
  // at the same positions with other velocities (the velocity columns of a difference-
  // quotient Jacobian, 13 % of arkode-dirk's solves on Bricard) keeps M(q), the QR of
  // Phi_q^T and the Cholesky factor of Z^T M Z.
  struct Positions {
    bool valid = false, factored = false;
    double t = 0.0;
    Vector q;
    int max_rank = 0;
  } positions_;
};

}  // namespace mbb
