// The dual-number passes EquationsDae (equations_dae.h) is built from: what an Equations
// type must and may provide (the traits below), the workspace of one EquationsDae, and
// each derivative as forward-mode automatic differentiation (dual.h) over a given
// structure: column groups of a compressed Jacobian (jacobian_compression.h; seeded columns
// share no row, so one pass gives a whole group), or the coordinates a potential curves in.
// Which structure applies is found once per DAE (equations_dae_structure.h); these passes
// neither find nor store it.
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
// and the hand-written derivatives the traits below name. Derive from EquationDefaults to
// inherit "no applied forces, no velocity forces".
#pragma once

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "problems/core/dual.h"
#include "problems/core/jacobian_compression.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/row_derivative.h"

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
/// against dual numbers and differences once per model (equations_dae_hand_check.h).
template <class E, class = void>
struct HasHandConstraintDerivatives : std::false_type {};
template <class E>
struct HasHandConstraintDerivatives<E, std::enable_if_t<E::kHasHandConstraintDerivatives>>
    : std::true_type {};

/// The scratch of one EquationsDae<Equations>. The n x n buffers only for a mass matrix
/// that depends on q (a constant one is read from its stored entries): on a long chain they
/// would be most of a workspace's cost.
template <class Equations>
struct EquationsWorkspace final : DaeWorkspace {
  using D1 = Dual<double>;
  using D2 = Dual<D1>;
  EquationsWorkspace(int n, int m)
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
  std::vector<double> phi_q_values;  // per entry of Phi_q's pattern (hand-written Phi_q)
};

/// The equations and their dual-number passes. Read-only; every buffer is a workspace's.
template <class Equations>
class EquationPasses {
 public:
  using D1 = Dual<double>;
  using D2 = Dual<D1>;
  using Workspace = EquationsWorkspace<Equations>;

  explicit EquationPasses(Equations equations)
      : eq_(std::move(equations)), n_(eq_.num_coordinates()), m_(eq_.num_constraints()) {}

  const Equations& equations() const { return eq_; }
  int n() const { return n_; }
  int m() const { return m_; }

  // Phi_t by dual numbers.
  void PhiT(Workspace& w, double t, ConstVectorRef q, VectorRef phi_t) const {
    for (int i = 0; i < n(); ++i) w.q1[i] = D1(q[i]);
    eq_.Constraints(D1(t, 1.0), w.q1.data(), w.out1.data());
    for (int k = 0; k < m(); ++k) phi_t[k] = w.out1[k].d;
  }

  // gamma by dual numbers: d^2/ds^2 Phi(t + s, q + v s) = (Phi_q v)_q v + 2 Phi_qt v + Phi_tt
  // = -gamma, eq. (2).
  void Gamma(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v, VectorRef gamma) const {
    for (int i = 0; i < n(); ++i) w.q2[i] = D2(D1(q[i], v[i]), D1(v[i], 0.0));
    eq_.Constraints(D2(D1(t, 1.0), D1(1.0, 0.0)), w.q2.data(), w.out2.data());
    for (int k = 0; k < m(); ++k) gamma[k] = -w.out2[k].d.d;
  }

  // The entries of pattern c of Phi_q, take(entry, value), one pass per column group.
  template <class Take>
  void ForEachPhiQEntry(Workspace& w, const JacobianCompression& c, double t, ConstVectorRef q,
                        Take&& take) const {
    for (int g = 0; g < c.num_groups(); ++g) {
      for (int i = 0; i < n(); ++i) w.q1[i] = Seed(q[i], c.group_of_column(i) == g);
      eq_.Constraints(D1(t), w.q1.data(), w.out1.data());
      for (auto e = c.begin(g); e != c.end(g); ++e) take(*e, w.out1[e->row].d);
    }
  }

  // The entries of column group g of d/dt Phi_q along (t + s, q + v s) on Phi_q's pattern
  // c, by one pass: column j is d/ds d/de Phi(t + s, q + v s + e_j e) at s = e = 0. Its
  // pattern lies inside that of Phi_q (a row that does not depend on q_j has no d/dq_j of
  // its rate), so the same column groups apply.
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

  // The second-order seed of the pass for column groups a (inner) and b (outer) of `c`.
  void SeedGroupPair(Workspace& w, const JacobianCompression& c, ConstVectorRef q, int a,
                     int b) const {
    for (int i = 0; i < n(); ++i) {
      const int g = c.group_of_column(i);
      w.q2[i] = D2(D1(q[i], g == a ? 1.0 : 0.0), D1(g == b ? 1.0 : 0.0, 0.0));
    }
  }
  // The pass for column groups a and b of Phi_q's pattern c: w.out2[r].d.d is
  // d^2 Phi_r / dq_i dq_j with i, j the only columns of groups a and b row r depends on.
  void ConstraintPairPass(Workspace& w, const JacobianCompression& c, double t, ConstVectorRef q,
                          int a, int b) const {
    SeedGroupPair(w, c, q, a, b);
    eq_.Constraints(D2(t), w.q2.data(), w.out2.data());
  }

  // d(M a)/dq by the entries of its pattern c: take(entry, k, value) for the k-th entry.
  // One pass per column group (a body's mass block depends only on its own coordinates, so a
  // few groups cover any number of bodies).
  template <class Take>
  void ForEachMassRateEntry(Workspace& w, const JacobianCompression& c, ConstVectorRef q,
                            ConstVectorRef a, Take&& take) const {
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

  // take(pair, i, j, d^2 V / dq_i dq_j) for each pair i <= j of `columns`, pair counting
  // them in order (one second-order pass each).
  template <class Take>
  void ForEachPotentialHessianEntry(Workspace& w, const std::vector<int>& columns, double t,
                                    ConstVectorRef q, Take&& take) const {
    for (int i = 0; i < n(); ++i) w.q2[i] = D2(D1(q[i], 0.0), D1(0.0, 0.0));
    size_t pair = 0;
    for (size_t a = 0; a < columns.size(); ++a) {
      for (size_t b = a; b < columns.size(); ++b, ++pair) {
        const int i = columns[a], j = columns[b];
        w.q2[i].v.d = 1.0;
        w.q2[j].d.v = 1.0;
        const double h = eq_.Potential(D2(t), w.q2.data()).d.d;
        w.q2[i].v.d = 0.0;
        w.q2[j].d.v = 0.0;
        take(pair, i, j, h);
      }
    }
  }

  // The full gradient dV/dq (n), one pass per coordinate (CalcPotential).
  void PotentialGradient(Workspace& w, double t, ConstVectorRef q, VectorRef gradient) const {
    for (int j = 0; j < n(); ++j) {
      for (int i = 0; i < n(); ++i) w.q1[i] = Seed(q[i], i == j);
      gradient[j] = eq_.Potential(D1(t), w.q1.data()).d;
    }
  }

  // w.f = applied + velocity forces at (t, q, v), in doubles.
  void NonPotentialForces(Workspace& w, double t, ConstVectorRef q, ConstVectorRef v) const {
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
  // w.out1 = velocity forces at the dual point (w.q1, w.v1).
  void AccumulateVelocityForces(Workspace& w) const {
    std::fill(w.out1.begin(), w.out1.begin() + n(), D1(0.0));
    eq_.VelocityForces(w.q1.data(), w.v1.data(), w.out1.data());
  }
  // The two as callables for ForEachForceDerivative.
  auto VelocityForcesOf(Workspace& w) const {
    return [this, &w] { AccumulateVelocityForces(w); };
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

 private:
  Equations eq_;
  int n_, m_;
};

}  // namespace mbb
