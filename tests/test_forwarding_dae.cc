// tests/forwarding_dae.h forwards the optional parts of a MechanicalDae through its
// Capabilities: over every catalogue problem in every form a choice parameter selects, a
// ForwardingDae reports the capabilities of the DAE it wraps and gives bit for bit the same
// values for every optional function those capabilities name (the same calls on the same
// DAE, so no tolerance). Each capability is held by some catalogue problem, so a function
// the wrapper dropped would abort here (MechanicalDae's default) or differ.
#include <catch2/catch.hpp>

#include <array>
#include <tuple>
#include <utility>
#include <vector>

#include "problems/core/problem.h"
#include "tests/forwarding_dae.h"
#include "tests/problem_variants.h"

namespace mbb {
namespace {

using Values = std::vector<double>;

constexpr size_t kNumFlags = std::tuple_size<MechanicalDae::Capabilities::FlagTuple>::value;

template <size_t... I>
std::array<bool, kNumFlags> FlagArrayOf(const MechanicalDae::Capabilities::FlagTuple& t,
                                        std::index_sequence<I...>) {
  return {std::get<I>(t)...};
}
// Capabilities::Flags() as an array, to loop over.
std::array<bool, kNumFlags> FlagArray(const MechanicalDae::Capabilities& c) {
  return FlagArrayOf(c.Flags(), std::make_index_sequence<kNumFlags>());
}

// The values of every optional function `dae` has, at one state, in a fixed order.
Values OptionalValues(const MechanicalDae& dae, double t, const Vector& q, const Vector& v,
                      const Vector& a, const Vector& lambda) {
  const MechanicalDae::Capabilities c = dae.capabilities();
  const int n = dae.num_coordinates(), m = dae.num_constraints();
  auto ws = dae.MakeWorkspace();
  Values out;
  auto append = [&out](const double* x, size_t size) { out.insert(out.end(), x, x + size); };
  if (c.constraint_pattern) {
    for (const auto& e : dae.constraint_jacobian_pattern().entries()) {
      out.push_back(e.row);
      out.push_back(e.col);
    }
  }
  const size_t phi_q_entries =
      c.constraint_pattern ? dae.constraint_jacobian_pattern().num_entries() : 0;
  Values entries(phi_q_entries);
  if (c.phi_q_entries) {
    dae.CalcPhiQEntries(*ws, t, q, entries.data());
    append(entries.data(), entries.size());
    dae.CalcPhiQDotEntries(*ws, t, q, v, entries.data());
    append(entries.data(), entries.size());
  }
  if (c.gamma_jacobian) {
    Matrix gamma_q(m, n);
    dae.CalcGammaJacobian(*ws, t, q, v, gamma_q);
    append(gamma_q.data(), gamma_q.size());
  }
  if (c.gamma_jacobian_entries) {
    dae.CalcGammaJacobianEntries(*ws, t, q, v, entries.data());
    append(entries.data(), entries.size());
  }
  if (c.tangent_entries) {
    const TangentPattern& pattern = dae.tangent_pattern();
    for (const auto& e : pattern.entries()) {
      out.push_back(e.row);
      out.push_back(e.col);
    }
    Values mass(pattern.num_entries()), stiffness(mass.size()), damping(mass.size());
    dae.CalcMassMatrixEntries(*ws, q, mass.data());
    dae.CalcTangentStiffnessEntries(*ws, t, q, v, a, lambda, stiffness.data(), damping.data());
    append(mass.data(), mass.size());
    append(stiffness.data(), stiffness.size());
    append(damping.data(), damping.size());
  }
  if (c.momenta) {
    Eigen::Vector3d linear, angular;
    dae.CalcMomenta(*ws, q, v, linear, angular);
    append(linear.data(), 3);
    append(angular.data(), 3);
  }
  if (c.potential) {
    double potential = 0.0;
    Vector gradient(n);
    dae.CalcPotential(*ws, t, q, potential, gradient);
    out.push_back(potential);
    append(gradient.data(), gradient.size());
  }
  return out;
}

}  // namespace

TEST_CASE("a ForwardingDae has the capabilities and optional values of the DAE it wraps",
          "[forwarding]") {
  std::array<bool, kNumFlags> seen{};  // the union over the catalogue
  for (const auto& [id, params] : AllProblemVariants()) {
    const Problem p = BuildProblem(id, params);
    INFO(id << " " << params.values().size() << " parameters");
    const ForwardingDae forwarding(p.dae);
    const MechanicalDae::Capabilities c = p.dae->capabilities();
    CHECK(forwarding.capabilities() == c);
    const int n = p.n(), m = p.m();
    const Vector q = p.q0 + 0.1 * Vector::LinSpaced(n, 0.3, -0.7);
    const Vector v = p.v0 + Vector::LinSpaced(n, 0.5, -1.1);
    const Vector a = Vector::LinSpaced(n, -0.8, 1.7);
    const Vector lambda = Vector::LinSpaced(m, 1.3, -0.4);
    const double t = 0.3;
    const Values inner = OptionalValues(*p.dae, t, q, v, a, lambda);
    const Values forwarded = OptionalValues(forwarding, t, q, v, a, lambda);
    REQUIRE(forwarded.size() == inner.size());
    // Bit for bit, NaN included: the same calls on the same DAE.
    size_t first_difference = inner.size();
    for (size_t k = 0; k < inner.size() && first_difference == inner.size(); ++k)
      if (!(forwarded[k] == inner[k] || (forwarded[k] != forwarded[k] && inner[k] != inner[k])))
        first_difference = k;
    INFO("first different value: " << first_difference << " of " << inner.size());
    CHECK(first_difference == inner.size());
    const auto flags = FlagArray(c);
    for (size_t k = 0; k < flags.size(); ++k) seen[k] = seen[k] || flags[k];
  }
  // Every capability is held by some problem: the comparison above covers each.
  for (size_t k = 0; k < seen.size(); ++k) {
    INFO("flag " << k << " of Capabilities::Flags()");
    CHECK(seen[k]);
  }
}

}  // namespace mbb
