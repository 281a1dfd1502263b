// Shared SUNDIALS plumbing for the IDA and ARKODE adapters: an RAII context, N_Vector
// access, and the one place that turns a SUNDIALS error message into a run message
// (SUNDIALS 6.4 API; docs/toolchain.md trap 5).
#pragma once

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

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
};

}  // namespace mbb
