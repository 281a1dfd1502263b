// The thread pool of the batch executor and of `mbbench check`: items 0..count-1 taken in
// order by `jobs` threads, each calling `body(i)` once per item. The body handles its own
// errors (an exception escaping it ends the program) and its own printing lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace mbb {

template <typename Body>
void ParallelFor(size_t count, int jobs, Body body) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) body(i);
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < std::max(1, jobs); ++k) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
}

}  // namespace mbb
