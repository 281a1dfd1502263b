// libFuzzer target: the model-file reader (harness/model_file.h ParseModelText, the whole
// path from JSON text to a validated ModelDescription). Bad input must end in InputError
// (exit code 2 in the CLI); any other exception, a crash or a sanitizer report is a finding.
// Built and run by scripts/fuzz (seed corpus: fuzz/corpus/model).
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)mbb::ParseModelText(text, "fuzz.json");
  } catch (const mbb::InputError&) {
    // Expected: refused with a message naming the file and key.
  }
  return 0;
}
