#include "problems/core/equations_dae_structure.h"

#include "problems/core/invariant.h"

namespace mbb {

int EntryOf(const JacobianCompression& c, int row, int col) {
  const int g = c.group_of_column(col);
  for (auto e = c.begin(g); e != c.end(g); ++e)
    if (e->row == row && e->col == col) return static_cast<int>(e - c.entries().data());
  return -1;
}

namespace {

// The union of every term's structural entries: the mass matrix's first, then d(M a)/dq,
// the force Jacobians, the reaction stiffness (every pair of Phi_q's column groups) and
// the potential's Hessian.
TangentPattern UnionPattern(int n, int m, const EquationsStructure& structure,
                            const std::vector<JacobianCompression::Entry>& mass_entries) {
  TangentPattern pattern(n);
  auto add = [&](int row, int col) { pattern.Add(row, col); };
  for (const auto& e : mass_entries) add(e.row, e.col);
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
      for (int r = 0; r < m; ++r) {
        const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
        if (i >= 0 && j >= 0) add(i, j), add(j, i);
      }
  const std::vector<int>& h = structure.hessian_columns;
  for (size_t a = 0; a < h.size(); ++a)
    for (size_t b = a; b < h.size(); ++b) add(h[a], h[b]), add(h[b], h[a]);
  pattern.Finish();
  return pattern;
}

}  // namespace

EquationsTangent BuildEquationsTangent(
    int n, int m, const EquationsStructure& structure,
    const std::vector<JacobianCompression::Entry>& mass_entries, bool varying_mass,
    const std::vector<std::pair<int, int>>& hand_hessian_entries) {
  EquationsTangent out;
  out.pattern = UnionPattern(n, m, structure, mass_entries);
  if (varying_mass) out.mass_entries = mass_entries;
  auto slots_of = [&](const JacobianCompression& c) {
    std::vector<int> slots;
    for (const auto& e : c.entries()) slots.push_back(out.pattern.Slot(e.row, e.col));
    return slots;
  };
  for (const auto& e : mass_entries) out.mass_slot.push_back(out.pattern.Slot(e.row, e.col));
  out.mass_rate_slot = slots_of(structure.mass_rate);
  out.applied_q_slot = slots_of(structure.applied_force_q);
  out.applied_v_slot = slots_of(structure.applied_force_v);
  out.velocity_q_slot = slots_of(structure.velocity_force_q);
  out.velocity_v_slot = slots_of(structure.velocity_force_v);
  const JacobianCompression& c = structure.phi_q;
  for (const auto& [a, b] : structure.curved_group_pairs)
    for (int r = 0; r < m; ++r) {
      const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
      const bool both = i >= 0 && j >= 0 && !structure.hand_rows[r];
      out.reaction_slot.push_back(both ? out.pattern.Slot(i, j) : -1);
      out.reaction_slot.push_back(both ? out.pattern.Slot(j, i) : -1);
    }
  for (const auto& [i, j] : hand_hessian_entries) {
    const int slot = out.pattern.Slot(i, j);
    MBB_INVARIANT(slot >= 0, "BuildTangent: a hand-written Hessian entry outside the pattern");
    out.hand_slot.push_back(slot);
  }
  const std::vector<int>& h = structure.hessian_columns;
  for (size_t a = 0; a < h.size(); ++a)
    for (size_t b = a; b < h.size(); ++b) {
      out.hessian_slot.push_back(out.pattern.Slot(h[a], h[b]));
      out.hessian_slot.push_back(out.pattern.Slot(h[b], h[a]));
    }
  return out;
}

}  // namespace mbb
