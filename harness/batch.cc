#include "harness/batch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "harness/cli_options.h"
#include "harness/configuration.h"
#include "harness/file_names.h"
#include "harness/json_io.h"
#include "harness/parallel.h"
#include "harness/result_summary.h"
#include "harness/run_table.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

std::string WriteRecord(const RunRecord& record, const std::string& dir, const std::string& stem) {
  fs::create_directories(dir);
  std::string series_file;
  if (!record.series.empty()) {
    series_file = stem + ".series.csv";
    WriteFileAtomically(dir + "/" + series_file, SeriesToCsv(record, record.output_names));
  }
  const std::string file = stem + ".json";
  WriteFileAtomically(dir + "/" + file, RunRecordToJson(record, series_file));
  return file;
}

bool Succeeded(RunStatus s) { return s == RunStatus::kOk || s == RunStatus::kNotApplicable; }

// A temporary file of WriteFileAtomically (NAME.tmp.PID.N) whose writer is gone: a run
// interrupted between writing and renaming (SIGINT during a series write) left it. Removed
// when the next batch takes the directory's lock, so a resumed directory holds results only.
void RemoveStaleTemporaries(const std::string& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t tmp = name.rfind(".tmp.");
    if (tmp == std::string::npos) continue;
    const std::string tail = name.substr(tmp + 5);  // PID.N
    const size_t dot = tail.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == tail.size() ||
        tail.find_first_not_of("0123456789.") != std::string::npos ||
        tail.find('.', dot + 1) != std::string::npos)
      continue;
    const long pid = std::strtol(tail.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;  // its writer may still be running
    if (fs::remove(entry.path(), ec))
      std::fprintf(stderr, "removed %s: a temporary file whose writer (pid %ld) is gone\n",
                   entry.path().c_str(), pid);
  }
}

// Holds an exclusive lock on DIR/.mbbench.lock while a batch writes into DIR: a second
// mbbench on the same directory waits, then resumes from the first one's results (a sweep)
// instead of redoing its runs or interleaving two index files.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir) {
    const std::string path = dir + "/.mbbench.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InputError("--out " + dir + ": cannot create " + path);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      std::fprintf(stderr, "waiting for another mbbench writing into %s ...\n", dir.c_str());
      ::flock(fd_, LOCK_EX);
    }
    RemoveStaleTemporaries(dir);
  }
  ~DirectoryLock() { ::close(fd_); }  // closing releases the lock
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// What the workers of one batch share: the inputs, and per item what became of it.
struct Batch {
  const std::vector<BatchItem>& items;
  const std::string& dir;
  bool resume, progress;
  std::vector<IndexEntry> index;
  std::vector<RunRecord> records;
  std::vector<char> have_record;
  std::vector<std::string> rerun_reasons;
  std::atomic<int> finished{0};
  std::atomic<bool> any_failed{false};
  std::mutex print_mutex;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  Batch(const std::vector<BatchItem>& batch_items, const std::string& batch_dir, bool resume_runs,
        bool show_progress)
      : items(batch_items),
        dir(batch_dir),
        resume(resume_runs),
        progress(show_progress),
        index(batch_items.size()),
        records(batch_items.size()),
        have_record(batch_items.size(), 0),
        rerun_reasons(batch_items.size()) {}
};

// With --resume: true when the stored result at `path` was computed for exactly this
// configuration (not merely under this file name: the experiment may have been edited since)
// and is kept; else the reason it is rerun ("" when there is none).
bool KeepStored(Batch& b, IndexEntry& entry, const std::string& path,
                const std::string& configuration, std::string& rerun_reason) {
  const StoredResult stored = ReadStoredResult(path);
  if (!stored.status.empty() && WithCurrentParameterNames(stored.configuration) == configuration) {
    entry.status = stored.status;
    entry.message = "kept from an earlier run (same configuration)";
    if (stored.status == "failed" || stored.status == "unstable") b.any_failed = true;
    return true;
  }
  if (!stored.status.empty())
    rerun_reason = "rerun: " + DescribeConfigurationChange(stored.configuration, configuration);
  else if (!stored.unreadable.empty())  // named, then overwritten by the rerun
    rerun_reason = "rerun: the stored result is unreadable: " + stored.unreadable;
  return false;
}

// Runs (or keeps) item i and writes its result; false when a stored result was kept.
bool RunItem(Batch& b, size_t i) {
  const BatchItem& item = b.items[i];
  IndexEntry& entry = b.index[i];
  entry.problem = item.spec.model_file.empty() ? item.spec.problem : item.spec.model_file;
  entry.method = item.spec.method;
  entry.file = item.stem + ".json";
  std::string rerun_reason;
  try {
    RunSpec spec = item.spec;
    spec.progress = b.progress;
    const ResolvedRun resolved = ResolveRun(spec);
    const std::string configuration = ConfigurationKey(DescribeRun(resolved), spec);
    entry.configuration_hash = ConfigurationHash(configuration);
    if (b.resume && KeepStored(b, entry, b.dir + "/" + entry.file, configuration, rerun_reason))
      return false;
    RunRecord record = Execute(resolved, spec);
    record.configuration = configuration;
    WriteRecord(record, b.dir, item.stem);
    entry.status = ToString(record.status);
    entry.message = rerun_reason.empty()     ? record.message
                    : record.message.empty() ? rerun_reason
                                             : rerun_reason + "; " + record.message;
    if (!Succeeded(record.status)) b.any_failed = true;
    b.records[i] = std::move(record);
    b.rerun_reasons[i] = rerun_reason;
    b.have_record[i] = 1;
  } catch (const InputError& e) {
    entry.status = "invalid";
    entry.message = e.what();
    b.any_failed = true;
  } catch (const std::exception& e) {  // e.g. the disk filled: this run fails, not the batch
    entry.status = ToString(RunStatus::kFailed);
    entry.message = std::string("could not finish or write the result: ") + e.what();
    b.any_failed = true;
  }
  return true;
}

void PrintProgressLine(Batch& b, size_t i) {
  const int done = ++b.finished;
  const IndexEntry& entry = b.index[i];
  // The verdict, as the report will give it: "ok (inaccurate: ...)", "failed (time limit)".
  const std::string status = b.have_record[i] ? RunStatusLine(b.records[i]) : entry.status;
  std::lock_guard<std::mutex> lock(b.print_mutex);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - b.start).count();
  std::fprintf(stderr, "[%d/%zu %6.1fs] %s %s: %s\n", done, b.items.size(), elapsed,
               entry.problem.c_str(), entry.method.c_str(), status.c_str());
}

}  // namespace

bool ShowProgress(bool asked) { return asked || ::isatty(STDERR_FILENO); }

int RunBatch(const std::vector<BatchItem>& items, const std::string& dir, const std::string& name,
             int jobs, bool resume, bool progress) {
  for (const auto& item : items) RequireSafeName(item.stem, "result file name");
  PrepareOutputDirectory(dir);
  const DirectoryLock lock(dir);
  Batch b(items, dir, resume, progress);
  ParallelFor(items.size(), jobs, [&b](size_t i) {
    if (RunItem(b, i))
      PrintProgressLine(b, i);
    else
      ++b.finished;  // kept: no line
  });

  for (auto& entry : b.index) AddResultToIndexEntry(dir, entry);
  WriteFileAtomically(dir + "/index.json", IndexToJson(name, b.index));
  std::vector<TableRow> rows;
  for (size_t i = 0; i < items.size(); ++i)
    rows.push_back({b.index[i].problem, b.index[i].method, b.index[i].status, b.index[i].message,
                    b.have_record[i] ? &b.records[i] : nullptr, b.rerun_reasons[i]});
  PrintRunTable(rows);
  std::printf("results: %s/ (index.json + one JSON per run)\n", dir.c_str());
  return b.any_failed ? kExitRunsFailed : kExitOk;
}

}  // namespace mbb
