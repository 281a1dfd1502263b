// libFuzzer target: the experiment-file reader (harness/sweep_file.h ParseSweepText, the text
// entry point of ReadSweepFile: keys, types, run counts, matrix expansion). Bad input must
// end in InputError (exit code 2 in the CLI); any other exception, a crash or a sanitizer
// report is a finding. Built and run by scripts/fuzz (seed corpus: fuzz/corpus/experiment).
// The run limit is lowered to 1000 so that a valid matrix does not spend the fuzzer's time
// expanding ten thousand runs (the limit itself is part of what is fuzzed).
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/json_io.h"
#include "harness/sweep_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)mbb::ParseSweepText(text, "fuzz/experiment.json", 1000);
  } catch (const mbb::InputError&) {
    // Expected: refused with a message naming the file and key.
  }
  return 0;
}
