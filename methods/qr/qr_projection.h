// Minimal-coordinate-set integration with a QR-based tangent subspace, paper 000
// [Masarati et al., "continued QR"], eqs. (8)-(19), and the continuation of the tangent
// basis Q2 by dQ/dt = Q Omega with Omega_2 = 0, eqs. (22)-(29).
//
//   continued-qr    Q1 from the economy QR of A^T = Phi_q^T at every step (8); Q2 propagated
//                   by Q_{k+1} = Q_k exp(Omega h) (28), Omega_1L (25), Omega_21 (26)-(27),
//                   or by the first-order form (29), then Gram-Schmidt re-orthogonalised
//                   against Q1_{k+1} (end of s2.5).
//   traditional-qr  Q2 from a fresh full factorisation of A^T at every step: Householder
//                   QR (8), or the SVD (20) / zero-eigenvalue (21) alternatives of s2.4.
//   Both take basis=qr|svd|eigen for Q1; the continuation carries over to SVD and
//   zero-eigenvalue bases (s2.4) with Omega_21 of (26)-(27) for A^T = Q1 R1, any R1.
//
// Both integrate the minimal velocities q' (15a) and the redundant positions x (15b)
// explicitly (Dormand-Prince 5(4) [Dormand, Prince 1980] at fixed h, or adaptive with its
// embedded 4th-order error estimate and the controller of [Hairer et al. 1993, s II.4], or
// classical RK4 at fixed h);
// within a step the coordinates refer to the basis Q_k of the step start (eq. 16 read as
// an increment: x_{k+1} = x_k + Q2_k dq + Q1_k p), the positions are corrected along Q1_k
// by Newton on c(x, t_{k+1}) = 0 (17)-(19), and q'_{k+1} = Q2_{k+1}^T x'_{k+1}. The choice of
// Q2 is a rotation of the minimal coordinates only: the physical trajectory of both
// methods is the same to rounding. docs/methods/continued_qr.md has the details.
#pragma once

#include <functional>
#include <vector>

#include "methods/fixed_step_method.h"
#include "methods/qr/dense_kernels.h"

namespace mbb {

enum class QrIntegrator { kDopri5, kRk4 };
enum class QrBasis { kQr, kSvd, kEigen };
enum class QrContinuation { kNone, kExponential, kFirstOrder };

struct QrOptions {
  QrContinuation continuation = QrContinuation::kExponential;  // kNone: traditional
  QrIntegrator integrator = QrIntegrator::kDopri5;
  /// Factorisation of A^T giving Q1 (both methods) and Q2 (traditional). The continued
  /// method re-takes Q1 from it every step; with QR it uses Omega_1L of (25), with SVD /
  /// zero-eigenvalue bases Omega_11 = 0 (docs/methods/continued_qr.md).
  QrBasis basis = QrBasis::kQr;
  /// Dormand-Prince only: step size controlled by the embedded 4th-order error estimate
  /// (rtol/atol of the run, HNW II.4 controller) instead of a fixed h.
  bool adaptive = false;
  /// Report q, q' and the columns of Q2 per step as StepSample::extra (for --series).
  bool minimal_series = false;
};

class QrProjectionMethod final : public FixedStepMethod {
 public:
  explicit QrProjectionMethod(QrOptions options) : options_(options) {}

  /// Diagnostics hook (tests, figures): called after the start and after every step with
  /// the time, the basis Q = [Q1 Q2] (n x n), A^T = Phi_q^T at that state (n x m), the
  /// minimal coordinates q (n - m, integral of q' along the path) and velocities q'.
  using BasisInspector = std::function<void(double t, const Matrix& basis, const Matrix& a_t,
                                            const Vector& q_min, const Vector& q_min_dot)>;
  void set_basis_inspector(BasisInspector inspector) { inspector_ = std::move(inspector); }

  /// With minimal_series: min_q1..min_qd, min_qdot1..min_qdotd, then Q2 column by column
  /// (Q2_<row>_<col>).
  std::vector<std::string> ExtraSeriesNames(const Problem& problem) const override;

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double h, FixedStepState& state,
                                            WorkCounters& counters,
                                            std::string& error) const override;
  bool AdaptiveSteps() const override { return options_.adaptive; }
  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& state,
                  WorkCounters& counters) const override;
  void Finish(FixedStepWorkspace& workspace, std::map<std::string, double>& metrics) const override;

 private:
  QrOptions options_;
  BasisInspector inspector_;
};

/// The registry entries `continued-qr` and `traditional-qr`.
std::vector<MethodEntry> QrMethodEntries();

}  // namespace mbb
