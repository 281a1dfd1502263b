// The analytic references recognise their mechanism from the problem's ModelStructure
// (analytic_pendulum.cc: one body about a ground pivot or a parallelogram chain;
// analytic_gyro_top.cc: a symmetric top in steady precession); published and suite-made
// tabulated references are files under reference/<problem>/ (harness/reference_maker.h).
#include "reference/reference.h"

#include <limits>

namespace mbb {

std::optional<Reference> PendulumReference(const Problem& problem);
std::optional<Reference> GyroTopReference(const Problem& problem);

namespace {

std::optional<Reference> FindBuiltinReference(const Problem& problem) {
  if (auto ref = PendulumReference(problem)) return ref;
  if (auto ref = GyroTopReference(problem)) return ref;
  return std::nullopt;
}

}  // namespace

std::vector<char> VelocityDependentOutputs(const Problem& problem) {
  if (!problem.calc_outputs) return {};
  const int n = problem.n();
  const size_t count = problem.output_names.size();
  Vector v_other = problem.v0 + Vector::LinSpaced(n, 1.0, static_cast<double>(n));
  Vector out_a(count), out_b(count);
  problem.calc_outputs(problem.t0, problem.q0, problem.v0, out_a);
  problem.calc_outputs(problem.t0, problem.q0, v_other, out_b);
  std::vector<char> depends(count);
  // Bitwise comparison: NaN (not equal to itself) counts as dependent, i.e. not provided.
  for (size_t k = 0; k < count; ++k) depends[k] = !(out_a[k] == out_b[k]);
  return depends;
}

void AttachOutputs(const Problem& problem, Reference& ref) {
  ref.output_provided.clear();
  ref.outputs.clear();
  if (!problem.calc_outputs || problem.output_names.empty()) return;
  const std::vector<char> needs_v = VelocityDependentOutputs(problem);
  const bool has_v = ref.evaluate ? static_cast<bool>(ref.evaluate_velocity)
                                  : ref.velocities.size() == ref.positions.size();
  ref.output_provided.resize(needs_v.size());
  for (size_t k = 0; k < needs_v.size(); ++k) ref.output_provided[k] = has_v || !needs_v[k];
  if (ref.evaluate) return;  // analytic: evaluated along the run (MetricsObserver)
  const Vector zero = Vector::Zero(problem.n());
  for (size_t s = 0; s < ref.positions.size(); ++s) {
    Vector out(needs_v.size());
    problem.calc_outputs(ref.times[s], ref.positions[s], has_v ? ref.velocities[s] : zero, out);
    for (size_t k = 0; k < needs_v.size(); ++k)
      if (!ref.output_provided[k]) out[k] = std::numeric_limits<double>::quiet_NaN();
    ref.outputs.push_back(out);
  }
}

std::optional<Reference> FindReference(const Problem& problem, std::string* why_not) {
  if (auto ref = FindBuiltinReference(problem)) {
    AttachOutputs(problem, *ref);
    return ref;
  }
  if (why_not) *why_not = "no reference for " + problem.id + " with these parameters";
  return std::nullopt;
}

}  // namespace mbb
