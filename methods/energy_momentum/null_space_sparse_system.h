// The linear algebra of null-space-em's local-coordinate step (null_space_em.cc, LocalStep;
// paper 002 s2.2.2: scheme (10) with the discrete null space matrix of eq 11) from the
// structural entries of Phi_q, for models whose constraint Jacobian is sparse. The same
// discrete equations P(q_1/2)^T r(q1) = 0 in the same d = n - m unknowns z, with every basis
// and solve through envelope factors (Cholesky of G G^T, problems/core/sparse_constraint_system.h
// with metric I; LU of G1 G0^T) instead of rank-revealing QRs of G^T and their n x n bases:
//
//   - the chart q1 = q0 + U z + G0^T y, U an orthonormal basis of null(G0), G0 = Phi_q(q0)
//     (kept rows). The dense form spans the row space by an orthonormal V instead; the set
//     q0 + U z + range(G0^T) does not depend on that basis, so q1(z) and
//     dq1/dz = U - V (G1 V)^-1 G1 U are the same for the same U;
//   - y by Newton on Phi(t1, q1) = 0 with the matrix G1 G0^T (G1 = Phi_q(t1, q1)), which
//     has the pattern of S = G G^T, by envelope LU (problems/core/envelope_lu.h), refactored as
//     the dense form refactors its G1 V: where an iteration contracts poorly and for the
//     final correction;
//   - dq1/dz = U - G0^T (G1 G0^T)^-1 G1 U, the columns of U projected along range(G0^T)
//     onto null(G1), with the same factor;
//   - P: an orthonormal basis of null(G(q_1/2)) from fixed pseudo-random seeds
//     (SparseConstraintSystem::NullSpaceBasis). Under P -> P R (R invertible, d x d) the
//     equations P^T r = 0 and their Newton matrix are both multiplied by R^T, so the Newton
//     corrections of q1 do not depend on the basis;
//   - mu = (G G^T)^-1 G r at q_1/2, the least-squares multiplier of G^T mu = r.
//
// U and P are the dense form's bases up to d x d orthogonal factors, which leave the
// condition number of the Newton matrix (reported) unchanged. Every operation costs
// O(nnz(G)) per column instead of the dense form's O(n^2 m). Where a factor is too close to
// singular (SparseConstraintSystem::kPivotTolerance: within about 1e-5 of a singular
// position) or the lift does not converge, the calls return false and the step takes the
// dense form. All storage is sized by Make(); nothing allocates afterwards.
#pragma once

#include <memory>
#include <vector>

#include "problems/core/envelope_lu.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {

class NullSpaceSparseSystem {
 public:
  /// `auto` takes this route from this many coordinates on (the explicit methods' and
  /// tangent-newmark's threshold, kSparseMinCoordinates, keeps their committed results bit
  /// for bit; this method has none to keep). Measured per step, h = 0.01: 1.8x faster on the
  /// four-bar (18 coordinates), 2.6x on the double four-bar (30), up to 30 % slower on models
  /// of 2 to 4 coordinates.
  static constexpr int kAutoMinCoordinates = kSparseNewtonMinCoordinates;

  /// Null unless the choice asks for the sparse route (`auto`: from kAutoMinCoordinates
  /// coordinates on) and the model gives Phi_q's entries; `kept`: the independent rows
  /// (IndependentConstraintRows), fewer than the coordinates.
  static std::unique_ptr<NullSpaceSparseSystem> Make(const MechanicalDae& dae,
                                                     const std::vector<int>& kept,
                                                     ConstraintSolves choice);

  int dof() const { return n_ - m_; }

  /// At the step's start (t0, q0): factors S0, forms U and splits the predictor increment
  /// h v into z = U^T h v and y = S0^-1 G0 h v (v: v0, or the mean of v0 and an
  /// extrapolated v1). False if S0 is too close to singular.
  bool BeginStep(DaeWorkspace& ws, double t0, const Vector& q0, const Vector& v, double h,
                 Vector& z, Vector& y);
  /// y such that Phi(t1, q0 + dq) = 0 to rounding, dq = U z + G0^T y (warm-started from y);
  /// sets dq and q1 = q0 + dq. False if it does not converge.
  bool Lift(DaeWorkspace& ws, double t1, const Vector& q0, const Vector& z, Vector& y, Vector& dq,
            Vector& q1);
  /// At (t_mid, q_mid): factors G G^T, forms P and the least-squares multiplier mu (m, kept
  /// rows) of G^T mu = r. False if the factor is too close to singular.
  bool Midpoint(DaeWorkspace& ws, double t_mid, const Vector& q_mid, const Vector& r, Vector& mu);
  const Matrix& null_space() const { return null_space_; }  // P (n x d), after Midpoint
  /// dq1/dz at (t1, q1) into dq_dz (n x d), factoring G1 G0^T there (the next Lift's
  /// matrix). False if that factor refuses a pivot.
  bool TangentMap(DaeWorkspace& ws, double t1, const Vector& q1, Matrix& dq_dz);

  /// Largest number of corrections of a lift in the run (reported).
  int max_lift_iterations() const { return max_lift_iterations_; }

 private:
  NullSpaceSparseSystem(const MechanicalDae& dae, const std::vector<int>& kept,
                        std::unique_ptr<SparseConstraintSystem> start,
                        std::unique_ptr<SparseConstraintSystem> mid,
                        std::unique_ptr<SparseConstraintSystem> end);

  // G1 = Phi_q(t1, q1) and the LU of G1 G0^T; false if a pivot is too small.
  bool FactorLiftMatrix(DaeWorkspace& ws, double t1, const Vector& q1);

  const MechanicalDae& dae_;
  std::vector<int> kept_;
  int n_, m_;
  // G0 with S0's factor, G(q_1/2) with its factor, G1 (products only).
  std::unique_ptr<SparseConstraintSystem> start_, mid_, end_;
  Matrix seeds_, tangent_basis_, null_space_;
  Vector phi_all_, phi_, vec_m_, vec_n_, vec_n2_, scatter_;
  // The lift's matrix G1 G0^T on S's pattern: row r's entries are (r, lift_rows_[e]) at
  // lift_offsets_[e], e in lift_row_start_[r] ..
  EnvelopeLu lift_lu_;
  std::vector<int> lift_row_start_, lift_rows_;
  std::vector<long> lift_offsets_;
  bool lift_lu_valid_ = false;  // lift_lu_ factors G1 G0^T of this chart at a recent q1
  int max_lift_iterations_ = 0;
};

}  // namespace mbb
