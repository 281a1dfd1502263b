// The constraint systems of the index-1 acceleration solve and of the projection onto the
// constraint manifold, for a sparse Phi_q (J below) and a constant block-diagonal metric G
// (the mass matrix M, or the identity):
//
//   S mu = r,   S = J G^-1 J^T,   x = G^-1 J^T mu,                                     (1)
//
// x is the solution of J x = r of least G-norm: with G = M the correction that makes an
// unconstrained acceleration M^-1 Q satisfy the acceleration constraint (its mu the
// negated multipliers), with G = I the minimum-norm Newton step and velocity correction
// of the projection (constraint_projection.h). Rows r, s of S couple only if they share a
// block of G, so S is sparse; it is factored by envelope Cholesky (envelope_cholesky.h),
// and a solve on a chain (n_four_bar) costs O(n) where the dense route
// (constraint_factorization.h: a QR of the m x n Phi_q^T and n x n bases) costs O(n^2 m).
//
// Forming S squares the condition number of J; one step of iterative refinement with the
// residual of J x = r computed from J itself (the corrected semi-normal equations: Björck,
// "Numerical Methods for Least Squares Problems", SIAM 1996) recovers the accuracy away
// from singular positions. Near them, and for redundant constraints, a pivot of S falls
// below kPivotTolerance of its diagonal entry (J's rows within about 1e-5 of dependent)
// and Factor() refuses: the callers then take the dense, rank-revealing route, which is
// where redundant rows and singular positions are handled.
//
// All storage is sized by Make(); Factor() and the solves allocate nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "problems/core/envelope_cholesky.h"
#include "problems/core/mechanical_dae.h"

namespace mbb {

/// Which constraint solves a method uses: `dense` (rank-revealing QR,
/// constraint_factorization.h), `sparse` (this file, whenever the model allows it) or
/// `auto` (sparse from kSparseMinCoordinates coordinates on; smaller models keep the QR's
/// results bit for bit, docs/methods.md says why).
enum class ConstraintSolves { kAuto, kDense, kSparse };
ConstraintSolves ParseConstraintSolves(const std::string& value);  // "auto" | "dense" | "sparse"
/// Coordinates from which `auto` takes the sparse route (n_four_bar from N = 10 on).
inline constexpr int kSparseMinCoordinates = 60;
/// The same for the Newton systems of newmark-index3 (methods/common/sparse_kkt_system.h)
/// and null-space-em (null_space_sparse_system.h), both measured faster on the sparse route
/// from 12 coordinates on (the classes give the numbers); below, the dense route stays, so
/// that the paper-001 reproductions on the small models keep their results bit for bit.
inline constexpr int kSparseNewtonMinCoordinates = 12;

/// The numerical rank of Phi_q at (t, q) as ConstraintFactorization reports it: m without
/// the O(n^2 m) QR when the sparse system (`auto`) factors, since its pivot tolerance keeps
/// the rows far further from dependence than the QR's rank threshold; the QR otherwise.
int ConstraintRankAt(const MechanicalDae& dae, DaeWorkspace& ws, double t, ConstVectorRef q);

class SparseConstraintSystem {
 public:
  /// A pivot of S below this times its diagonal entry refuses the factorisation (header).
  static constexpr double kPivotTolerance = 1e-10;
  /// Largest block of the metric taken (a body's coordinates; 7 for Euler parameters).
  static constexpr int kMaxBlock = 12;

  /// Null if the choice or the model does not allow the sparse route: no constraints, no
  /// entries of Phi_q from the DAE (MechanicalDae::CalcPhiQEntries), or a metric (n x n;
  /// null: the identity) that is not block diagonal with positive definite blocks of at
  /// most kMaxBlock coordinates, or fewer coordinates than `auto` asks for. `rows`: J is
  /// these rows of Phi_q (sorted; empty: all), e.g. the independent ones of a model with
  /// redundant constraints (IndependentConstraintRows); m is then rows.size().
  static std::unique_ptr<SparseConstraintSystem> Make(const MechanicalDae& dae,
                                                      const Matrix* metric, ConstraintSolves choice,
                                                      const std::vector<int>& rows = {});

  /// Evaluates J at (t, q) (for the products) without factoring.
  void EvaluateJacobian(DaeWorkspace& ws, double t, ConstVectorRef q);
  /// Evaluates J at (t, q) and factors S. False if S is singular or too close to it.
  bool Factor(DaeWorkspace& ws, double t, ConstVectorRef q);
  /// x, mu of (1) for r (m), with one refinement step; after a successful Factor().
  void SolveMinimumNorm(ConstVectorRef r, VectorRef x, VectorRef mu);
  /// An orthonormal basis of null(J) (metric I), one column per column of `seeds` (n x k,
  /// generic: PseudoRandomSeeds): each seed projected onto null(J) (e - J^+ J e), made
  /// orthogonal to the columns before it and normalised, projection and orthogonalisation
  /// twice since one pass of each leaves O(eps cond) components. After a successful
  /// Factor(); false if a projection vanishes (k > n - m, or seeds not generic).
  bool NullSpaceBasis(const Matrix& seeds, Matrix& basis);
  /// out = J x (m).
  void MultiplyJacobian(ConstVectorRef x, VectorRef out) const;
  /// out = J^T y (n).
  void MultiplyJacobianTranspose(ConstVectorRef y, VectorRef out) const;
  /// out = G^-1 y (n).
  void ApplyInverseMetric(ConstVectorRef y, VectorRef out) const;

  /// A cheap estimate of the condition number of J (metric I) after a successful Factor():
  /// the ratio of the extreme diagonal entries of S's Cholesky factor.
  double ConditionEstimate() const { return cholesky_.DiagonalRatio(); }

  int num_coordinates() const { return n_; }
  int num_constraints() const { return m_; }
  /// J in compressed rows (after EvaluateJacobian or Factor): row r's entries are the slots
  /// row_begin(r) .. row_end(r) - 1, each with its column and value.
  int row_begin(int r) const { return row_start_[r]; }
  int row_end(int r) const { return row_start_[r + 1]; }
  int column(int slot) const { return column_[slot]; }
  double value(int slot) const { return value_[slot]; }
  /// S's pattern: for row r, the rows s != r it couples with.
  const std::vector<std::vector<int>>& schur_neighbours() const { return neighbours_; }
  long envelope_size() const { return cholesky_.envelope_size(); }

 private:
  SparseConstraintSystem(const MechanicalDae& dae, const JacobianCompression& pattern,
                         const std::vector<int>& rows);
  bool SetBlocks(const Matrix* metric);
  void SetSchurPattern();
  void AddWeightedTranspose(ConstVectorRef mu, VectorRef x);  // x += G^-1 J^T mu

  const MechanicalDae& dae_;
  int n_, m_;
  // J in compressed rows; entry_slot_[k]: the slot of the pattern's k-th entry (-1: a row
  // not taken).
  std::vector<int> row_start_, column_, entry_slot_;
  std::vector<double> value_, entries_;
  // G^-1 by blocks: block b holds coordinates block_coordinates_[block_start_[b] ..
  // block_start_[b + 1]) and its inverse (column-major) from inverse_start_[b].
  std::vector<int> block_of_, local_index_, block_start_, block_coordinates_;
  std::vector<long> inverse_start_;
  std::vector<double> inverse_;
  std::vector<std::vector<int>> neighbours_;  // S's pattern (schur_neighbours)
  // S's lower triangle: for row r, the rows s <= r it couples with and their storage.
  std::vector<int> schur_start_, schur_row_;
  std::vector<long> schur_offset_;
  EnvelopeCholesky cholesky_;
  Vector scatter_, transposed_, correction_, residual_, mu_correction_;
  Vector basis_rhs_, basis_projection_, basis_mu_;  // NullSpaceBasis's scratch
};

/// k fixed pseudo-random columns of n entries in [-0.5, 0.5) (Knuth's MMIX generator):
/// generic, so their projections onto a k-dimensional subspace are independent with
/// probability 1, and the same in every run.
Matrix PseudoRandomSeeds(int n, int k);

}  // namespace mbb
