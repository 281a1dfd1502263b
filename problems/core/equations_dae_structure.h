// The structure EquationsDae's derivatives exploit (equations_dae.h), found once per DAE
// from the equations themselves: which entries of Phi_q, d(M a)/dq and the force Jacobians
// can be non-zero, grouped into columns that share no row (jacobian_compression.h, after
// Curtis, Powell and Reid 1974), which second-order passes of the constraints can give a
// non-zero, which coordinates the potential depends on and curves in, and the pattern of
// the Newton matrix's n x n terms with the slot each term's values land in
// (tangent_pattern.h). Every pattern is the union over three pseudo-random states: a
// structural non-zero that vanishes at all three has probability 0, and a non-finite value
// counts as non-zero. Once per DAE, so cost is no concern.
#pragma once

#include <utility>
#include <vector>

#include "problems/core/equations_dae_passes.h"
#include "problems/core/jacobian_compression.h"
#include "problems/core/tangent_pattern.h"

namespace mbb {

/// What the Detect* functions below find.
struct EquationsStructure {
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

/// What an EquationsDae detected, read without naming its Equations type (the model layer's
/// DAEs are EquationsDae of types private to their formulation), so that a test can assert
/// the structure itself (dynamic_cast from the MechanicalDae).
class DetectedEquationsStructure {
 public:
  virtual const EquationsStructure& detected_structure() const = 0;

 protected:
  ~DetectedEquationsStructure() = default;
};

/// Where each derivative term lands in the Newton matrix's pattern (BuildEquationsTangent):
/// slot tables in the order the passes produce the values.
struct EquationsTangent {
  TangentPattern pattern;
  std::vector<JacobianCompression::Entry> mass_entries;  // a varying M's structural entries
  std::vector<int> mass_slot;       // per constant mass entry or mass_entries entry
  std::vector<int> mass_rate_slot;  // per entry of EquationsStructure::mass_rate
  std::vector<int> reaction_slot;   // per curved group pair and row: slots of (i, j), (j, i)
  std::vector<int> hand_slot;       // per entry of Equations::AddRowHessians
  std::vector<int> hessian_slot;    // per pair of hessian_columns: slots of (i, j), (j, i)
  std::vector<int> applied_q_slot, applied_v_slot, velocity_q_slot, velocity_v_slot;
};

/// A structural non-zero of a constant mass matrix with its value.
struct MassEntry {
  int row, col;
  double value;
};

/// Pseudo-random states for the structure detection: Knuth's MMIX linear congruential
/// generator, coordinates in [0.2, 0.8].
struct RandomStates {
  unsigned long long state = 0x9E3779B97F4A7C15ull;
  double Uniform() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  }
  void Fill(std::vector<double>& x) {
    for (double& e : x) e = 0.2 + 0.6 * Uniform();
  }
};

/// The index of entry (row, col) in c's entries, or -1 if it is not one of them.
int EntryOf(const JacobianCompression& c, int row, int col);

/// The Newton matrix's pattern: the union of every term's structural entries (the mass
/// matrix's `mass_entries` first; a varying one's are kept in the result), and where each
/// term's values land in it. `hand_hessian_entries` is the (i, j) sequence of
/// Equations::AddRowHessians.
EquationsTangent BuildEquationsTangent(
    int n, int m, const EquationsStructure& structure,
    const std::vector<JacobianCompression::Entry>& mass_entries, bool varying_mass,
    const std::vector<std::pair<int, int>>& hand_hessian_entries);

/// The structural non-zeros of Phi_q: the union of the dense AD Jacobians at three
/// pseudo-random states.
template <class Equations>
JacobianCompression DetectConstraintJacobianPattern(const EquationPasses<Equations>& ad) {
  using D1 = typename EquationPasses<Equations>::D1;
  const int rows = ad.m(), cols = ad.n();
  std::vector<char> pattern(static_cast<size_t>(rows) * cols, 0);
  if (rows > 0) {
    EquationsWorkspace<Equations> w(cols, rows);
    RandomStates random;
    std::vector<double> q(cols);
    for (int trial = 0; trial < 3; ++trial) {
      random.Fill(q);
      const double t = 0.1 + 0.8 * random.Uniform();
      for (int j = 0; j < cols; ++j) {
        for (int i = 0; i < cols; ++i) w.q1[i] = Seed(q[i], i == j);
        ad.equations().Constraints(D1(t), w.q1.data(), w.out1.data());
        for (int k = 0; k < rows; ++k)
          if (!(w.out1[k].d == 0.0)) pattern[k + static_cast<size_t>(j) * rows] = 1;
      }
    }
  }
  return JacobianCompression::FromPattern(
      rows, cols, [&](int r, int c) { return pattern[r + static_cast<size_t>(c) * rows] != 0; });
}

/// Which second-order passes of the constraints can give a non-zero (curved_group_pairs,
/// moving_rate_group, moving_at_rest_group): the passes themselves at three pseudo-random
/// states. A skipped pass would have given exact zeros, so the reaction stiffness and
/// d/dt Phi_q are what the full set of passes gives. Kept in the tangent pattern (its
/// entries stay where they were, and so does the sparse factorisation's round-off). The
/// rows with hand-written Hessians (out.hand_rows) take no pass; CheckRowHessians
/// (equations_dae_hand_check.h) checks them at the same states.
template <class Equations>
void DetectConstraintCurvature(const EquationPasses<Equations>& ad, EquationsStructure& out) {
  const JacobianCompression& c = out.phi_q;
  const int n = ad.n(), m = ad.m(), groups = c.num_groups();
  std::vector<char> curved(static_cast<size_t>(groups) * groups, 0);
  out.moving_rate_group.assign(groups, 0);
  out.moving_at_rest_group.assign(groups, 0);
  EquationsWorkspace<Equations> w(n, m);
  RandomStates random;
  std::vector<double> q_values(n), v_values(n), lambda(m);
  const Eigen::Map<const Vector> q(q_values.data(), n), v(v_values.data(), n);
  const Vector at_rest = Vector::Zero(n);
  for (int trial = 0; trial < 3 && m > 0; ++trial) {
    random.Fill(q_values);
    random.Fill(v_values);
    random.Fill(lambda);  // unused here: the states CheckRowHessians draws
    const double t = 0.1 + 0.8 * random.Uniform();
    for (int a = 0; a < groups; ++a) {
      for (int b = a; b < groups; ++b) {
        ad.ConstraintPairPass(w, c, t, q, a, b);
        for (int r = 0; r < m; ++r) {
          const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
          if (i < 0 || j < 0 || out.hand_rows[r]) continue;
          if (!(w.out2[r].d.d == 0.0)) curved[static_cast<size_t>(a) * groups + b] = 1;
        }
      }
      auto mark = [&](std::vector<char>& moving) {
        return [&moving, a](const JacobianCompression::Entry&, double x) {
          if (!(x == 0.0)) moving[a] = 1;
        };
      };
      ad.ForEachPhiQDotEntryOfGroup(w, c, t, q, v, a, mark(out.moving_rate_group));
      ad.ForEachPhiQDotEntryOfGroup(w, c, t, q, at_rest, a, mark(out.moving_at_rest_group));
    }
  }
  for (int a = 0; a < groups; ++a)
    for (int b = a; b < groups; ++b)
      if (curved[static_cast<size_t>(a) * groups + b]) out.curved_group_pairs.emplace_back(a, b);
}

/// The coordinates V depends on (gradient_columns) and the rows of its Hessian that are
/// not identically zero (hessian_columns): row i of the Hessian H is zero iff (H w)_i = 0
/// for a random w (with probability 1), so n second-order passes find it instead of
/// n (n + 1) / 2. Uniform gravity is linear in q: no Hessian pass at all, the largest cost
/// of a Newmark step on a long chain before (n_four_bar). A column whose Hessian row is
/// zero and whose dV/dq_i came out bit for bit the same at the three states (different q
/// and t) has that dV/dq_i everywhere: it is stored, and the force evaluation needs no pass
/// for it.
template <class Equations>
void DetectPotentialStructure(const EquationPasses<Equations>& ad, EquationsStructure& out) {
  using D1 = typename EquationPasses<Equations>::D1;
  using D2 = typename EquationPasses<Equations>::D2;
  const int cols = ad.n();
  std::vector<char> depends(cols, 0), curved(cols, 0), changes(cols, 0);
  std::vector<double> gradient(cols, 0.0);
  EquationsWorkspace<Equations> w(cols, ad.m());
  RandomStates random;
  std::vector<double> q(cols), direction(cols);
  for (int trial = 0; trial < 3; ++trial) {
    random.Fill(q);
    random.Fill(direction);
    const double t = 0.1 + 0.8 * random.Uniform();
    for (int i = 0; i < cols; ++i) {
      for (int k = 0; k < cols; ++k)
        w.q2[k] = D2(D1(q[k], k == i ? 1.0 : 0.0), D1(direction[k], 0.0));
      const D2 value = ad.equations().Potential(D2(t), w.q2.data());
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

/// Column compressions of d(M a)/dq (random a) and of the velocity and applied forces'
/// Jacobians with respect to q and v, found like Phi_q's pattern (the applied forces at a
/// random time as well; the mass matrix and the velocity forces do not depend on it).
template <class Equations>
void DetectMassAndForcePatterns(const EquationPasses<Equations>& ad, EquationsStructure& out) {
  using D1 = typename EquationPasses<Equations>::D1;
  const int cols = ad.n();
  const size_t size = static_cast<size_t>(cols) * cols;
  std::vector<char> mass_rate(size, 0), force_q(size, 0), force_v(size, 0);
  std::vector<char> applied_q(size, 0), applied_v(size, 0);
  EquationsWorkspace<Equations> w(cols, ad.m());
  RandomStates random;
  std::vector<double> q(cols), v(cols), a(cols);
  auto at = [cols](int r, int c) { return r + static_cast<size_t>(c) * cols; };
  auto mark = [&](std::vector<char>& pattern, int j) {
    for (int r = 0; r < cols; ++r)
      if (!(w.out1[r].d == 0.0)) pattern[at(r, j)] = 1;
  };
  // The dual point (q + e_j, v) in w.q1, w.v1.
  auto seed_column = [&](int j) {
    for (int i = 0; i < cols; ++i) {
      w.q1[i] = Seed(q[i], i == j);
      w.v1[i] = D1(v[i]);
    }
  };
  for (int trial = 0; trial < 3; ++trial) {
    random.Fill(q);
    random.Fill(v);
    random.Fill(a);
    const double t = 0.1 + 0.8 * random.Uniform();
    for (int j = 0; j < cols; ++j) {
      seed_column(j);
      ad.AccumulateAppliedForces(w, t);
      mark(applied_q, j);
      w.q1[j].d = 0.0;
      w.v1[j].d = 1.0;
      ad.AccumulateAppliedForces(w, t);
      mark(applied_v, j);
    }
    for (int j = 0; j < cols; ++j) {
      seed_column(j);
      if (!Equations::kConstantMass) {
        std::fill(w.mass1.begin(), w.mass1.end(), D1(0.0));
        ad.equations().MassMatrix(w.q1.data(), w.mass1.data());
        for (int r = 0; r < cols; ++r) {
          double sum = 0.0;
          for (int c = 0; c < cols; ++c) sum += w.mass1[r + c * cols].d * a[c];
          if (!(sum == 0.0)) mass_rate[at(r, j)] = 1;
        }
      }
      ad.AccumulateVelocityForces(w);
      mark(force_q, j);
      w.q1[j].d = 0.0;
      w.v1[j].d = 1.0;
      ad.AccumulateVelocityForces(w);
      mark(force_v, j);
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

/// The structural non-zeros of a mass matrix that depends on q: the union over three
/// pseudo-random states.
template <class Equations>
std::vector<JacobianCompression::Entry> DetectVaryingMassEntries(
    const EquationPasses<Equations>& ad) {
  const int cols = ad.n();
  std::vector<char> nonzero(static_cast<size_t>(cols) * cols, 0);
  std::vector<double> q(cols), mass(nonzero.size());
  RandomStates random;
  for (int trial = 0; trial < 3; ++trial) {
    random.Fill(q);
    std::fill(mass.begin(), mass.end(), 0.0);
    ad.equations().MassMatrix(q.data(), mass.data());
    for (size_t k = 0; k < mass.size(); ++k)
      if (!(mass[k] == 0.0)) nonzero[k] = 1;
  }
  std::vector<JacobianCompression::Entry> entries;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < cols; ++i)
      if (nonzero[i + static_cast<size_t>(j) * cols]) entries.push_back({i, j});
  return entries;
}

/// The non-zeros of a constant mass matrix with their values, column by column.
template <class Equations>
std::vector<MassEntry> ConstantMassEntriesOf(const EquationPasses<Equations>& ad) {
  const int n = ad.n();
  std::vector<MassEntry> entries;
  std::vector<double> mass(static_cast<size_t>(n) * n, 0.0);
  const std::vector<double> q(n, 0.0);  // constant: any q
  ad.equations().MassMatrix(q.data(), mass.data());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (mass[i + static_cast<size_t>(j) * n] != 0.0)
        entries.push_back({i, j, mass[i + static_cast<size_t>(j) * n]});
  return entries;
}

}  // namespace mbb
