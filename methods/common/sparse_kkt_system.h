// The Newton system of an index-3 method (paper 001 eqs. 28-29) in sparse form:
//
//   [ K   J^T ] [x]   [r]
//   [ J   0   ] [y] = [s],                                                         (1)
//
// K (n x n) on the DAE's tangent pattern (problems/core/tangent_pattern.h), J = Phi_q (m x n) by
// its structural entries (MechanicalDae::CalcPhiQEntries). On a chain both have O(n)
// entries, and (1) is factored by envelope LU (problems/core/envelope_lu.h) in O(n) instead of
// the dense LU's O((n + m)^3).
//
// Pivot order: the coordinates in reverse Cuthill-McKee order of the graph of K and of the
// coordinates sharing a constraint row; each constraint right after the last of its
// coordinates. A leading block of (1) is then [K_CC J_RC^T; J_RC 0] with every coordinate of
// the constraints R inside C: nonsingular when K_CC is (K is the mass matrix plus O(h^2)
// terms) and the rows of J are independent, so elimination without pivoting goes through
// away from singular positions; its pivots for the constraints are -J_r K^-1 J_r^T restricted
// to the rows eliminated so far.
//
// Solve() measures the backward error |b - A x| / (|A| |x| + |b|) (infinity norms) against
// the stored K and J, takes one step of iterative refinement if it is above kRefineAbove,
// and returns false unless it ends below kBackwardErrorTolerance, which the dense LU with
// partial pivoting meets in practice [Higham, "Accuracy and Stability of Numerical
// Algorithms", SIAM 2002, s 9.4 and ch. 12]: elimination without pivoting can grow entries
// without a small pivot, and then the caller takes the dense LU.
//
// A K whose leading blocks are singular by themselves makes that order fail: Euler
// parameters, whose 4 x 4 mass block 4 G^T J G has rank 3 (the normalisation direction
// carries no inertia until its constraint is eliminated). Factor() then factors the matrix
// with K + s I, s = kShift times K's largest diagonal entry (nonsingular leading blocks;
// the constraint pivots of such a body become large, not small), and Solve() refines
// against the unshifted matrix, each step reducing the error by about s |A^-1| (the
// regularise-and-refine of quasi-definite solvers: Vanderbei, SIAM J. Optim. 5 (1995)
// 100-113; Saunders, "Solution of sparse rectangular systems using LSQR and CRAIG", BIT 35
// (1995)). The backward-error test decides, as for the unshifted factor.
//
// All storage is sized by Make(); Factor() and Solve() allocate nothing.
#pragma once

#include <memory>
#include <vector>

#include "problems/core/envelope_lu.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {

class SparseKktSystem {
 public:
  /// A pivot below this times the largest entry of its row and column refuses the factor.
  static constexpr double kPivotTolerance = 1e-10;
  /// A solution whose backward error is above this is refined once (the envelope LU's
  /// first solution measured 1e-17 to 6e-16 on the linkages and the chain, so refinement is
  /// the exception) ...
  static constexpr double kRefineAbove = 1e-14;
  /// ... and refused if it is still above this (header).
  static constexpr double kBackwardErrorTolerance = 1e-12;
  /// The shift of K's diagonal, relative to its largest entry, where the unshifted
  /// elimination refuses (header), and the refinement steps then allowed.
  static constexpr double kShift = 1e-8;
  static constexpr int kShiftedRefinements = 4;

  /// `auto` takes the sparse route from this many coordinates on. Measured per step at the
  /// catalogue's step sizes: the envelope LU is faster than the dense LU from the smallest
  /// models on (double pendulum, 6 coordinates: 3.2 against 6.3 us; double four-bar, 15:
  /// 8.0 against 15.9 us; Bricard, 35: 147 against 182 us).
  static constexpr int kAutoMinCoordinates = kSparseNewtonMinCoordinates;

  /// Null if the choice or the model does not allow the sparse route: `dense`, `auto` below
  /// kAutoMinCoordinates coordinates, or a DAE without tangent_pattern() or Phi_q's
  /// entries.
  /// `kept`: the constraint rows imposed (sorted; empty: all), for redundant constraints.
  static std::unique_ptr<SparseKktSystem> Make(const MechanicalDae& dae, ConstraintSolves choice,
                                               const std::vector<int>& kept = {});

  /// K's values on the tangent pattern and J's in the order of CalcPhiQEntries: filled by
  /// the caller before Factor().
  double* matrix_values() { return k_.data(); }
  double* jacobian_values() { return full_values_.data(); }
  const std::vector<JacobianCompression::Entry>& matrix_entries() const { return k_entries_; }
  const std::vector<JacobianCompression::Entry>& jacobian_entries() const { return full_entries_; }
  /// The row of (1) that constraint r is (0 .. kept - 1), or -1 if it is not imposed.
  int kept_row(int r) const { return kept_row_[r]; }

  /// Factors (1) with the current values. False if a pivot is refused.
  bool Factor();
  /// b (n + m) -> the solution of (1) in place, after a successful Factor(). False if the
  /// backward error is above kBackwardErrorTolerance, after a retry with the shifted
  /// factor if the unshifted one missed it (b is then left unchanged).
  bool Solve(VectorRef b);

  int num_coordinates() const { return n_; }
  int num_constraints() const { return m_; }  // imposed rows
  long envelope_size() const { return lu_.envelope_size(); }

 private:
  SparseKktSystem(const MechanicalDae& dae, const TangentPattern& pattern,
                  const JacobianCompression& phi_q, const std::vector<int>& kept);
  bool FactorWithShift(double shift);                    // K + shift I in the factor
  bool SolveWithCurrentFactor(VectorRef b);              // Solve() without the retry
  void Multiply(ConstVectorRef x, VectorRef out) const;  // out = A x
  // |b - A x| / (|A| |x| + |b|) for x = solution_; leaves b - A x in residual_.
  double BackwardError(ConstVectorRef b);

  int n_, m_;
  std::vector<JacobianCompression::Entry> k_entries_, j_entries_;  // J: the kept rows
  std::vector<double> k_, j_;
  // Phi_q as the DAE gives it (all rows), and where the kept entries come from.
  std::vector<JacobianCompression::Entry> full_entries_;
  std::vector<double> full_values_;
  std::vector<int> kept_entry_, kept_row_;
  std::vector<long> k_offset_, j_offset_, jt_offset_;  // where each entry goes in lu_
  std::vector<long> diagonal_offset_;                  // K(i, i) in lu_
  bool shifted_ = false;                               // the model needed the shift
  double shift_ = 0.0;                                 // in the current factor
  double largest_diagonal_ = 0.0;                      // of K, at Factor()
  EnvelopeLu lu_;
  double matrix_norm_ = 0.0;  // |A| (infinity norm), at Factor()
  Vector solution_, residual_, row_sums_;
};

}  // namespace mbb
