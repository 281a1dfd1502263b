// Reference solutions and their provenance. A reference either evaluates at any time
// (analytic) or holds tabulated samples; it states the digits it supports and refuses use
// outside its validity (other parameters, times beyond its range). It also provides the
// problem's named outputs (AttachOutputs), so that methods integrating in different
// coordinates compare on the same quantities: an output is computed by the problem's own
// calc_outputs on the reference state, and one that depends on v is provided only when the
// reference has velocities (never from a made-up v).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "problems/core/problem.h"

namespace mbb {

struct Reference {
  std::string id;
  std::string provenance;  // source, equation, or the command that regenerated it
  double digits = 12.0;    // significant digits the reference supports
  double t_max = 0.0;      // valid on [t0, t_max]
  /// Analytic: q(t) at any t in range. Empty for tabulated references.
  std::function<void(double t, Vector& q)> evaluate;
  /// Analytic: v(t) at any t in range; empty if the closed form gives positions only.
  std::function<void(double t, Vector& v)> evaluate_velocity;
  /// Tabulated: sample times and positions, and the velocities where stored (same length as
  /// times, or empty).
  std::vector<double> times;
  std::vector<Vector> positions;
  std::vector<Vector> velocities;

  /// Per Problem::output_names (filled by AttachOutputs): 1 if the reference provides the
  /// output, 0 if not (it depends on v and the reference has none). Empty: no outputs.
  std::vector<char> output_provided;
  /// Tabulated: the outputs at the sample times (NaN where not provided).
  std::vector<Vector> outputs;

  bool provides_any_output() const {
    for (char p : output_provided)
      if (p) return true;
    return false;
  }
};

/// Which of the problem's outputs depend on v: calc_outputs at q0 with two different
/// velocities (v0 and v0 + (1, 2, ..., n)); an output that does not read v gives the same
/// number bit for bit. Empty if the problem has no calc_outputs.
std::vector<char> VelocityDependentOutputs(const Problem& problem);

/// Fills ref.output_provided, and for a tabulated reference ref.outputs from its positions
/// (and velocities, if stored) through problem.calc_outputs.
void AttachOutputs(const Problem& problem, Reference& ref);

/// The reference for `problem` with its parameters, if one exists and is valid for them.
/// `why_not` (if given) receives the reason when there is none.
std::optional<Reference> FindReference(const Problem& problem, std::string* why_not = nullptr);

}  // namespace mbb
