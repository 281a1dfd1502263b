#include "problems/core/tangent_pattern.h"

#include <algorithm>

#include "problems/core/invariant.h"

namespace mbb {

void TangentPattern::Finish() {
  auto by_column = [](const Entry& a, const Entry& b) {
    return a.col != b.col ? a.col < b.col : a.row < b.row;
  };
  std::sort(entries_.begin(), entries_.end(), by_column);
  entries_.erase(
      std::unique(entries_.begin(), entries_.end(),
                  [](const Entry& a, const Entry& b) { return a.row == b.row && a.col == b.col; }),
      entries_.end());
  column_start_.assign(size_ + 1, 0);
  for (const Entry& e : entries_) {
    MBB_INVARIANT(e.row >= 0 && e.row < size_ && e.col >= 0 && e.col < size_,
                  "TangentPattern: entry outside the n x n matrix");
    ++column_start_[e.col + 1];
  }
  for (int c = 0; c < size_; ++c) column_start_[c + 1] += column_start_[c];
}

int TangentPattern::Slot(int row, int col) const {
  MBB_INVARIANT(static_cast<int>(column_start_.size()) == size_ + 1,
                "TangentPattern::Slot before Finish()");
  const auto begin = entries_.begin() + column_start_[col];
  const auto end = entries_.begin() + column_start_[col + 1];
  const auto it =
      std::lower_bound(begin, end, row, [](const Entry& e, int r) { return e.row < r; });
  return it != end && it->row == row ? static_cast<int>(it - entries_.begin()) : -1;
}

}  // namespace mbb
