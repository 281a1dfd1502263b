#include "harness/failure_class.h"

namespace mbb {

namespace {
bool StartsWith(const std::string& text, const std::string& head) {
  return text.compare(0, head.size(), head) == 0;
}
}  // namespace

std::string FailureClassOf(const std::string& status, const std::string& message) {
  if (status != "failed" && status != "unstable") return "";
  // Openings written by TimeLimitObserver (runner.cc) and RunLoop (methods/common/run_loop.h).
  if (status == "failed" && StartsWith(message, "time limit of ")) return kFailureTimeLimit;
  if (status == "failed" && (StartsWith(message, "max_steps (") ||
                             message.find("steps, more than max_steps (") != std::string::npos))
    return kFailureStepLimit;
  return kFailureNumerical;
}

std::string StatusWithFailureClass(const std::string& status, const std::string& failure_class) {
  if (failure_class == kFailureTimeLimit) return status + " (time limit)";
  if (failure_class == kFailureStepLimit) return status + " (step limit)";
  return status;
}

}  // namespace mbb
