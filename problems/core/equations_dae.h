// Turns one templated set of equations into a MechanicalDae, deriving every derivative by
// forward-mode automatic differentiation (dual.h). This is the "one source of truth per
// problem" of docs/design.md: a problem writes Phi, M, V and its forces once (what an
// Equations type provides: equations_dae_passes.h).
//
// Three parts, one file each: the dual-number passes (equations_dae_passes.h); the
// structure they exploit, found once per DAE on first use (equations_dae_structure.h: the
// compressed patterns of Phi_q, d(M a)/dq and the force Jacobians, the curved pairs of
// constraint passes, the potential's coordinates, the Newton matrix's pattern); and the
// check of hand-written derivatives against dual numbers (equations_dae_hand_check.h). This
// file holds the MechanicalDae itself: each Calc* evaluates by those passes over the
// detected structure, including the Newton matrix's entries (CalcMassMatrixEntries,
// CalcTangentStiffnessEntries).
#pragma once

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "problems/core/equations_dae_hand_check.h"
#include "problems/core/equations_dae_passes.h"
#include "problems/core/equations_dae_structure.h"
#include "problems/core/invariant.h"
#include "problems/core/mechanical_dae.h"

namespace mbb {

template <class Equations>
class EquationsDae final : public MechanicalDae, public DetectedEquationsStructure {
  using D1 = Dual<double>;
  using D2 = Dual<D1>;
  using Workspace = EquationsWorkspace<Equations>;
  using Structure = EquationsStructure;
  using Tangent = EquationsTangent;

 public:
  explicit EquationsDae(Equations equations)
      : MechanicalDae(equations.num_coordinates(), equations.num_constraints()),
        ad_(std::move(equations)) {}

  /// Dual passes per Phi_q (and per d/dt Phi_q): the column groups of the compression.
  int constraint_jacobian_passes() const { return Detected().phi_q.num_groups(); }
  const JacobianCompression& constraint_jacobian_pattern() const override {
    return Detected().phi_q;
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

  const Equations& equations() const { return ad_.equations(); }
  const EquationsStructure& detected_structure() const override { return Detected(); }

  std::unique_ptr<DaeWorkspace> MakeWorkspace() const override {
    auto w = std::make_unique<Workspace>(n(), m());
    if constexpr (HasHandConstraintDerivatives<Equations>::value)
      w->phi_q_values.assign(Detected().phi_q.num_entries(), 0.0);
    return w;
  }

  // A hand-written Jacobian (Andrews' squeezer, 7 x 7) comes dense, without entries; its
  // models are small.
  Capabilities capabilities() const override {
    constexpr bool hand = HasHandConstraintDerivatives<Equations>::value;
    Capabilities c;
    c.constant_mass_matrix = Equations::kConstantMass;
    c.constraint_pattern = true;
    c.phi_q_entries = !HasConstraintJacobian<Equations>::value;
    c.gamma_jacobian = hand;
    c.gamma_jacobian_entries = hand;
    c.tangent_entries = true;
    c.momenta = HasMomenta<Equations>::value;
    c.potential = true;
    return c;
  }

  void CalcPhi(DaeWorkspace& base, double t, ConstVectorRef q, VectorRef phi) const override {
    Cast(base);
    MBB_INVARIANT(q.size() == n() && phi.size() == m(), "CalcPhi: q (n), phi (m)");
    if (m() > 0) eq().Constraints(t, q.data(), phi.data());
  }

  void CalcPhiQ(DaeWorkspace& base, double t, ConstVectorRef q, MatrixRef phi_q) const override {
    MBB_INVARIANT(q.size() == n() && phi_q.rows() == m() && phi_q.cols() == n(),
                  "CalcPhiQ: q (n), phi_q (m x n)");
    if constexpr (HasConstraintJacobian<Equations>::value) {
      eq().ConstraintJacobian(t, q.data(), phi_q);
      return;
    }
    phi_q.setZero();
    ForEachPhiQEntry(Cast(base), t, q, [&](const JacobianCompression::Entry& e, double value) {
      phi_q(e.row, e.col) = value;
    });
  }

  void CalcPhiQEntries(DaeWorkspace& base, double t, ConstVectorRef q,
                       double* values) const override {
    MBB_INVARIANT(q.size() == n() && !HasConstraintJacobian<Equations>::value,
                  "CalcPhiQEntries: q (n)");
    ForEachPhiQEntry(Cast(base), t, q,
                     [&](const JacobianCompression::Entry&, double value) { *values++ = value; });
  }

  void CalcPhiT(DaeWorkspace& base, double t, ConstVectorRef q, VectorRef phi_t) const override {
    MBB_INVARIANT(q.size() == n() && phi_t.size() == m(), "CalcPhiT: q (n), phi_t (m)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      eq().ConstraintTimeRate(t, phi_t.data());
      return;
    }
    ad_.PhiT(Cast(base), t, q, phi_t);
  }

  void CalcVelocityResidual(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                            VectorRef out) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && out.size() == m(),
                  "CalcVelocityResidual: q, v (n), out (m)");
    // d/ds Phi(t + s, q + v s) = Phi_q v + Phi_t.
    auto& w = Cast(base);
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i], v[i]);
    eq().Constraints(D1(t, 1.0), w.q1.data(), w.out1.data());
    for (int k = 0; k < m(); ++k) out[k] = w.out1[k].d;
  }

  void CalcGamma(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                 VectorRef gamma) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && gamma.size() == m(),
                  "CalcGamma: q, v (n), gamma (m)");
    if constexpr (HasConstraintGamma<Equations>::value) {
      eq().ConstraintGamma(t, q.data(), v.data(), gamma.data());
      return;
    }
    ad_.Gamma(Cast(base), t, q, v, gamma);
  }

  void CalcGammaJacobian(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                         MatrixRef out) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && out.rows() == m() && out.cols() == n(),
                  "CalcGammaJacobian: q, v (n), out (m x n)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      out.setZero();
      ForEachHandEntry(
          Cast(base), q, v.data(), RowDerivative::kGammaJacobian,
          [&](const JacobianCompression::Entry& e, double value) { out(e.row, e.col) = value; });
    } else {
      MechanicalDae::CalcGammaJacobian(base, t, q, v, out);  // not a capability: aborts
    }
  }

  void CalcGammaJacobianEntries(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                                double* values) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n(), "CalcGammaJacobianEntries: q, v (n)");
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      ForEachHandEntry(Cast(base), q, v.data(), RowDerivative::kGammaJacobian,
                       [&](const JacobianCompression::Entry&, double value) { *values++ = value; });
    } else {
      MechanicalDae::CalcGammaJacobianEntries(base, t, q, v, values);  // aborts
    }
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
    MBB_INVARIANT(q.size() == n() && v.size() == n() && !HasConstraintJacobian<Equations>::value,
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
      ad_.ConstraintPairPass(w, c, t, q, a, b);
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
      eq().MassMatrix(q.data(), w.mass.data());
      for (int j = 0; j < n(); ++j)
        for (int i = 0; i < n(); ++i) mass(i, j) = w.mass[i + j * n()];
    }
  }

  void CalcForces(DaeWorkspace& base, double t, ConstVectorRef q, ConstVectorRef v,
                  VectorRef forces) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n() && forces.size() == n(),
                  "CalcForces: q, v, forces (n)");
    auto& w = Cast(base);
    ad_.NonPotentialForces(w, t, q, v);
    for (int j = 0; j < n(); ++j) forces[j] = w.f[j];
    // -dV/dq: the constant part stored, one pass per other coordinate V depends on
    // (DetectPotentialStructure; a pass per coordinate made a chain's forces O(n^2)).
    const Structure& structure = Detected();
    for (size_t k = 0; k < structure.constant_gradient_columns.size(); ++k)
      forces[structure.constant_gradient_columns[k]] -= structure.constant_gradient[k];
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i]);
    for (int j : structure.varying_gradient_columns) {
      w.q1[j].d = 1.0;
      forces[j] -= eq().Potential(D1(t), w.q1.data()).d;
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
    ad_.ForEachPotentialHessianEntry(w, Detected().hessian_columns, t, q,
                                     [&](size_t, int i, int j, double h) {
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
      ad_.AddAppliedForceJacobians(w, t, q, v, dq, dv);
    // Velocity (gyroscopic) forces: time-independent, so compressed like Phi_q, one pass
    // per column group of their q and v patterns.
    ad_.ForEachForceDerivative(
        w, q, v, structure.velocity_force_q, w.q1, ad_.VelocityForcesOf(w),
        [&](const JacobianCompression::Entry& e, int, double value) { dq(e.row, e.col) += value; });
    ad_.ForEachForceDerivative(
        w, q, v, structure.velocity_force_v, w.v1, ad_.VelocityForcesOf(w),
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
    ad_.ForEachMassRateEntry(
        Cast(base), Detected().mass_rate, q, a,
        [&](const JacobianCompression::Entry& e, int, double value) { out(e.row, e.col) = value; });
  }

  const TangentPattern& tangent_pattern() const override { return Tangents().pattern; }

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
      eq().MassMatrix(q.data(), w.mass.data());
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
      ad_.ForEachMassRateEntry(w, structure.mass_rate, q, a,
                               [&](const JacobianCompression::Entry&, int k, double value) {
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
      ad_.ConstraintPairPass(w, c, t, q, pair_a, pair_b);
      for (int r = 0; r < m(); ++r, slot += 2) {
        if (slot[0] < 0) continue;
        const double contribution = lambda[r] * w.out2[r].d.d;
        stiffness[slot[0]] += contribution;
        if (pair_a != pair_b) stiffness[slot[1]] += contribution;
      }
    }
    // -dQ/dq of the potential: its Hessian, pair by pair of the coordinates it curves in.
    ad_.ForEachPotentialHessianEntry(w, Detected().hessian_columns, t, q,
                                     [&](size_t pair, int i, int j, double h) {
                                       stiffness[tangent.hessian_slot[2 * pair]] += h;
                                       if (i != j)
                                         stiffness[tangent.hessian_slot[2 * pair + 1]] += h;
                                     });
    // -dQ/dq and -dQ/dv of the applied and velocity forces, by their column groups.
    auto subtract_into = [&](double* values, const std::vector<int>& slots) {
      return [values, &slots](const JacobianCompression::Entry&, int k, double value) {
        values[slots[k]] -= value;
      };
    };
    ad_.ForEachForceDerivative(w, q, v, structure.applied_force_q, w.q1, ad_.AppliedForcesOf(w, t),
                               subtract_into(stiffness, tangent.applied_q_slot));
    ad_.ForEachForceDerivative(w, q, v, structure.applied_force_v, w.v1, ad_.AppliedForcesOf(w, t),
                               subtract_into(damping, tangent.applied_v_slot));
    ad_.ForEachForceDerivative(w, q, v, structure.velocity_force_q, w.q1, ad_.VelocityForcesOf(w),
                               subtract_into(stiffness, tangent.velocity_q_slot));
    ad_.ForEachForceDerivative(w, q, v, structure.velocity_force_v, w.v1, ad_.VelocityForcesOf(w),
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
      eq().MassMatrix(q.data(), w.mass.data());
      for (int j = 0; j < n(); ++j)
        for (int i = 0; i < n(); ++i) kinetic += v[i] * w.mass[i + j * n()] * v[j];
    }
    return 0.5 * kinetic + eq().Potential(t, q.data());
  }

  void CalcMomenta(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Eigen::Vector3d& linear,
                   Eigen::Vector3d& angular) const override {
    if constexpr (HasMomenta<Equations>::value) {
      eq().Momenta(q.data(), v.data(), linear, angular);
    } else {
      MechanicalDae::CalcMomenta(ws, q, v, linear, angular);  // not a capability: aborts
    }
  }

  void CalcPotential(DaeWorkspace& base, double t, ConstVectorRef q, double& potential,
                     VectorRef gradient) const override {
    MBB_INVARIANT(q.size() == n() && gradient.size() == n(), "CalcPotential: q, gradient (n)");
    ad_.PotentialGradient(Cast(base), t, q, gradient);
    potential = eq().Potential(t, q.data());
  }

  double CalcAppliedPower(DaeWorkspace& base, double t, ConstVectorRef q,
                          ConstVectorRef v) const override {
    MBB_INVARIANT(q.size() == n() && v.size() == n(), "CalcAppliedPower: q, v (n)");
    auto& w = Cast(base);
    std::fill(w.f.begin(), w.f.end(), 0.0);
    eq().AppliedForces(t, q.data(), v.data(), w.f.data());
    double power = 0.0;
    for (int i = 0; i < n(); ++i) power += w.f[i] * v[i];
    return power;
  }

 private:
  int n() const { return num_coordinates(); }
  int m() const { return num_constraints(); }
  const Equations& eq() const { return ad_.equations(); }

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
    eq().VisitRowDerivatives(what, q.data(), v, add);
    const std::vector<JacobianCompression::Entry>& entries = structure.phi_q.entries();
    for (size_t e = 0; e < entries.size(); ++e) take(entries[e], w.phi_q_values[e]);
  }

  // The structural non-zeros of Phi_q handed to take(entry, value) in the pattern's entry
  // order: by hand where Equations has them (HasHandConstraintDerivatives), else by
  // automatic differentiation, one pass per column group.
  template <class Take>
  void ForEachPhiQEntry(Workspace& w, double t, ConstVectorRef q, Take&& take) const {
    if constexpr (HasHandConstraintDerivatives<Equations>::value) {
      ForEachHandEntry(w, q, nullptr, RowDerivative::kJacobian, take);
      return;
    }
    ad_.ForEachPhiQEntry(w, Detected().phi_q, t, q, take);
  }

  // d/dt Phi_q along (t + s, q + v s) by its structural entries, in the order of Phi_q's
  // pattern (EquationPasses::ForEachPhiQDotEntryOfGroup). A group whose entries are
  // identically zero (Structure::moving_rate_group, or moving_at_rest_group at v = 0) takes
  // no pass.
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
      ad_.ForEachPhiQDotEntryOfGroup(w, c, t, q, v, g, take);
    }
  }

  // Equations::AddRowHessians at (q, lambda) where it has rows (HasRowHessians).
  template <class Add>
  void AddHandHessians(ConstVectorRef q, ConstVectorRef lambda, Add&& add) const {
    if constexpr (HasRowHessians<Equations>::value) {
      if (Detected().any_hand_rows) eq().AddRowHessians(q.data(), lambda.data(), add);
    }
  }

  const Structure& Detected() const {
    std::call_once(structure_once_, [this] {
      structure_.phi_q = DetectConstraintJacobianPattern(ad_);
      DetectHandDerivatives(ad_, structure_);
      structure_.hand_rows.assign(m(), 0);
      if constexpr (HasRowHessians<Equations>::value)
        structure_.hand_rows = eq().RowsWithHessians();
      structure_.any_hand_rows =
          std::count(structure_.hand_rows.begin(), structure_.hand_rows.end(), 1) > 0;
      DetectConstraintCurvature(ad_, structure_);
      CheckRowHessians(ad_, structure_);
      DetectPotentialStructure(ad_, structure_);
      DetectMassAndForcePatterns(ad_, structure_);
    });
    return structure_;
  }

  // The Newton matrix's pattern and slots (BuildEquationsTangent), once per DAE on first use.
  const Tangent& Tangents() const {
    std::call_once(tangent_once_, [this] {
      const Structure& structure = Detected();
      std::vector<JacobianCompression::Entry> mass_entries;
      if constexpr (Equations::kConstantMass) {
        for (const MassEntry& e : ConstantMassEntries()) mass_entries.push_back({e.row, e.col});
      } else {
        mass_entries = DetectVaryingMassEntries(ad_);
      }
      std::vector<std::pair<int, int>> hand_entries;  // their order, from one call at any state
      if (structure.any_hand_rows) {
        const Vector q = Vector::Zero(n()), lambda = Vector::Zero(m());
        AddHandHessians(q, lambda, [&](int i, int j, double) { hand_entries.emplace_back(i, j); });
      }
      tangent_ = BuildEquationsTangent(n(), m(), structure, mass_entries, !Equations::kConstantMass,
                                       hand_entries);
    });
    return tangent_;
  }

  // The non-zeros of a constant mass matrix, found on first use (once per DAE).
  const std::vector<MassEntry>& ConstantMassEntries() const {
    std::call_once(mass_entries_once_, [this] { mass_entries_ = ConstantMassEntriesOf(ad_); });
    return mass_entries_;
  }

  EquationPasses<Equations> ad_;
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
