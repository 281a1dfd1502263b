// The tangent-manifold Newmark method's workspace (paper 001, section 5; the method:
// tangent_newmark.cc) and the two routes for the linear algebra of a pass: the dense one
// (the QR of H^T, products over the matrices' non-zeros) and the sparse one
// (tangent_sparse_system.h), as operation structs the pass (tangent_pass.h) is written on.
#pragma once

#include <memory>

#include "methods/common/acceleration_solver.h"
#include "methods/common/extrapolator.h"
#include "methods/common/matrix_non_zeros.h"
#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/tangent_sparse_system.h"
#include "problems/core/constraint_factorization.h"

namespace mbb {

struct TangentWorkspace final : FixedStepWorkspace {
  TangentWorkspace(const Problem& p, int n, int m, bool extrapolate)
      : dae(*p.dae),
        ws(dae.MakeWorkspace()),
        n(n),
        m(m),
        mass(n, n),
        dq(n, n),
        dv(n, n),
        dma(n, n),
        reaction(n, n),
        stiffness(n, n),
        h_mat(m, n),
        h_dot(m, n),
        h_ddot(m, n),
        dgamma_dq(m, n),
        factorization(m, n),
        xd_p_mat(n, n),
        xdd_p1_mat(n, n),
        dx(n, n),
        dxd(n, n),
        dxdd(n, n),
        work_nn(n, n),
        forces(n),
        x_p(n),
        range_part(n),
        b_velocity(m),
        b_acceleration(m),
        residual(n),
        x0(n),
        v0(n),
        a0(n),
        x1(n),
        v1(n),
        a1(n),
        lambda0(m),
        vec_m(m),
        vec_m2(m),
        vec_n(n),
        q_pert(n),
        alpha(n),
        alpha_d(n),
        alpha_dd(n),
        alpha_pred(n),
        alpha_d_pred(n),
        rhs_k(n),
        acceleration_history(n, extrapolate),
        mass_entries(n, n),
        stiffness_entries(n, n),
        damping_entries(n, n),
        h_dot_entries(m, n),
        h_ddot_entries(m, n) {}
  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> ws;
  // The sparse route (tangent_sparse_system.h), null for the dense one. The dense members
  // are allocated either way (untouched memory on the sparse route) and take a pass whose
  // constraint system the sparse route refuses (a singular position).
  std::unique_ptr<TangentSparseSystem> sparse;
  bool last_pass_sparse = false;  // which route's matrices the last pass left
  long sparse_passes = 0, dense_fallbacks = 0;
  bool sparse_derivatives_valid = false;  // the sparse route has evaluated K, C, H', H''
  int n, m, rank = 0, k = 0;
  int computed_rank = 0;
  int manifold_rank = 0;  // set in Begin and after each accepted step
  Matrix mass, dq, dv, dma, reaction, stiffness;
  Matrix h_mat, h_dot, h_ddot, dgamma_dq;
  ConstraintFactorization factorization;  // of H = Phi_q
  Matrix xd_p_mat, xdd_p1_mat, dx, dxd, dxdd, work_nn;
  Vector forces, x_p, range_part, b_velocity, b_acceleration, residual, x0, v0, a0, x1, v1, a1,
      lambda0;
  Vector vec_m, vec_m2, vec_n, q_pert;
  Vector alpha, alpha_d, alpha_dd, alpha_pred, alpha_d_pred, rhs_k;
  Extrapolator acceleration_history;  // the first iterate's a_{n+1} (`predictor`)
  // The non-zeros of M, K, C = -dQ/dv (the dense dv), H' and H'', gathered when the
  // matrices are evaluated: the dense route's products skip the zeros (DenseOps).
  MatrixNonZeros mass_entries, stiffness_entries, damping_entries, h_dot_entries, h_ddot_entries;
  bool mass_constant = false;  // M (and mass_entries) evaluated once, in Begin
  // Rank-dependent (k x k); reallocated only when the rank changes.
  Matrix reduced, reduced_mass, reduced_stiffness;
  Eigen::PartialPivLU<Matrix> reduced_lu;
  std::unique_ptr<FrequencyEstimator> frequency;
  double omega_max = 0.0;
  bool omega_valid = true;
  bool derivatives_reusable = false;

  auto null_space() const { return factorization.null_space_basis(); }  // N_H

  // QR of H^T at (t, x0); sets rank, k, Q = [Q1 N_H]. The rank is the numerical rank at
  // x0 (relative threshold kConstraintRankThreshold) but at most manifold_rank, the rank
  // on the constraint manifold at the last accepted state: an iterate off the manifold by
  // delta turns a redundant constraint (Bricard) into a singular value ~delta, which at
  // the predictor of a 2e-3 step exceeds the threshold, and inverting it throws the
  // iteration off (the energy grew by 1e4 J).
  void Factor() {
    factorization.Compute(h_mat, manifold_rank);
    factorization.FormBases();
    computed_rank = factorization.computed_rank();
    rank = factorization.rank();
    SetRank(rank);
  }

  // k = n - rank and the k x k storage for it (reallocated only when the rank changes).
  void SetRank(int r) {
    rank = r;
    if (n - rank != k || !frequency) {
      k = n - rank;
      reduced.resize(k, k);
      reduced_mass.resize(k, k);
      reduced_stiffness.resize(k, k);
      reduced_lu = Eigen::PartialPivLU<Matrix>(k);
      frequency = std::make_unique<FrequencyEstimator>(k);
    }
  }

  // Condition estimate of H of the last pass: from the pivoted QR, |R_00| / |R_{r-1,r-1}|
  // (1 if m = 0), or from the sparse route's Cholesky of H H^T.
  double ConditionEstimate() const {
    return last_pass_sparse ? sparse->ConditionEstimate() : factorization.ConditionEstimate();
  }

  // Minimum-norm solution of H X = B (B: m x c), eq. (33)-(47) particular solutions:
  // H = P R^T Q^T, so X = Q1 R11^-T (P^T B)_{1:r}.
  template <class In, class Out>
  void SolveMinimumNorm(const In& b, Out&& x) {
    factorization.SolveMinimumNormColumns(b, x);
  }

  // Least-squares multiplier of H^T lambda = b (n): lambda = P [R11^-1 Q1^T b; 0].
  void SolveMultiplier(const Vector& b, Vector& lambda) {
    factorization.SolveMultipliers(b, lambda);
  }
};

// The matrices of a pass on each route, for the steps both share (FinishPass,
// StateFromAlpha, TrackFrequency): N_H, products with M, K, C = -dQ/dv, H' and H'',
// and the minimum-norm solves with H. The dense route's products run over the matrices'
// non-zeros (matrix_non_zeros.h).
struct DenseOps {
  TangentWorkspace& w;
  auto null_space() const { return w.null_space(); }
  template <class X, class Y>
  void AddMass(double scale, const X& x, Y&& y) const {
    w.mass_entries.AddProduct(scale, x, y);
  }
  template <class X, class Y>
  void AddStiffness(double scale, const X& x, Y&& y) const {
    w.stiffness_entries.AddProduct(scale, x, y);
  }
  template <class X, class Y>
  void AddDamping(double scale, const X& x, Y&& y) const {
    w.damping_entries.AddProduct(-scale, x, y);
  }
  template <class X, class Y>
  void AddHDot(double scale, const X& x, Y&& y) const {
    w.h_dot_entries.AddProduct(scale, x, y);
  }
  template <class X, class Y>
  void AddHDDot(double scale, const X& x, Y&& y) const {
    w.h_ddot_entries.AddProduct(scale, x, y);
  }
  template <class B, class X>
  void SolveMinimumNorm(const B& b, X&& x) const {
    w.SolveMinimumNorm(b, x);
  }
  void SolveMultiplier(const Vector& b, Vector& lambda) const { w.SolveMultiplier(b, lambda); }
};
struct SparseOps {
  using Term = TangentSparseSystem::Term;
  TangentWorkspace& w;
  TangentSparseSystem& sparse;
  const Matrix& null_space() const { return sparse.null_space(); }
  template <class X, class Y>
  void AddMass(double scale, const X& x, Y&& y) const {
    sparse.AddProduct(Term::kMass, scale, x, y);
  }
  template <class X, class Y>
  void AddStiffness(double scale, const X& x, Y&& y) const {
    sparse.AddProduct(Term::kStiffness, scale, x, y);
  }
  template <class X, class Y>
  void AddDamping(double scale, const X& x, Y&& y) const {
    sparse.AddProduct(Term::kDamping, scale, x, y);
  }
  template <class X, class Y>
  void AddHDot(double scale, const X& x, Y&& y) const {
    sparse.AddProduct(Term::kHDot, scale, x, y);
  }
  template <class X, class Y>
  void AddHDDot(double scale, const X& x, Y&& y) const {
    sparse.AddProduct(Term::kHDDot, scale, x, y);
  }
  template <class B, class X>
  void SolveMinimumNorm(const B& b, X&& x) const {
    if constexpr (B::ColsAtCompileTime == 1) {
      sparse.SolveMinimumNorm(b, x);
    } else {
      sparse.SolveMinimumNormColumns(b, x);
    }
  }
  void SolveMultiplier(const Vector& b, Vector& lambda) const { sparse.SolveMultiplier(b, lambda); }
};

}  // namespace mbb
