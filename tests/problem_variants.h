// Every catalogue problem in every form a choice parameter selects (the default, then each
// other choice of each choice parameter alone): the set the derivative and forwarding tests
// sweep.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "problems/core/problem.h"

namespace mbb {

inline std::vector<std::pair<std::string, ParameterSet>> AllProblemVariants() {
  std::vector<std::pair<std::string, ParameterSet>> variants;
  for (const auto& entry : ProblemCatalogue()) {
    variants.push_back({entry.id, ParameterSet()});
    for (const auto& spec : entry.parameters)
      for (const auto& choice : spec.choices)
        if (choice != spec.default_value) {
          ParameterSet p;
          p.Set(spec.name, choice);
          variants.push_back({entry.id, p});
        }
  }
  return variants;
}

}  // namespace mbb
