// Column compression of a sparse Jacobian for forward-mode AD [Curtis, Powell, Reid, "On the
// estimation of sparse Jacobian matrices", J. Inst. Maths Applics 13 (1974) 117-119]: columns
// that share no row are seeded together, so one dual pass yields several columns at once.
// A multibody Jacobian couples only the coordinates of the bodies a joint connects, so a
// chain of any length needs a handful of passes instead of one per coordinate (the
// n_four_bar chain: 6 instead of 3 (2N + 1)).
#pragma once

#include <cstddef>
#include <vector>

namespace mbb {

class JacobianCompression {
 public:
  /// Greedy colouring, columns in their natural order (coordinates come body by body, which
  /// suits the greedy order). `nonzero(row, col)` is the structural pattern, rows x cols.
  template <class Pattern>
  static JacobianCompression FromPattern(int rows, int cols, const Pattern& nonzero);

  int num_groups() const { return static_cast<int>(group_begin_.size()) - 1; }
  int num_columns() const { return static_cast<int>(group_of_column_.size()); }
  int num_entries() const { return static_cast<int>(entries_.size()); }
  int group_of_column(int col) const { return group_of_column_[col]; }

  struct Entry {
    int row, col;
  };
  /// The structural non-zeros recovered from group g's pass: the row's derivative is the
  /// entry (row, col).
  const Entry* begin(int g) const { return entries_.data() + group_begin_[g]; }
  const Entry* end(int g) const { return entries_.data() + group_begin_[g + 1]; }

  /// All structural non-zeros, group by group (the order of MechanicalDae::CalcPhiQEntries).
  const std::vector<Entry>& entries() const { return entries_; }

  /// The column of group g that row r depends on, or -1 (at most one by construction).
  int column_in_group(int g, int row) const {
    return column_of_row_[static_cast<size_t>(g) * num_rows_ + row];
  }

 private:
  std::vector<int> group_of_column_;
  std::vector<int> group_begin_{0};
  std::vector<Entry> entries_;
  int num_rows_ = 0;
  std::vector<int> column_of_row_;  // groups x rows, -1 where the row has no entry
};

template <class Pattern>
JacobianCompression JacobianCompression::FromPattern(int rows, int cols, const Pattern& nonzero) {
  JacobianCompression c;
  c.group_of_column_.assign(cols, 0);
  // row_used[g * rows + r]: group g already has a column with a non-zero in row r.
  std::vector<char> row_used;
  int groups = 0;
  for (int j = 0; j < cols; ++j) {
    int g = 0;
    for (; g < groups; ++g) {
      bool conflict = false;
      for (int r = 0; r < rows && !conflict; ++r)
        conflict = nonzero(r, j) && row_used[static_cast<size_t>(g) * rows + r];
      if (!conflict) break;
    }
    if (g == groups) {
      ++groups;
      row_used.resize(static_cast<size_t>(groups) * rows, 0);
    }
    c.group_of_column_[j] = g;
    for (int r = 0; r < rows; ++r)
      if (nonzero(r, j)) row_used[static_cast<size_t>(g) * rows + r] = 1;
  }
  c.group_begin_.assign(1, 0);
  for (int g = 0; g < groups; ++g) {
    for (int j = 0; j < cols; ++j)
      if (c.group_of_column_[j] == g)
        for (int r = 0; r < rows; ++r)
          if (nonzero(r, j)) c.entries_.push_back({r, j});
    c.group_begin_.push_back(static_cast<int>(c.entries_.size()));
  }
  c.num_rows_ = rows;
  c.column_of_row_.assign(static_cast<size_t>(groups) * rows, -1);
  for (const Entry& e : c.entries_)
    c.column_of_row_[static_cast<size_t>(c.group_of_column_[e.col]) * rows + e.row] = e.col;
  return c;
}

}  // namespace mbb
