// Shared SUNDIALS plumbing for the IDA and ARKODE adapters: an RAII context, N_Vector
// access, and the one place that turns a SUNDIALS error message into a run message
// (SUNDIALS 6.4 API; docs/toolchain.md trap 5).
#pragma once

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace mbb {

class SundialsContext {
 public:
  SundialsContext() { SUNContext_Create(nullptr, &ctx_); }
  ~SundialsContext() { SUNContext_Free(&ctx_); }
  SundialsContext(const SundialsContext&) = delete;
  SundialsContext& operator=(const SundialsContext&) = delete;
  operator SUNContext() const { return ctx_; }  // NOLINT

 private:
  SUNContext ctx_ = nullptr;
};

/// Empty if the dense size x size Jacobian of `solver` (8 size^2 bytes; IDA's and ARKODE's
/// dense linear solver factor it in place) fits in half of this machine's physical memory;
/// else why not, for the run's message. Without the check a large model (pendulum_chain with
/// N = 1e5: 2n = 2e5 unknowns, 320 GB) ends in std::bad_alloc or the out-of-memory killer.
inline std::string DenseJacobianTooLarge(long size, const char* solver) {
  const double bytes = 8.0 * static_cast<double>(size) * static_cast<double>(size);
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (!(memory > 0.0) || bytes <= 0.5 * memory) return {};
  char text[256];
  std::snprintf(text, sizeof text,
                "%s's dense Jacobian for %ld unknowns needs %.3g GB, more than half of this "
                "machine's %.3g GB",
                solver, size, bytes / 1e9, memory / 1e9);
  return text;
}

/// Owns an N_Vector.
class SerialVector {
 public:
  SerialVector(long length, SUNContext ctx) : v_(N_VNew_Serial(length, ctx)) { N_VConst(0.0, v_); }
  ~SerialVector() { N_VDestroy(v_); }
  SerialVector(const SerialVector&) = delete;
  SerialVector& operator=(const SerialVector&) = delete;
  operator N_Vector() const { return v_; }  // NOLINT
  double* data() const { return N_VGetArrayPointer(v_); }

 private:
  N_Vector v_;
};

/// Collects the last error message SUNDIALS reports (instead of printing to stderr).
struct SundialsErrorSink {
  std::string last_message;
  static void Handler(int code, const char* module, const char* function, char* msg, void* data) {
    auto* sink = static_cast<SundialsErrorSink*>(data);
    sink->last_message =
        std::string(module) + "::" + function + " (" + std::to_string(code) + "): " + msg;
  }
  /// True if a SUNDIALS call succeeded (flag >= 0); else false with `error` = "<call>
  /// failed: " and SUNDIALS' last message, or the flag's name (flag_name, e.g.
  /// IDAGetReturnFlagName) when there is none.
  bool Check(int flag, const char* call, char* (*flag_name)(long), std::string& error) const {
    if (flag >= 0) return true;
    error =
        std::string(call) + " failed: " + (last_message.empty() ? flag_name(flag) : last_message);
    return false;
  }
};

}  // namespace mbb
