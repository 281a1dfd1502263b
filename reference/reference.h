// Reference solutions and their provenance. A reference either evaluates at any time
// (analytic) or holds tabulated samples; it states the digits it supports and refuses use
// outside its validity (other parameters, times beyond its range).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "problems/problem.h"

namespace mbb {

struct Reference {
  std::string id;
  std::string provenance;  // source, equation, or the command that regenerated it
  double digits = 12.0;    // significant digits the reference supports
  double t_max = 0.0;      // valid on [t0, t_max]
  /// Analytic: q(t) at any t in range. Empty for tabulated references.
  std::function<void(double t, Vector& q)> evaluate;
  /// Tabulated: sample times and positions.
  std::vector<double> times;
  std::vector<Vector> positions;
};

/// The reference for `problem` with its parameters, if one exists and is valid for them.
/// `why_not` (if given) receives the reason when there is none.
std::optional<Reference> FindReference(const Problem& problem, std::string* why_not = nullptr);

}  // namespace mbb
