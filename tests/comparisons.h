// How the tests compare two answers: vectors relative to the second one's size, and the
// final coordinates of two runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/run_record.h"
#include "problems/core/mechanical_dae.h"

namespace mbb {

/// |a - b|_inf / |b|_inf.
inline double RelativeDifference(const Vector& a, const Vector& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(b.lpNorm<Eigen::Infinity>(), 1e-300);
}

/// max_i |a.q_i - b.q_i| at the two runs' ends (infinity if their sizes differ).
inline double FinalCoordinateDifference(const RunRecord& a, const RunRecord& b) {
  if (a.final_q.size() != b.final_q.size()) return std::numeric_limits<double>::infinity();
  double difference = 0.0;
  for (size_t i = 0; i < a.final_q.size(); ++i)
    difference = std::max(difference, std::abs(a.final_q[i] - b.final_q[i]));
  return difference;
}

}  // namespace mbb
