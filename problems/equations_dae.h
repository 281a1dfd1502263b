// Turns one templated set of equations into a MechanicalDae, deriving every derivative by
// forward-mode automatic differentiation (dual.h). This is the "one source of truth per
// problem" of docs/design.md: a problem writes Phi, M, V and its forces once.
//
// An Equations type provides
//   int num_coordinates() const;  int num_constraints() const;
//   static constexpr bool kConstantMass;
//   template <class T> void Constraints(const T& t, const T* q, T* phi) const;     // m
//   template <class T> void MassMatrix(const T* q, T* mass) const;  // n*n column-major, pre-zeroed
//   template <class T> T Potential(const T& t, const T* q) const;   // V; Q gets -dV/dq
//   template <class T> void AppliedForces(const T& t, const T* q, const T* v, T* f) const;
//       // non-conservative generalised forces (pre-zeroed, n); their power enters the
//       // energy balance
//   template <class T> void VelocityForces(const T* q, const T* v, T* f) const;
//       // quadratic-velocity (gyroscopic) terms of the equations of motion (pre-zeroed, n)
// and optionally
//   void Momenta(const double* q, const double* v, Eigen::Vector3d& linear,
//                Eigen::Vector3d& angular) const;   // MechanicalDae::CalcMomenta
// Derive from EquationDefaults to inherit "no applied forces, no velocity forces".
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "problems/dual.h"
#include "problems/invariant.h"
#include "problems/jacobian_compression.h"
#include "problems/mechanical_dae.h"
#include "problems/row_derivative.h"

namespace mbb {

struct EquationDefaults {
  template <class T>
  void AppliedForces(const T& /*t*/, const T* /*q*/, const T* /*v*/, T* /*f*/) const {}
  template <class T>
  void VelocityForces(const T* /*q*/, const T* /*v*/, T* /*f*/) const {}
};

/// True if Equations has Momenta(q, v, linear, angular).
template <class E, class = void>
struct HasMomenta : std::false_type {};
template <class E>
struct HasMomenta<E, std::void_t<decltype(std::declval<const E&>().Momenta(
                         static_cast<const double*>(nullptr), static_cast<const double*>(nullptr),
                         std::declval<Eigen::Vector3d&>(), std::declval<Eigen::Vector3d&>()))>>
    : std::true_type {};

/// True if Equations has a hand-written ConstraintJacobian(t, q, phi_q) (m x n, double):
/// then CalcPhiQ uses it instead of automatic differentiation (the derivative test checks
/// both against finite differences).
template <class E, class = void>
struct HasConstraintJacobian : std::false_type {};
template <class E>
struct HasConstraintJacobian<
    E, std::void_t<decltype(std::declval<const E&>().ConstraintJacobian(
           0.0, static_cast<const double*>(nullptr), std::declval<MatrixRef>()))>>
    : std::true_type {};

/// True if Equations has a hand-written ConstraintGamma(t, q, v, gamma) = -(Phi_q v)_q v -
/// 2 Phi_qt v - Phi_tt (m, double), used instead of second-order automatic differentiation.
template <class E, class = void>
struct HasConstraintGamma : std::false_type {};
template <class E>
struct HasConstraintGamma<E,
                          std::void_t<decltype(std::declval<const E&>().ConstraintGamma(
                              0.0, static_cast<const double*>(nullptr),
                              static_cast<const double*>(nullptr), static_cast<double*>(nullptr)))>>
    : std::true_type {};

/// True if Equations gives the second derivatives of some constraint rows by hand:
/// RowsWithHessians() (m flags) and AddRowHessians(q, lambda, add) adding
/// sum_r lambda_r d^2 Phi_r / dq_i dq_j over those rows as add(i, j, value), a sequence of
/// (i, j) that does not depend on q or lambda. The reaction stiffness then takes automatic
/// differentiation only for the other rows (the derivative test checks both).
template <class E, class = void>
struct HasRowHessians : std::false_type {};
template <class E>
struct HasRowHessians<E, std::void_t<decltype(std::declval<const E&>().RowsWithHessians())>>
    : std::true_type {};

/// True if Equations gives Phi_q, its rate, Phi_t, gamma and d gamma / dq by hand in
/// doubles (model_equations.h, kHasHandConstraintDerivatives): VisitRowDerivatives(what, q,
/// v, take(row, col, value)), a sequence of (row, col) that depends on nothing but the
/// model (row_derivative.h), ConstraintTimeRate and ConstraintGamma. EquationsDae checks them
/// against dual numbers and differences once per model (DetectHandDerivatives).
template <class E, class = void>
struct HasHandConstraintDerivatives : std::false_type {};
template <class E>
struct HasHandConstraintDerivatives<E, std::enable_if_t<E::kHasHandConstraintDerivatives>>
    : std::true_type {};

template <class Equations>
class EquationsDae final : public MechanicalDae {
  using D1 = Dual<double>;
  using D2 = Dual<D1>;

  // The n x n buffers only for a mass matrix that depends on q (a constant one is read from
  // its stored entries): on a long chain they would be most of a workspace's cost.
  struct Workspace final : DaeWorkspace {
    Workspace(int n, int m)
        : q(n),
          v(n),
          f(n),
          mass(Equations::kConstantMass ? 0 : n * n),
          q1(n),
          v1(n),
          out1(std::max(n, m)),
          mass1(Equations::kConstantMass ? 0 : n * n),
          q2(n),
          out2(std::max(n, m)) {}
    std::vector<double> q, v, f, mass;
    std::vector<D1> q1, v1, out1, mass1;
    std::vector<D2> q2, out2;
    std::vector<double> phi_q_values;  // per entry of Structure::phi_q (hand-written Phi_q)
  };

  // What DetectConstraintJacobianPattern, DetectPotentialStructure and
  // DetectMassAndForcePatterns find: the structure the derivatives exploit.
  struct Structure {
    JacobianCompression phi_q;
    // The pairs a <= b of phi_q's column groups whose second-order pass has a row with a
    // second derivative that is not identically zero (DetectConstraintCurvature), and the
    // groups whose d/dt Phi_q pass has a non-zero entry: the passes the reaction stiffness
    // and d/dt Phi_q take. Coordinates that enter the constraints linearly (positions of a
    // revolute joint) drop out: 2 of 10 pair passes and 2 of 4 rate passes on the double
    // four-bar, 8 of 10 rate passes on Bricard (Euler parameters; 36 of 55 pair passes
    // before its joints' Hessians were written by hand, none now). At v = 0, d/dt Phi_q is
    // Phi_qt (tangent-newmark's H''), which only groups in moving_at_rest_group have (none
    // for constraints that do not depend on t).
    std::vector<std::pair<int, int>> curved_group_pairs;
    std::vector<char> moving_rate_group, moving_at_rest_group;
    // Rows whose Hessians Equations gives by hand (HasRowHessians): left out of the pair
    // passes, which are then only for the other rows (Bricard has none left).
    std::vector<char> hand_rows;
    bool any_hand_rows = false;
    // Per (row, col) of Equations::VisitRowDerivatives (HasHandConstraintDerivatives):
    // its entry in phi_q, or -1 for one that is zero wherever the pattern was detected.
    std::vector<int> hand_jacobian_slot;
    std::vector<int> gradient_columns, hessian_columns;
    // Columns of gradient_columns whose dV/dq_j is the same constant at every state (the
    // Hessian row is zero and it does not change with t: uniform gravity), with that value;
    // the rest need a pass per force evaluation.
    std::vector<int> constant_gradient_columns, varying_gradient_columns;
    std::vector<double> constant_gradient;
    JacobianCompression mass_rate, velocity_force_q, velocity_force_v;
    // The applied forces' Jacobians, for the entries of the Newton matrix only (the dense
    // CalcForceJacobians keeps one pass per column: bit for bit what the baselines hold).
    JacobianCompression applied_force_q, applied_force_v;
  };

  // Where each derivative term lands in tangent_pattern() (BuildTangent): slot tables in the
  // order the passes produce the values.
  struct Tangent {
    TangentPattern pattern;
    std::vector<JacobianCompression::Entry> mass_entries;  // a varying M's structural entries
    std::vector<int> mass_slot;       // per ConstantMassEntries() or mass_entries entry
    std::vector<int> mass_rate_slot;  // per entry of Structure::mass_rate
    std::vector<int> reaction_slot;   // per curved group pair and row: slots of (i, j), (j, i)
    std::vector<int> hand_slot;       // per entry of Equations::AddRowHessians
    std::vector<int> hessian_slot;    // per pair of hessian_columns: slots of (i, j), (j, i)
    std::vector<int> applied_q_slot, applied_v_slot, velocity_q_slot, velocity_v_slot;
  };

 public:
  explicit EquationsDae(Equations equations)
      : MechanicalDae(equations.num_coordinates(), equations.num_constraints()),
        eq_(std::move(equations)) {}

  /// Dual passes per Phi_q (and per d/dt Phi_q): the column groups of the compression.
  int constraint_jacobian_passes() const { return Detected().phi_q.num_groups(); }
  const JacobianCompression* constraint_jacobian_pattern() const override {
    return &Detected().phi_q;
  }
  /// Second-order dual passes per reaction stiffness: the pairs of column groups with a
  /// second derivative that is not identically zero (of num_groups (num_groups + 1) / 2).
  int constraint_hessian_passes() const {
    return static_cast<int>(Detected().curved_group_pairs.size());
  }
  /// Dual passes per d/dt Phi_q: the column groups whose entries are not identically zero
  /// (at v = 0, where d/dt Phi_q = Phi_qt, those with `at_rest`).
  int constraint_rate_passes(bool at_rest = false) const {
    const std::vector<char>& moving =
        at_rest ? Detected().moving_at_rest_group : Detected().moving_rate_group;
    return static_cast<int>(std::count(moving.begin(), moving.end(), 1));
  }
  /// The coordinates whose row of the Hessian of V is not identically zero (none for a
  /// potential linear in q, such as uniform gravity).
  const std::vector<int>& potential_hessian_coordinates() const {
    return Detected().hessian_columns;
  }
  /// Dual passes per d(M a)/dq (0 for a constant mass matrix).
  int mass_rate_passes() const {
    return Equations::kConstantMass ? 0 : Detected().mass_rate.num_groups();
  }

  const Equations& equations() const { return eq_; }

  std::unique_ptr<DaeWorkspace> MakeWorkspace() const override {
    auto w = std::make_unique<Workspace>(n(), m());
    if constexpr (HasHandConstraintDerivatives<Equations>::value)
      w->phi_q_values.assign(Detected().phi_q.num_entries(), 0.0);
    return w;
  }

  bool has_constant_mass_matrix() const override { return Equations::kConstantMass; }

  void CalcPhi(DaeWorkspace& base, double t, ConstVectorRef q, VectorRef phi) const override {
    Cast(base);
    MBB_INVARIANT(q.size() == n() && phi.size() == m(), "CalcPhi: q (n), phi (m)");
    if (m() > 0) eq_.Constraints(t, q.data(), phi.data());
  }

  void CalcPhiQ(DaeWorkspace& base, double t, ConstVectorRef q, MatrixRef phi_q) const override {
    MBB_INVARIANT(q.size() == n() && phi_q.rows() == m() && phi_q.cols() == n(),
                  "CalcPhiQ: q (n), phi_q (m x n)");
    if constexpr (HasConstraintJacobian<Equations>::value) {
      eq_.ConstraintJacobian(t, q.data(), phi_q);
      return;
    }
    phi_q.setZero();
    ForEachPhiQEntry(Cast(base), t, q, [&](const JacobianCompression::Entry& e, double value) {
      phi_q(e.row, e.col) = value;
    });
  }

  // A hand-written Jacobian (Andrews' squeezer, 7 x 7) comes dense; its models are small.
  bool has_phi_q_entries() const override { return !HasConstraintJacobian<Equations>::value; }
  void CalcPhiQEntries(DaeWorkspace& base, double t, ConstVectorRef q,
                       double* values) const override {
    MBB_INVARIANT(q.size() == n() && has_phi_q_entries(), "CalcPhiQEntries: q (n)");
    ForEachPhiQEntry(Cast(base), t, q,
                     [&](const JacobianCompression::Entry&, double value) { *values++ = value; });
  }

  void CalcPhiT(DaeWorkspace& base, double t, ConstVectorRef q, VectorRef phi_t) const override {
    MBB_INVARIANT(q.size() == n() && phi_t.size() == m(), "CalcPhiT: q (n), phi_t (m)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      eq_.ConstraintTimeRate(t, phi_t.data());
      return;
    }
    PhiTByDuals(Cast(base), t, q, phi_t);
  }

  void CalcVelocityResidual(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                            VectorRef out) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && out.size() == m(),
                  "CalcVelocityResidual: q, v (n), out (m)");
    // d/ds Phi(t + s, q + v s) = Phi_q v + Phi_t.
    auto& w = Cast(base);
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i], v[i]);
    eq_.Constraints(D1(t, 1.0), w.q1.data(), w.out1.data());
    for (int k = 0; k < m(); ++k) out[k] = w.out1[k].d;
  }

  void CalcGamma(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                 VectorRef gamma) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && gamma.size() == m(),
                  "CalcGamma: q, v (n), gamma (m)");
    if constexpr (HasConstraintGamma<Equations>::value) {
      eq_.ConstraintGamma(t, q.data(), v.data(), gamma.data());
      return;
    }
    GammaByDuals(Cast(base), t, q, v, gamma);
  }

  bool CalcGammaJacobian(DaeWorkspace& base, double /*t*/, ConstVectorRef q, ConstVectorRef v,
                         MatrixRef out) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && out.rows() == m() && out.cols() == n(),
                  "CalcGammaJacobian: q, v (n), out (m x n)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      out.setZero();
      ForEachHandEntry(
          Cast(base), q, v.data(), RowDerivative::kGammaJacobian,
          [&](const JacobianCompression::Entry& e, double value) { out(e.row, e.col) = value; });
      return true;
    }
    return false;
  }

  bool CalcGammaJacobianEntries(DaeWorkspace& base, double /*t*/, ConstVectorRef q,
                                ConstVectorRef v, double* values) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n(), "CalcGammaJacobianEntries: q, v (n)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      ForEachHandEntry(Cast(base), q, v.data(), RowDerivative::kGammaJacobian,
                       [&](const JacobianCompression::Entry&, double value) { *values++ = value; });
      return true;
    }
    return false;
  }

  void CalcPhiQDot(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                   MatrixRef phi_q_dot) const override {
    MBB_INVARIANT(
        q.size() == n() && v.size() == n() && phi_q_dot.rows() == m() && phi_q_dot.cols() == n(),
        "CalcPhiQDot: q, v (n), phi_q_dot (m x n)");
    phi_q_dot.setZero();
    ForEachPhiQDotEntry(Cast(base), t, q, v,
                        [&](const JacobianCompression::Entry& e, double value) {
                          phi_q_dot(e.row, e.col) = value;
                        });
  }

  void CalcPhiQDotEntries(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                          double* values) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && has_phi_q_entries(),
                  "CalcPhiQDotEntries: q, v (n)");
    ForEachPhiQDotEntry(Cast(base), t, q, v, [&](const JacobianCompression::Entry&, double value) {
      *values++ = value;
    });
  }

  void CalcReactionStiffness(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef lambda,
                             MatrixRef k) const override {
    MBB_INVARIANT(q.size() == n() && lambda.size() == m() && k.rows() == n() && k.cols() == n(),
                  "CalcReactionStiffness: q (n), lambda (m), k (n x n)");
    // k_ij = sum_r lambda_r d^2 Phi_r / dq_i dq_j. The pass seeding column groups a (inner)
    // and b (outer) gives, for each row r, d^2 Phi_r / dq_i dq_j with i, j the only columns
    // of groups a and b that row r depends on (jacobian_compression.h), so every
    // (r, i, j) is met in exactly one pass; k is symmetric, so only b >= a is evaluated,
    // and only the pairs with a second derivative that is not identically zero.
    auto& w = Cast(base);
    const Structure& structure = Detected();
    const JacobianCompression& c = structure.phi_q;
    k.setZero();
    AddHandHessians(q, lambda, [&](int i, int j, double value) { k(i, j) += value; });
    for (const auto& [a, b] : structure.curved_group_pairs) {
      SeedGroupPair(w, c, q, a, b);
      eq_.Constraints(D2(t), w.q2.data(), w.out2.data());
      for (int r = 0; r < m(); ++r) {
        const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
        if (i < 0 || j < 0 || structure.hand_rows[r]) continue;
        const double contribution = lambda[r] * w.out2[r].d.d;
        k(i, j) += contribution;
        if (a != b) k(j, i) += contribution;
      }
    }
  }

  void CalcMassMatrix(DaeWorkspace& base, ConstVectorRef q, MatrixRef mass) const override {
    MBB_INVARIANT(q.size() == n() && mass.rows() == n() && mass.cols() == n(),
                  "CalcMassMatrix: q (n), mass (n x n)");
    if constexpr (Equations::kConstantMass) {
      mass.setZero();
      for (const MassEntry& e : ConstantMassEntries()) mass(e.row, e.col) = e.value;
    } else {
      auto& w = Cast(base);
      std::fill(w.mass.begin(), w.mass.end(), 0.0);
      eq_.MassMatrix(q.data(), w.mass.data());
      for (int j = 0; j < n(); ++j)
        for (int i = 0; i < n(); ++i) mass(i, j) = w.mass[i + j * n()];
    }
  }

  void CalcForces(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                  VectorRef forces) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && forces.size() == n(),
                  "CalcForces: q, v, forces (n)");
    auto& w = Cast(base);
    CalcNonPotentialForces(w, t, q, v);
    for (int j = 0; j < n(); ++j) forces[j] = w.f[j];
    // -dV/dq: the constant part stored, one pass per other coordinate V depends on
    // (DetectPotentialStructure; a pass per coordinate made a chain's forces O(n^2)).
    const Structure& structure = Detected();
    for (size_t k = 0; k < structure.constant_gradient_columns.size(); ++k)
      forces[structure.constant_gradient_columns[k]] -= structure.constant_gradient[k];
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i]);
    for (int j : structure.varying_gradient_columns) {
      w.q1[j].d = 1.0;
      forces[j] -= eq_.Potential(D1(t), w.q1.data()).d;
      w.q1[j].d = 0.0;
    }
  }

  void CalcForceJacobians(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                          MatrixRef dq, MatrixRef dv) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && dq.rows() == n() && dq.cols() == n() &&
                      dv.rows() == n() && dv.cols() == n(),
                  "CalcForceJacobians: q, v (n), dq, dv (n x n)");
    auto& w = Cast(base);
    // Conservative part: -Hessian of V, only where it can be non-zero (a linear potential,
    // uniform gravity, has none: DetectPotentialStructure).
    dq.setZero();
    ForEachPotentialHessianEntry(w, t, q, [&](size_t, int i, int j, double h) {
      dq(i, j) = -h;
      dq(j, i) = -h;
    });
    // Applied forces: one directional derivative per column (they may depend on t, so no
    // pattern is assumed for them), unless they depend on neither q nor v at all (no entry
    // in the patterns DetectMassAndForcePatterns found: gravity alone, or forces of t only),
    // where every pass would add zeros.
    dv.setZero();
    const Structure& structure = Detected();
    if (structure.applied_force_q.num_entries() > 0 || structure.applied_force_v.num_entries() > 0)
      AddAppliedForceJacobians(w, t, q, v, dq, dv);
    // Velocity (gyroscopic) forces: time-independent, so compressed like Phi_q, one pass
    // per column group of their q and v patterns.
    ForEachForceDerivative(
        w, q, v, structure.velocity_force_q, w.q1, VelocityForcesOf(w),
        [&](const JacobianCompression::Entry& e, int, double value) { dq(e.row, e.col) += value; });
    ForEachForceDerivative(
        w, q, v, structure.velocity_force_v, w.v1, VelocityForcesOf(w),
        [&](const JacobianCompression::Entry& e, int, double value) { dv(e.row, e.col) += value; });
  }

  void CalcMassTimesAccelerationJacobian(DaeWorkspace& base, ConstVectorRef q, ConstVectorRef a,
                                         MatrixRef out) const override {
    MBB_INVARIANT(q.size() == n() && a.size() == n() && out.rows() == n() && out.cols() == n(),
                  "CalcMassTimesAccelerationJacobian: q, a (n), out (n x n)");
    if (Equations::kConstantMass) {
      out.setZero();
      return;
    }
    out.setZero();
    ForEachMassRateEntry(
        Cast(base), q, a,
        [&](const JacobianCompression::Entry& e, int, double value) { out(e.row, e.col) = value; });
  }

  const TangentPattern* tangent_pattern() const override { return &Tangents().pattern; }

  void CalcMassMatrixEntries(DaeWorkspace& base, ConstVectorRef q, double* values) const override {
    MBB_INVARIANT(q.size() == n(), "CalcMassMatrixEntries: q (n)");
    const Tangent& tangent = Tangents();
    std::fill(values, values + tangent.pattern.num_entries(), 0.0);
    if constexpr (Equations::kConstantMass) {
      const std::vector<MassEntry>& entries = ConstantMassEntries();
      for (size_t k = 0; k < entries.size(); ++k) values[tangent.mass_slot[k]] = entries[k].value;
    } else {
      auto& w = Cast(base);
      std::fill(w.mass.begin(), w.mass.end(), 0.0);
      eq_.MassMatrix(q.data(), w.mass.data());
      for (size_t k = 0; k < tangent.mass_entries.size(); ++k) {
        const JacobianCompression::Entry& e = tangent.mass_entries[k];
        values[tangent.mass_slot[k]] = w.mass[e.row + static_cast<size_t>(e.col) * n()];
      }
    }
  }

  void CalcTangentStiffnessEntries(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                                   ConstVectorRef a, ConstVectorRef lambda, double* stiffness,
                                   double* damping) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && a.size() == n() && lambda.size() == m(),
                  "CalcTangentStiffnessEntries: q, v, a (n), lambda (m)");
    auto& w = Cast(base);
    const Structure& structure = Detected();
    const Tangent& tangent = Tangents();
    std::fill(stiffness, stiffness + tangent.pattern.num_entries(), 0.0);
    std::fill(damping, damping + tangent.pattern.num_entries(), 0.0);
    // d(M a)/dq.
    if constexpr (!Equations::kConstantMass) {
      ForEachMassRateEntry(w, q, a, [&](const JacobianCompression::Entry&, int k, double value) {
        stiffness[tangent.mass_rate_slot[k]] += value;
      });
    }
    // d(Phi_q^T lambda)/dq: the rows with Hessians by hand, then the curved pairs of column
    // groups for the others (as CalcReactionStiffness).
    const int* hand_slot = tangent.hand_slot.data();
    AddHandHessians(q, lambda, [&](int, int, double value) { stiffness[*hand_slot++] += value; });
    const JacobianCompression& c = structure.phi_q;
    const int* slot = tangent.reaction_slot.data();
    for (const auto& [pair_a, pair_b] : structure.curved_group_pairs) {
      SeedGroupPair(w, c, q, pair_a, pair_b);
      eq_.Constraints(D2(t), w.q2.data(), w.out2.data());
      for (int r = 0; r < m(); ++r, slot += 2) {
        if (slot[0] < 0) continue;
        const double contribution = lambda[r] * w.out2[r].d.d;
        stiffness[slot[0]] += contribution;
        if (pair_a != pair_b) stiffness[slot[1]] += contribution;
      }
    }
    // -dQ/dq of the potential: its Hessian, pair by pair of the coordinates it curves in.
    ForEachPotentialHessianEntry(w, t, q, [&](size_t pair, int i, int j, double h) {
      stiffness[tangent.hessian_slot[2 * pair]] += h;
      if (i != j) stiffness[tangent.hessian_slot[2 * pair + 1]] += h;
    });
    // -dQ/dq and -dQ/dv of the applied and velocity forces, by their column groups.
    auto subtract_into = [&](double* values, const std::vector<int>& slots) {
      return [values, &slots](const JacobianCompression::Entry&, int k, double value) {
        values[slots[k]] -= value;
      };
    };
    ForEachForceDerivative(w, q, v, structure.applied_force_q, w.q1, AppliedForcesOf(w, t),
                           subtract_into(stiffness, tangent.applied_q_slot));
    ForEachForceDerivative(w, q, v, structure.applied_force_v, w.v1, AppliedForcesOf(w, t),
                           subtract_into(damping, tangent.applied_v_slot));
    ForEachForceDerivative(w, q, v, structure.velocity_force_q, w.q1, VelocityForcesOf(w),
                           subtract_into(stiffness, tangent.velocity_q_slot));
    ForEachForceDerivative(w, q, v, structure.velocity_force_v, w.v1, VelocityForcesOf(w),
                           subtract_into(damping, tangent.velocity_v_slot));
  }

  double CalcEnergy(DaeWorkspace& base, double t, ConstVectorRef q,
                    ConstVectorRef v) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n(), "CalcEnergy: q, v (n)");
    auto& w = Cast(base);
    double kinetic = 0.0;
    if constexpr (Equations::kConstantMass) {
      // The stored non-zeros: O(n) per call on a chain instead of the n x n matrix.
      for (const MassEntry& e : ConstantMassEntries()) kinetic += v[e.row] * e.value * v[e.col];
    } else {
      std::fill(w.mass.begin(), w.mass.end(), 0.0);
      eq_.MassMatrix(q.data(), w.mass.data());
      for (int j = 0; j < n(); ++j)
        for (int i = 0; i < n(); ++i) kinetic += v[i] * w.mass[i + j * n()] * v[j];
    }
    return 0.5 * kinetic + eq_.Potential(t, q.data());
  }

  bool CalcMomenta(DaeWorkspace& /*ws*/, ConstVectorRef q, ConstVectorRef v,
                   Eigen::Vector3d& linear, Eigen::Vector3d& angular) const override {
    if constexpr (HasMomenta<Equations>::value) {
      eq_.Momenta(q.data(), v.data(), linear, angular);
      return true;
    } else {
      return false;
    }
  }

  bool CalcPotential(DaeWorkspace& base, double t, ConstVectorRef q, double& potential,
                     VectorRef gradient) const override {
    MBB_INVARIANT(q.size() == n() && gradient.size() == n(), "CalcPotential: q, gradient (n)");
    auto& w = Cast(base);
    for (int j = 0; j < n(); ++j) {
      for (int i = 0; i < n(); ++i) w.q1[i] = Seed(q[i], i == j);
      gradient[j] = eq_.Potential(D1(t), w.q1.data()).d;
    }
    potential = eq_.Potential(t, q.data());
    return true;
  }

  double CalcAppliedPower(DaeWorkspace& base, double t, ConstVectorRef q,
                          ConstVectorRef v) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n(), "CalcAppliedPower: q, v (n)");
    auto& w = Cast(base);
    std::fill(w.f.begin(), w.f.end(), 0.0);
    eq_.AppliedForces(t, q.data(), v.data(), w.f.data());
    double power = 0.0;
    for (int i = 0; i < n(); ++i) power += w.f[i] * v[i];
    return power;
  }

 private:
  int n() const { return num_coordinates(); }
  int m() const { return num_constraints(); }

  static Workspace& Cast(DaeWorkspace& base) { return MBB_DOWNCAST(Workspace, base); }

  // The entries of the hand-written Phi_q, of its rate along v or of d gamma / dq (`what`;
  // HasHandConstraintDerivatives), handed to take(entry, value) in the pattern's order.
  template <class Take>
  void ForEachHandEntry(Workspace& w, ConstVectorRef q, const double* v, RowDerivative what,
                        Take&& take) const {
    const Structure& structure = Detected();
    const std::vector<int>& slot = structure.hand_jacobian_slot;
    std::fill(w.phi_q_values.begin(), w.phi_q_values.end(), 0.0);
    size_t k = 0;
    auto add = [&](int, int, double value) {
      const int entry = slot[k++];
      if (entry >= 0) w.phi_q_values[entry] += value;
    };
    eq_.VisitRowDerivatives(what, q.data(), v, add);
    const std::vector<JacobianCompression::Entry>& entries = structure.phi_q.entries();
    for (size_t e = 0; e < entries.size(); ++e) take(entries[e], w.phi_q_values[e]);
  }

  // d/dt Phi_q along (t + s, q + v s) by its structural entries, in the order of Phi_q's
  // pattern: column j is d/ds d/de Phi(t + s, q + v s + e_j e) at s = e = 0. Its pattern lies
  // inside that of Phi_q (a row that does not depend on q_j has no d/dq_j of its rate), so
  // the same column groups apply. A group whose entries are identically zero
  // (Structure::moving_rate_group, or moving_at_rest_group at v = 0) takes no pass.
  template <class Take>
  void ForEachPhiQDotEntry(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v,
                           Take&& take) const {
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      if ((v.array() == 0.0).all()) {  // Phi_qt = 0 for these equations
        for (const JacobianCompression::Entry& e : Detected().phi_q.entries()) take(e, 0.0);
      } else {
        ForEachHandEntry(w, q, v.data(), RowDerivative::kRate, take);
      }
      return;
    }
    const Structure& structure = Detected();
    const JacobianCompression& c = structure.phi_q;
    const std::vector<char>& moving =
        (v.array() == 0.0).all() ? structure.moving_at_rest_group : structure.moving_rate_group;
    for (int g = 0; g < c.num_groups(); ++g) {
      if (!moving[g]) {
        for (auto e = c.begin(g); e != c.end(g); ++e) take(*e, 0.0);
        continue;
      }
      ForEachPhiQDotEntryOfGroup(w, c, t, q, v, g, take);
    }
  }

  // The entries of column group g of d/dt Phi_q (ForEachPhiQDotEntry), by one pass.
  template <class Take>
  void ForEachPhiQDotEntryOfGroup(Workspace& w, const JacobianCompression& c, double t,
                                  ConstVectorRef q, ConstVectorRef v, int g, Take&& take) const {
    const D2 time(D1(t, 0.0), D1(1.0, 0.0));
    for (int i = 0; i < n(); ++i) {
      const double seed = c.group_of_column(i) == g ? 1.0 : 0.0;
      w.q2[i] = D2(D1(q[i], seed), D1(v[i], 0.0));
    }
    eq_.Constraints(time, w.q2.data(), w.out2.data());
    for (auto e = c.begin(g); e != c.end(g); ++e) take(*e, w.out2[e->row].d.d);
  }

  // d(M a)/dq by its structural entries: take(entry, k, value) for the k-th entry of its
  // pattern. One pass per column group (a body's mass block depends only on its own
  // coordinates, so a few groups cover any number of bodies).
  template <class Take>
  void ForEachMassRateEntry(Workspace& w, ConstVectorRef q, ConstVectorRef a, Take&& take) const {
    const JacobianCompression& c = Detected().mass_rate;
    for (int g = 0; g < c.num_groups(); ++g) {
      for (int i = 0; i < n(); ++i) w.q1[i] = Seed(q[i], c.group_of_column(i) == g);
      std::fill(w.mass1.begin(), w.mass1.end(), D1(0.0));
      eq_.MassMatrix(w.q1.data(), w.mass1.data());
      for (auto e = c.begin(g); e != c.end(g); ++e) {
        double sum = 0.0;
        for (int col = 0; col < n(); ++col) sum += w.mass1[e->row + col * n()].d * a[col];
        take(*e, static_cast<int>(e - c.entries().data()), sum);
      }
    }
  }

  // Equations::AddRowHessians at (q, lambda) where it has rows (HasRowHessians).
  template <class Add>
  void AddHandHessians(ConstVectorRef q, ConstVectorRef lambda, Add&& add) const {
    if constexpr (HasRowHessians<Equations>::value) {
      if (Detected().any_hand_rows) eq_.AddRowHessians(q.data(), lambda.data(), add);
    }
  }

  // The second-order seed of the pass for column groups a (inner) and b (outer) of `c`.
  void SeedGroupPair(Workspace& w, const JacobianCompression& c, ConstVectorRef q, int a,
                     int b) const {
    for (int i = 0; i < n(); ++i) {
      const int g = c.group_of_column(i);
      w.q2[i] = D2(D1(q[i], g == a ? 1.0 : 0.0), D1(g == b ? 1.0 : 0.0, 0.0));
    }
  }

  // take(pair, i, j, d^2 V / dq_i dq_j) for each pair i <= j of hessian_columns, pair
  // counting them in order (one second-order pass each).
  template <class Take>
  void ForEachPotentialHessianEntry(Workspace& w, double t, ConstVectorRef q, Take&& take) const {
    for (int i = 0; i < n(); ++i) w.q2[i] = D2(D1(q[i], 0.0), D1(0.0, 0.0));
    const std::vector<int>& s = Detected().hessian_columns;
    size_t pair = 0;
    for (size_t a = 0; a < s.size(); ++a) {
      for (size_t b = a; b < s.size(); ++b, ++pair) {
        const int i = s[a], j = s[b];
        w.q2[i].v.d = 1.0;
        w.q2[j].d.v = 1.0;
        const double h = eq_.Potential(D2(t), w.q2.data()).d.d;
        w.q2[i].v.d = 0.0;
        w.q2[j].d.v = 0.0;
        take(pair, i, j, h);
      }
    }
  }

  // Phi_t by dual numbers.
  void PhiTByDuals(Workspace& w, double t, ConstVectorRef q, VectorRef phi_t) const {
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i]);
    eq_.Constraints(D1(t, 1.0), w.q1.data(), w.out1.data());
    for (int k = 0; k < m(); ++k) phi_t[k] = w.out1[k].d;
  }

  // gamma by dual numbers: d^2/ds^2 Phi(t + s, q + v s) = (Phi_q v)_q v + 2 Phi_qt v + Phi_tt
  // = -gamma, eq. (2).
  void GammaByDuals(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v,
                    VectorRef gamma) const {
    for (int i = 0; i < n(); ++i) w.q2[i] = D2(D1(q[i], v[i]), D1(v[i], 0.0));
    eq_.Constraints(D2(D1(t, 1.0), D1(1.0, 0.0)), w.q2.data(), w.out2.data());
    for (int k = 0; k < m(); ++k) gamma[k] = -w.out2[k].d.d;
  }

  // The structural non-zeros of Phi_q handed to take(entry, value) in the pattern's entry
  // order: by hand where Equations has them (HasHandConstraintDerivatives), else by
  // automatic differentiation, one pass per column group (jacobian_compression.h: seeded
  // columns share no row).
  template <class Take>
  void ForEachPhiQEntry(Workspace& w, double t, ConstVectorRef q, Take&& take) const {
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      ForEachHandEntry(w, q, nullptr, RowDerivative::kJacobian, take);
      return;
    }
    ForEachPhiQEntryByDuals(w, Detected().phi_q, t, q, take);
  }
  // The entries of pattern c of Phi_q by dual numbers (ForEachPhiQEntry; also the reference
  // the hand-written ones are checked against).
  template <class Take>
  void ForEachPhiQEntryByDuals(Workspace& w, const JacobianCompression& c, double t,
                               ConstVectorRef q, Take&& take) const {
    for (int g = 0; g < c.num_groups(); ++g) {
      for (int i = 0; i < n(); ++i) w.q1[i] = Seed(q[i], c.group_of_column(i) == g);
      eq_.Constraints(D1(t), w.q1.data(), w.out1.data());
      for (auto e = c.begin(g); e != c.end(g); ++e) take(*e, w.out1[e->row].d);
    }
  }

  // The structural non-zeros of Phi_q: the union of the dense AD Jacobians at three
  // pseudo-random states (a structural non-zero vanishing at all three has probability 0;
  // a non-finite entry counts as non-zero). Once per DAE, so cost is no concern.
  JacobianCompression DetectConstraintJacobianPattern() const {
    const int rows = m(), cols = n();
    std::vector<char> pattern(static_cast<size_t>(rows) * cols, 0);
    if (rows > 0) {
      Workspace w(cols, rows);
      unsigned long long state = 0x9E3779B97F4A7C15ull;
      auto uniform = [&state] {  // Knuth's MMIX linear congruential generator
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(state >> 11) * 0x1.0p-53;
      };
      std::vector<double> q(cols);
      for (int trial = 0; trial < 3; ++trial) {
        for (double& x : q) x = 0.2 + 0.6 * uniform();
        const double t = 0.1 + 0.8 * uniform();
        for (int j = 0; j < cols; ++j) {
          for (int i = 0; i < cols; ++i) w.q1[i] = Seed(q[i], i == j);
          eq_.Constraints(D1(t), w.q1.data(), w.out1.data());
          for (int k = 0; k < rows; ++k)
            if (!(w.out1[k].d == 0.0)) pattern[k + static_cast<size_t>(j) * rows] = 1;
        }
      }
    }
    return JacobianCompression::FromPattern(
        rows, cols, [&](int r, int c) { return pattern[r + static_cast<size_t>(c) * rows] != 0; });
  }

  // Which second-order passes of the constraints can give a non-zero (curved_group_pairs,
  // moving_rate_group, moving_at_rest_group): the passes themselves at three pseudo-random
  // states (a structural non-zero vanishing at all three has probability 0; a non-finite
  // value counts as non-zero). A skipped pass would have given exact zeros, so the reaction
  // stiffness and d/dt Phi_q are what the full set of passes gives. Kept in the tangent
  // pattern (its entries stay where they were, and so does the sparse factorisation's
  // round-off). The rows with hand-written Hessians take no pass afterwards; here their
  // Hessians are checked against the passes at each state.
  void DetectConstraintCurvature(Structure& out) const {
    const JacobianCompression& c = out.phi_q;
    const int groups = c.num_groups();
    std::vector<char> curved(static_cast<size_t>(groups) * groups, 0);
    out.moving_rate_group.assign(groups, 0);
    out.moving_at_rest_group.assign(groups, 0);
    Workspace w(n(), m());
    RandomStates random;
    std::vector<double> q_values(n()), v_values(n());
    const Eigen::Map<const Vector> q(q_values.data(), n()), v(v_values.data(), n());
    const Vector at_rest = Vector::Zero(n());
    // The hand-written Hessians (HasRowHessians) against these passes, at each state.
    Matrix by_duals, by_hand;
    std::vector<double> lambda(m());
    if (out.any_hand_rows) by_duals.resize(n(), n()), by_hand.resize(n(), n());
    for (int trial = 0; trial < 3 && m() > 0; ++trial) {
      random.Fill(q_values);
      random.Fill(v_values);
      random.Fill(lambda);
      const double t = 0.1 + 0.8 * random.Uniform();
      if (out.any_hand_rows) by_duals.setZero(), by_hand.setZero();
      for (int a = 0; a < groups; ++a) {
        for (int b = a; b < groups; ++b) {
          SeedGroupPair(w, c, q, a, b);
          eq_.Constraints(D2(t), w.q2.data(), w.out2.data());
          for (int r = 0; r < m(); ++r) {
            const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
            if (i < 0 || j < 0) continue;
            if (!out.hand_rows[r]) {
              if (!(w.out2[r].d.d == 0.0)) curved[static_cast<size_t>(a) * groups + b] = 1;
              continue;
            }
            by_duals(i, j) += lambda[r] * w.out2[r].d.d;
            if (a != b) by_duals(j, i) += lambda[r] * w.out2[r].d.d;
          }
        }
        auto mark = [&](std::vector<char>& moving) {
          return [&moving, a](const JacobianCompression::Entry&, double x) {
            if (!(x == 0.0)) moving[a] = 1;
          };
        };
        ForEachPhiQDotEntryOfGroup(w, c, t, q, v, a, mark(out.moving_rate_group));
        ForEachPhiQDotEntryOfGroup(w, c, t, q, at_rest, a, mark(out.moving_at_rest_group));
      }
      if constexpr (HasRowHessians<Equations>::value) {
        if (out.any_hand_rows) {
          eq_.AddRowHessians(q.data(), lambda.data(),
                             [&](int i, int j, double value) { by_hand(i, j) += value; });
          // The same second derivatives in another order of operations: a few roundings of
          // the largest entry; a wrong term would be O(1).
          MBB_INVARIANT((by_hand - by_duals).cwiseAbs().maxCoeff() <=
                            1e-12 * (1.0 + by_duals.cwiseAbs().maxCoeff()),
                        "hand-written constraint Hessians disagree with dual numbers");
        }
      }
    }
    for (int a = 0; a < groups; ++a)
      for (int b = a; b < groups; ++b)
        if (curved[static_cast<size_t>(a) * groups + b]) out.curved_group_pairs.emplace_back(a, b);
  }

  // w.f = applied + velocity forces at (t, q, v), in doubles.
  void CalcNonPotentialForces(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v) const {
    std::fill(w.f.begin(), w.f.end(), 0.0);
    eq_.AppliedForces(t, q.data(), v.data(), w.f.data());
    eq_.VelocityForces(q.data(), v.data(), w.f.data());
  }

  // dq += d(applied)/dq, dv += d(applied)/dv, one pass per column (CalcForceJacobians).
  void AddAppliedForceJacobians(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v,
                                MatrixRef dq, MatrixRef dv) const {
    for (int i = 0; i < n(); ++i) {
      w.q1[i] = D1(q[i]);
      w.v1[i] = D1(v[i]);
    }
    for (int j = 0; j < n(); ++j) {
      w.q1[j].d = 1.0;
      AccumulateAppliedForces(w, t);
      w.q1[j].d = 0.0;
      for (int i = 0; i < n(); ++i) dq(i, j) += w.out1[i].d;
      w.v1[j].d = 1.0;
      AccumulateAppliedForces(w, t);
      w.v1[j].d = 0.0;
      for (int i = 0; i < n(); ++i) dv(i, j) += w.out1[i].d;
    }
  }

  // w.out1 = applied forces at the dual point (w.q1, w.v1).
  void AccumulateAppliedForces(Workspace& w, double t) const {
    std::fill(w.out1.begin(), w.out1.begin() + n(), D1(0.0));
    eq_.AppliedForces(D1(t), w.q1.data(), w.v1.data(), w.out1.data());
  }

  // Forces at the dual point (w.q1, w.v1) into w.out1 (n, zeroed first).
  auto VelocityForcesOf(Workspace& w) const {
    return [this, &w] {
      std::fill(w.out1.begin(), w.out1.begin() + n(), D1(0.0));
      eq_.VelocityForces(w.q1.data(), w.v1.data(), w.out1.data());
    };
  }
  auto AppliedForcesOf(Workspace& w, double t) const {
    return [this, &w, t] { AccumulateAppliedForces(w, t); };
  }

  // The derivative of `forces` with respect to `seeded` (w.q1 or w.v1) at (q, v), one pass
  // per column group of its pattern `c`: take(entry, k, value) for the k-th entry of c.
  template <class Forces, class Take>
  void ForEachForceDerivative(Workspace& w, ConstVectorRef q, ConstVectorRef v,
                              const JacobianCompression& c, std::vector<D1>& seeded,
                              Forces&& forces, Take&& take) const {
    for (int g = 0; g < c.num_groups(); ++g) {
      for (int i = 0; i < n(); ++i) {
        w.q1[i] = D1(q[i]);
        w.v1[i] = D1(v[i]);
      }
      for (int i = 0; i < n(); ++i)
        if (c.group_of_column(i) == g) seeded[i].d = 1.0;
      forces();
      for (auto e = c.begin(g); e != c.end(g); ++e)
        take(*e, static_cast<int>(e - c.entries().data()), w.out1[e->row].d);
    }
  }

  // Where the values of the hand-written Phi_q (HasHandConstraintDerivatives) go among
  // phi_q's entries, and a check of the hand-written Phi_q, d/dt Phi_q, gamma and Phi_t
  // against dual numbers at three pseudo-random states (the same derivatives in another
  // order of operations agree to a few roundings of the largest entry; a wrong term would
  // be O(1)) and of d gamma / dq against central differences of gamma (no dual of third
  // order here). Once per model, so cost is no concern.
  void DetectHandDerivatives(Structure& out) const {
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      const JacobianCompression& c = out.phi_q;
      Workspace w(n(), m());
      RandomStates random;
      std::vector<double> q_values(n()), v_values(n());
      const Eigen::Map<const Vector> q(q_values.data(), n()), v(v_values.data(), n());
      Matrix by_hand(m(), n()), by_duals(m(), n());
      Vector gamma_by_hand(m()), gamma_by_duals(m());
      auto agree = [](const auto& hand, const auto& duals) {
        return (hand - duals).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + duals.cwiseAbs().maxCoeff());
      };
      for (int trial = 0; trial < 3 && m() > 0; ++trial) {
        random.Fill(q_values);
        random.Fill(v_values);
        const double t = 0.1 + 0.8 * random.Uniform();
        by_hand.setZero();
        eq_.VisitRowDerivatives(RowDerivative::kJacobian, q.data(), nullptr,
                                [&](int row, int col, double value) {
                                  by_hand(row, col) += value;
                                  if (trial == 0)
                                    out.hand_jacobian_slot.push_back(EntryOf(c, row, col));
                                });
        by_duals.setZero();
        ForEachPhiQEntryByDuals(
            w, c, t, q, [&](const auto& e, double value) { by_duals(e.row, e.col) = value; });
        MBB_INVARIANT(agree(by_hand, by_duals),
                      "hand-written constraint Jacobian disagrees with dual numbers");
        by_hand.setZero();
        VisitHand(out, RowDerivative::kRate, q, v.data(), by_hand);
        by_duals.setZero();
        for (int g = 0; g < c.num_groups(); ++g)
          ForEachPhiQDotEntryOfGroup(w, c, t, q, v, g, [&](const auto& e, double value) {
            by_duals(e.row, e.col) = value;
          });
        MBB_INVARIANT(agree(by_hand, by_duals),
                      "hand-written d/dt Phi_q disagrees with dual numbers");
        // d gamma / dq against central differences of the hand-written gamma, whose error
        // (step^2 times third derivatives, ~1e-11 of the scale) is far below 1e-7.
        by_hand.setZero();
        VisitHand(out, RowDerivative::kGammaJacobian, q, v.data(), by_hand);
        for (int col = 0; col < n(); ++col) {
          const double step =
              std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(q[col]));
          std::vector<double> shifted = q_values;
          shifted[col] = q_values[col] + step;
          eq_.ConstraintGamma(t, shifted.data(), v.data(), gamma_by_hand.data());
          by_duals.col(col) = gamma_by_hand;
          shifted[col] = q_values[col] - step;
          eq_.ConstraintGamma(t, shifted.data(), v.data(), gamma_by_hand.data());
          by_duals.col(col) = (by_duals.col(col) - gamma_by_hand) / (2.0 * step);
        }
        MBB_INVARIANT((by_hand - by_duals).cwiseAbs().maxCoeff() <=
                          1e-7 * (1.0 + by_duals.cwiseAbs().maxCoeff()),
                      "hand-written d gamma / dq disagrees with differences of gamma");
        eq_.ConstraintGamma(t, q.data(), v.data(), gamma_by_hand.data());
        GammaByDuals(w, t, q, v, gamma_by_duals);
        MBB_INVARIANT(agree(gamma_by_hand, gamma_by_duals),
                      "hand-written gamma disagrees with dual numbers");
        eq_.ConstraintTimeRate(t, gamma_by_hand.data());
        PhiTByDuals(w, t, q, gamma_by_duals);
        MBB_INVARIANT(agree(gamma_by_hand, gamma_by_duals),
                      "hand-written Phi_t disagrees with dual numbers");
      }
    }
  }

  // The hand-written derivatives `what` at (q, v) added into a dense m x n matrix, checking
  // that they visit the entries the Jacobian's visit recorded (DetectHandDerivatives).
  void VisitHand(const Structure& structure, RowDerivative what, ConstVectorRef q, const double* v,
                 Matrix& out) const {
    const std::vector<int>& slot = structure.hand_jacobian_slot;
    size_t k = 0;
    eq_.VisitRowDerivatives(what, q.data(), v, [&](int row, int col, double value) {
      MBB_INVARIANT(k < slot.size() && EntryOf(structure.phi_q, row, col) == slot[k++],
                    "hand-written row derivatives visit different entries");
      out(row, col) += value;
    });
  }

  // The index of entry (row, col) in c's entries, or -1 if it is not one of them.
  static int EntryOf(const JacobianCompression& c, int row, int col) {
    const int g = c.group_of_column(col);
    for (auto e = c.begin(g); e != c.end(g); ++e)
      if (e->row == row && e->col == col) return static_cast<int>(e - c.entries().data());
    return -1;
  }

  // Pseudo-random states for the structure detection (the union over three of them is the
  // structural pattern: a structural non-zero vanishing at all three has probability 0).
  struct RandomStates {
    unsigned long long state = 0x9E3779B97F4A7C15ull;
    double Uniform() {  // Knuth's MMIX linear congruential generator
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<double>(state >> 11) * 0x1.0p-53;
    }
    void Fill(std::vector<double>& x) {
      for (double& e : x) e = 0.2 + 0.6 * Uniform();
    }
  };

  // The coordinates V depends on (gradient_columns) and the rows of its Hessian that are
  // not identically zero (hessian_columns), from three pseudo-random states: row i of the
  // Hessian H is zero iff (H w)_i = 0 for a random w (with probability 1), so n second-order
  // passes find it instead of n (n + 1) / 2. Uniform gravity is linear in q: no Hessian
  // pass at all, the largest cost of a Newmark step on a long chain before (n_four_bar).
  // A column whose Hessian row is zero and whose dV/dq_i came out bit for bit the same at the
  // three states (different q and t) has that dV/dq_i everywhere: it is stored, and the
  // force evaluation needs no pass for it.
  void DetectPotentialStructure(Structure& out) const {
    const int cols = n();
    std::vector<char> depends(cols, 0), curved(cols, 0), changes(cols, 0);
    std::vector<double> gradient(cols, 0.0);
    Workspace w(cols, m());
    RandomStates random;
    std::vector<double> q(cols), direction(cols);
    for (int trial = 0; trial < 3; ++trial) {
      random.Fill(q);
      random.Fill(direction);
      const double t = 0.1 + 0.8 * random.Uniform();
      for (int i = 0; i < cols; ++i) {
        for (int k = 0; k < cols; ++k)
          w.q2[k] = D2(D1(q[k], k == i ? 1.0 : 0.0), D1(direction[k], 0.0));
        const D2 value = eq_.Potential(D2(t), w.q2.data());
        if (!(value.v.d == 0.0)) depends[i] = 1;
        if (!(value.d.d == 0.0)) curved[i] = depends[i] = 1;
        if (trial == 0) gradient[i] = value.v.d;
        if (!(value.v.d == gradient[i])) changes[i] = 1;  // a NaN changes too
      }
    }
    for (int i = 0; i < cols; ++i) {
      if (depends[i]) out.gradient_columns.push_back(i);
      if (curved[i]) out.hessian_columns.push_back(i);
      if (depends[i] && !curved[i] && !changes[i]) {
        out.constant_gradient_columns.push_back(i);
        out.constant_gradient.push_back(gradient[i]);
      } else if (depends[i]) {
        out.varying_gradient_columns.push_back(i);
      }
    }
  }

  // Column compressions of d(M a)/dq (random a) and of the velocity and applied forces'
  // Jacobians with respect to q and v, found like Phi_q's pattern (the applied forces at a
  // random time as well; the mass matrix and the velocity forces do not depend on it).
  void DetectMassAndForcePatterns(Structure& out) const {
    const int cols = n();
    std::vector<char> mass_rate(static_cast<size_t>(cols) * cols, 0);
    std::vector<char> force_q(mass_rate.size(), 0), force_v(mass_rate.size(), 0);
    std::vector<char> applied_q(mass_rate.size(), 0), applied_v(mass_rate.size(), 0);
    Workspace w(cols, m());
    RandomStates random;
    std::vector<double> q(cols), v(cols), a(cols);
    auto at = [cols](int r, int c) { return r + static_cast<size_t>(c) * cols; };
    auto mark = [&](std::vector<char>& pattern, int j) {
      for (int r = 0; r < cols; ++r)
        if (!(w.out1[r].d == 0.0)) pattern[at(r, j)] = 1;
    };
    for (int trial = 0; trial < 3; ++trial) {
      random.Fill(q);
      random.Fill(v);
      random.Fill(a);
      const double t = 0.1 + 0.8 * random.Uniform();
      for (int j = 0; j < cols; ++j) {
        for (int i = 0; i < cols; ++i) {
          w.q1[i] = Seed(q[i], i == j);
          w.v1[i] = D1(v[i]);
        }
        AccumulateAppliedForces(w, t);
        mark(applied_q, j);
        w.q1[j].d = 0.0;
        w.v1[j].d = 1.0;
        AccumulateAppliedForces(w, t);
        mark(applied_v, j);
      }
      for (int j = 0; j < cols; ++j) {
        for (int i = 0; i < cols; ++i) {
          w.q1[i] = Seed(q[i], i == j);
          w.v1[i] = D1(v[i]);
        }
        if (!Equations::kConstantMass) {
          std::fill(w.mass1.begin(), w.mass1.end(), D1(0.0));
          eq_.MassMatrix(w.q1.data(), w.mass1.data());
          for (int r = 0; r < cols; ++r) {
            double sum = 0.0;
            for (int c = 0; c < cols; ++c) sum += w.mass1[r + c * cols].d * a[c];
            if (!(sum == 0.0)) mass_rate[at(r, j)] = 1;
          }
        }
        std::fill(w.out1.begin(), w.out1.begin() + cols, D1(0.0));
        eq_.VelocityForces(w.q1.data(), w.v1.data(), w.out1.data());
        for (int r = 0; r < cols; ++r)
          if (!(w.out1[r].d == 0.0)) force_q[at(r, j)] = 1;
        w.q1[j].d = 0.0;
        w.v1[j].d = 1.0;
        std::fill(w.out1.begin(), w.out1.begin() + cols, D1(0.0));
        eq_.VelocityForces(w.q1.data(), w.v1.data(), w.out1.data());
        for (int r = 0; r < cols; ++r)
          if (!(w.out1[r].d == 0.0)) force_v[at(r, j)] = 1;
      }
    }
    auto compress = [&](const std::vector<char>& pattern) {
      return JacobianCompression::FromPattern(cols, cols,
                                              [&](int r, int c) { return pattern[at(r, c)] != 0; });
    };
    out.mass_rate = compress(mass_rate);
    out.velocity_force_q = compress(force_q);
    out.velocity_force_v = compress(force_v);
    out.applied_force_q = compress(applied_q);
    out.applied_force_v = compress(applied_v);
  }

  const Structure& Detected() const {
    std::call_once(structure_once_, [this] {
      structure_.phi_q = DetectConstraintJacobianPattern();
      DetectHandDerivatives(structure_);
      structure_.hand_rows.assign(m(), 0);
      if constexpr (HasRowHessians<Equations>::value) structure_.hand_rows = eq_.RowsWithHessians();
      structure_.any_hand_rows =
          std::count(structure_.hand_rows.begin(), structure_.hand_rows.end(), 1) > 0;
      DetectConstraintCurvature(structure_);
      DetectPotentialStructure(structure_);
      DetectMassAndForcePatterns(structure_);
    });
    return structure_;
  }

  // The tangent pattern: the union of every term's structural entries, and where each
  // term's values land in it. Once per DAE, on first use.
  Tangent BuildTangent() const {
    const Structure& structure = Detected();
    Tangent out;
    out.pattern = TangentPattern(n());
    auto add = [&](int row, int col) { out.pattern.Add(row, col); };
    if constexpr (Equations::kConstantMass) {
      for (const MassEntry& e : ConstantMassEntries()) add(e.row, e.col);
    } else {
      out.mass_entries = DetectVaryingMassEntries();
      for (const auto& e : out.mass_entries) add(e.row, e.col);
    }
    auto add_all = [&](const JacobianCompression& c) {
      for (const auto& e : c.entries()) add(e.row, e.col);
    };
    add_all(structure.mass_rate);
    add_all(structure.applied_force_q);
    add_all(structure.applied_force_v);
    add_all(structure.velocity_force_q);
    add_all(structure.velocity_force_v);
    const JacobianCompression& c = structure.phi_q;
    for (int a = 0; a < c.num_groups(); ++a)
      for (int b = a; b < c.num_groups(); ++b)
        for (int r = 0; r < m(); ++r) {
          const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
          if (i >= 0 && j >= 0) add(i, j), add(j, i);
        }
    const std::vector<int>& h = structure.hessian_columns;
    for (size_t a = 0; a < h.size(); ++a)
      for (size_t b = a; b < h.size(); ++b) add(h[a], h[b]), add(h[b], h[a]);
    out.pattern.Finish();

    auto slots_of = [&](const JacobianCompression& c) {
      std::vector<int> slots;
      for (const auto& e : c.entries()) slots.push_back(out.pattern.Slot(e.row, e.col));
      return slots;
    };
    if constexpr (Equations::kConstantMass) {
      for (const MassEntry& e : ConstantMassEntries())
        out.mass_slot.push_back(out.pattern.Slot(e.row, e.col));
    } else {
      for (const auto& e : out.mass_entries)
        out.mass_slot.push_back(out.pattern.Slot(e.row, e.col));
    }
    out.mass_rate_slot = slots_of(structure.mass_rate);
    out.applied_q_slot = slots_of(structure.applied_force_q);
    out.applied_v_slot = slots_of(structure.applied_force_v);
    out.velocity_q_slot = slots_of(structure.velocity_force_q);
    out.velocity_v_slot = slots_of(structure.velocity_force_v);
    for (const auto& [a, b] : structure.curved_group_pairs)
      for (int r = 0; r < m(); ++r) {
        const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
        const bool both = i >= 0 && j >= 0 && !structure.hand_rows[r];
        out.reaction_slot.push_back(both ? out.pattern.Slot(i, j) : -1);
        out.reaction_slot.push_back(both ? out.pattern.Slot(j, i) : -1);
      }
    if (structure.any_hand_rows) {  // the entries' order, from one call at any state
      const Vector q = Vector::Zero(n()), lambda = Vector::Zero(m());
      AddHandHessians(q, lambda, [&](int i, int j, double) {
        const int slot = out.pattern.Slot(i, j);
        MBB_INVARIANT(slot >= 0, "BuildTangent: a hand-written Hessian entry outside the pattern");
        out.hand_slot.push_back(slot);
      });
    }
    for (size_t a = 0; a < h.size(); ++a)
      for (size_t b = a; b < h.size(); ++b) {
        out.hessian_slot.push_back(out.pattern.Slot(h[a], h[b]));
        out.hessian_slot.push_back(out.pattern.Slot(h[b], h[a]));
      }
    return out;
  }

  // The structural non-zeros of a mass matrix that depends on q: the union over three
  // pseudo-random states (as for Phi_q's pattern).
  std::vector<JacobianCompression::Entry> DetectVaryingMassEntries() const {
    const int cols = n();
    std::vector<char> nonzero(static_cast<size_t>(cols) * cols, 0);
    std::vector<double> q(cols), mass(nonzero.size());
    RandomStates random;
    for (int trial = 0; trial < 3; ++trial) {
      random.Fill(q);
      std::fill(mass.begin(), mass.end(), 0.0);
      eq_.MassMatrix(q.data(), mass.data());
      for (size_t k = 0; k < mass.size(); ++k)
        if (!(mass[k] == 0.0)) nonzero[k] = 1;
    }
    std::vector<JacobianCompression::Entry> entries;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < cols; ++i)
        if (nonzero[i + static_cast<size_t>(j) * cols]) entries.push_back({i, j});
    return entries;
  }

  const Tangent& Tangents() const {
    std::call_once(tangent_once_, [this] { tangent_ = BuildTangent(); });
    return tangent_;
  }

  struct MassEntry {
    int row, col;
    double value;
  };
  // The non-zeros of a constant mass matrix, found on first use (once per DAE).
  const std::vector<MassEntry>& ConstantMassEntries() const {
    std::call_once(mass_entries_once_, [this] {
      std::vector<double> mass(static_cast<size_t>(n()) * n(), 0.0);
      const std::vector<double> q(n(), 0.0);  // constant: any q
      eq_.MassMatrix(q.data(), mass.data());
      for (int j = 0; j < n(); ++j)
        for (int i = 0; i < n(); ++i)
          if (mass[i + static_cast<size_t>(j) * n()] != 0.0)
            mass_entries_.push_back({i, j, mass[i + static_cast<size_t>(j) * n()]});
    });
    return mass_entries_;
  }

  Equations eq_;
  mutable std::once_flag mass_entries_once_;
  mutable std::vector<MassEntry> mass_entries_;
  // Found on first use, once per DAE (thread-safe: a Problem is shared by parallel runs).
  // Not in the constructor: the detection costs O(n^2) memory and more, which a model used
  // only for its outputs or energy (the joint-tree formulation's free bodies, N = 1e5)
  // never needs.
  mutable std::once_flag structure_once_;
  mutable Structure structure_;
  mutable std::once_flag tangent_once_;
  mutable Tangent tangent_;
};

template <class Equations>
std::shared_ptr<const MechanicalDae> MakeDae(Equations equations) {
  return std::make_shared<EquationsDae<Equations>>(std::move(equations));
}

}  // namespace mbb
