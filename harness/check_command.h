// `mbbench check` (docs/regression.md): reruns (or reads from --against) every baseline of a
// tier, result documents and stability searches alike, compares them with the tolerances of
// harness/regression.h, and judges the tier's paper claims (harness/paper_claims.h) on the
// new documents. One line per baseline as it finishes.
#pragma once

#include <string>

namespace mbb {

struct CheckOptions {
  std::string baseline_dir, against, reason;
  int jobs = 1;
  bool update = false, strict_configuration = false;
};

/// Exit 0: nothing changed and every claim holds; 1: a change, a claim that no longer holds
/// (or, with strict_configuration, a configuration difference). InputError on bad input.
int RunCheck(const CheckOptions& options);

}  // namespace mbb
