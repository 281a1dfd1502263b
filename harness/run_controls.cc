// Typed run settings: their validation and the one place their text is parsed.
#include "harness/run_controls.h"

#include <algorithm>
#include <cmath>

#include "problems/core/format.h"

namespace mbb {

namespace {
bool Refuse(std::string* why, const std::string& text) {
  if (why) *why = text;
  return false;
}
}  // namespace

bool RunControls::Validate(std::string* why) const {
  if (h && !(*h > 0.0 && std::isfinite(*h)))
    return Refuse(why, "h = " + FormatNumber(*h) + ": must be > 0 and finite");
  // rtol above 1 accepts an error larger than the solution itself (ida took
  // --set rtol=1e10 silently).
  if (rtol && !(*rtol > 0.0 && *rtol <= 1.0))
    return Refuse(why, "rtol = " + FormatNumber(*rtol) + ": must be above 0 and at most 1");
  // > 0, not >= 0: a pure relative test stalls on a coordinate passing through zero, and the
  // runner has always refused atol = 0.
  if (atol && !(*atol > 0.0 && std::isfinite(*atol)))
    return Refuse(why, "atol = " + FormatNumber(*atol) + ": must be > 0 and finite");
  if (max_steps < 1)
    return Refuse(why, "max_steps = " + std::to_string(max_steps) + ": must be at least 1");
  if (!(time_limit_s >= 0.0 && std::isfinite(time_limit_s)))
    return Refuse(why, "time_limit_s = " + FormatNumber(time_limit_s) +
                           ": must be >= 0 (0: none) and finite");
  return true;
}

const std::vector<ParameterSpec>& RunSettingSpecs() {
  static const std::vector<ParameterSpec> specs = {
      {"h", "", "fixed step size, s", {}},
      {"rtol", "", "relative tolerance (adaptive methods), above 0 and at most 1", {}, 0.0, 1.0},
      {"atol", "", "absolute tolerance (adaptive methods)", {}},
      {"samples",
       "land",
       "land: adaptive methods land on every sample time of a tabulated reference; "
       "interpolate: they step freely and the error is measured on the cubic Hermite "
       "interpolant of the run at those times (fixed-step methods never land)",
       {"land", "interpolate"}}};
  return specs;
}

bool IsRunSetting(const std::string& key) {
  const auto& specs = RunSettingSpecs();
  return std::any_of(specs.begin(), specs.end(),
                     [&](const ParameterSpec& s) { return s.name == key; });
}

bool SetRunSettingFromText(RunControls& controls, const std::string& key, const std::string& value,
                           const std::string& context) {
  if (!IsRunSetting(key)) return false;
  if (key == "samples") {
    if (value != "land" && value != "interpolate")
      throw InputError(context + ": parameter 'samples' = '" + value +
                       "' is not one of: land, interpolate");
    controls.samples = value == "land" ? SampleMode::kLand : SampleMode::kInterpolate;
    return true;
  }
  double x = 0.0;
  try {
    x = ParseNumber(value, key);
  } catch (const InputError& e) {
    throw InputError(context + ": " + e.what());
  }
  if (key == "h") controls.h = x;
  if (key == "rtol") controls.rtol = x;
  if (key == "atol") controls.atol = x;
  return true;
}

const char* ToString(SampleMode samples) {
  return samples == SampleMode::kLand ? "land" : "interpolate";
}

}  // namespace mbb
