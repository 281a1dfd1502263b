// The timing loop of the benchmarks in bench/: after one warm-up call, as many calls per
// repeat as last `min_seconds` (at least one), then `repeats` timed repeats; the times per
// call of the repeats, sorted (front: minimum, middle: median). Noisy shared machines make
// the minimum the figure to compare and the median the one to quote beside it.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace mbb::bench {

struct RepeatTimes {
  long calls_per_repeat = 1;
  std::vector<double> per_call;  // seconds, sorted
  double min() const { return per_call.front(); }
  double median() const { return per_call[per_call.size() / 2]; }
};

template <class Call>
RepeatTimes TimeRepeats(Call&& call, int repeats, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  auto run = [&](long calls) {
    const auto t0 = Clock::now();
    for (long k = 0; k < calls; ++k) call();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  RepeatTimes out;
  call();  // warm-up
  for (;;) {
    const double seconds = run(out.calls_per_repeat);
    if (seconds >= min_seconds || out.calls_per_repeat > (1L << 40)) break;
    out.calls_per_repeat = std::max(
        2 * out.calls_per_repeat, static_cast<long>(out.calls_per_repeat * min_seconds / seconds));
  }
  for (int r = 0; r < std::max(repeats, 1); ++r)
    out.per_call.push_back(run(out.calls_per_repeat) / out.calls_per_repeat);
  std::sort(out.per_call.begin(), out.per_call.end());
  return out;
}

}  // namespace mbb::bench
