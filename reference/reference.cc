// The analytic references recognise their mechanism from the problem's ModelStructure
// (analytic_pendulum.cc: one body about a ground pivot or a parallelogram chain;
// analytic_gyro_top.cc: a symmetric top in steady precession); published and suite-made
// tabulated references are files under reference/<problem>/ (harness/reference_maker.h).
#include "reference/reference.h"

namespace mbb {

std::optional<Reference> PendulumReference(const Problem& problem);
std::optional<Reference> GyroTopReference(const Problem& problem);

std::optional<Reference> FindReference(const Problem& problem, std::string* why_not) {
  if (auto ref = PendulumReference(problem)) return ref;
  if (auto ref = GyroTopReference(problem)) return ref;
  if (why_not) *why_not = "no reference for " + problem.id + " with these parameters";
  return std::nullopt;
}

}  // namespace mbb
