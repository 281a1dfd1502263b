// Writing files so that a reader (or an interrupted sweep) never sees a partial one: through
// a temporary file NAME.tmp.PID.N and a rename. The batch executor's DirectoryLock removes
// the temporaries whose writer is gone (batch.cc).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mbb {

/// Writes to `path` through a temporary file and rename, so a reader (or an interrupted
/// sweep) never sees a partial file. Throws std::runtime_error naming the path on failure.
void WriteFileAtomically(const std::string& path, const std::string& text);
/// Writes several files (path, text) as one: every text into its temporary file first (a
/// failure there removes them all and replaces nothing), then each renamed onto its path.
void WriteFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace mbb
