#include "reference/reference.h"

namespace mbb {

std::optional<Reference> PendulumReference(const Problem& problem);
std::optional<Reference> AndrewsReference(const Problem& problem);
std::optional<Reference> GyroTopReference(const Problem& problem);
std::optional<Reference> FourBarChainReference(const Problem& problem);

std::optional<Reference> FindReference(const Problem& problem, std::string* why_not) {
  if (auto ref = PendulumReference(problem)) return ref;
  if (auto ref = AndrewsReference(problem)) return ref;
  if (auto ref = GyroTopReference(problem)) return ref;
  if (auto ref = FourBarChainReference(problem)) return ref;
  if (why_not) *why_not = "no reference for " + problem.id + " with these parameters";
  return std::nullopt;
}

}  // namespace mbb
