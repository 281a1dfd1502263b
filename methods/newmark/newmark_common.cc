// Newmark parameters, presets and the linear stability limit (paper 001 eqs. 11, 25-26).
#include "methods/newmark/newmark_common.h"

#include "methods/common/acceleration_solver.h"
#include "methods/common/sparse_kkt_system.h"
#include "problems/core/format.h"
#include "problems/core/sparse_constraint_system.h"

#include <cmath>

namespace mbb {

std::vector<ParameterSpec> NewmarkParameters::Specs() {
  return {
      {"scheme",
       "trapezoidal",
       "Newmark preset: trapezoidal (gamma=1/2, beta=1/4), fox-goodwin (1/2, 1/12), "
       "linear-acceleration (1/2, 1/6)",
       {"trapezoidal", "fox-goodwin", "linear-acceleration"}},
      {"gamma", "", "Newmark gamma (paper 001's alpha); overrides the preset", {}},
      {"beta", "", "Newmark beta; overrides the preset", {}},
      {"tol", "1e-10", "Newton tolerance on the relative change of q, v, a", {}},
      {"max_iterations", "25", "Newton iterations per step before the step fails", {}},
  };
}

std::vector<ParameterSpec> NewmarkParameters::ModifiedNewtonSpecs() {
  std::vector<ParameterSpec> specs = Specs();
  specs.push_back({"derivatives",
                   "per-step",
                   "derivative terms of the Newton matrix: taken at each step's first iterate "
                   "(per-step) or kept across steps while the iteration contracts (reuse)",
                   {"per-step", "reuse"}});
  specs.push_back({"predictor",
                   "extrapolation",
                   "starting acceleration of a step's iteration: extrapolated from the last "
                   "accepted steps, of the order that predicted the last one best "
                   "(extrapolation), or a_n (constant)",
                   {"extrapolation", "constant"}});
  return specs;
}

namespace {

std::vector<ParameterSpec> WithConstraintSolves(const std::string& what, int auto_from) {
  std::vector<ParameterSpec> specs = NewmarkParameters::ModifiedNewtonSpecs();
  specs.push_back(
      {"constraint_solves",
       "auto",
       what + ", or auto (sparse from " + std::to_string(auto_from) + " coordinates on)",
       {"auto", "dense", "sparse"}});
  return specs;
}

}  // namespace

std::vector<ParameterSpec> NewmarkParameters::Index3Specs() {
  return WithConstraintSolves(
      "Newton system [K_T Phi_q^T; Phi_q 0]: dense LU, sparse envelope LU "
      "(methods/common/sparse_kkt_system.h)",
      SparseKktSystem::kAutoMinCoordinates);
}

std::vector<ParameterSpec> NewmarkParameters::TangentSpecs() {
  std::vector<ParameterSpec> specs = WithConstraintSolves(
      "constraint solves and tangent basis: dense QR of Phi_q^T, sparse Cholesky of "
      "Phi_q Phi_q^T (methods/newmark/tangent_sparse_system.h)",
      kSparseMinCoordinates);
  specs.push_back({"convergence",
                   "change",
                   "end of the iteration: the change of the last pass below tol (change, paper "
                   "001 Fig. 11), or also the next pass's change estimated from the contraction "
                   "of the last two below tol (contraction: a pass fewer, the acceleration "
                   "constraint met to about tol)",
                   {"change", "contraction"}});
  return specs;
}

NewmarkParameters NewmarkParameters::FromParameters(const ParameterSet& p,
                                                    bool require_positive_beta) {
  NewmarkParameters out;
  out.scheme = p.GetString("scheme", "trapezoidal");
  if (out.scheme == "trapezoidal") {
    out.gamma = 0.5, out.beta = 0.25;
  } else if (out.scheme == "fox-goodwin") {
    out.gamma = 0.5, out.beta = 1.0 / 12.0;
  } else if (out.scheme == "linear-acceleration") {
    out.gamma = 0.5, out.beta = 1.0 / 6.0;
  } else {
    throw InputError("scheme = '" + out.scheme +
                     "': must be trapezoidal, fox-goodwin or linear-acceleration");
  }
  out.gamma = p.GetDouble("gamma", out.gamma);
  out.beta = p.GetDouble("beta", out.beta);
  out.tol = p.GetDouble("tol", out.tol);
  const std::string derivatives = p.GetString("derivatives", "per-step");
  if (derivatives != "per-step" && derivatives != "reuse")
    throw InputError("derivatives = '" + derivatives + "': must be per-step or reuse");
  out.reuse_derivatives = derivatives == "reuse";
  const std::string predictor = p.GetString("predictor", "extrapolation");
  if (predictor != "extrapolation" && predictor != "constant")
    throw InputError("predictor = '" + predictor + "': must be extrapolation or constant");
  out.extrapolate_start = predictor == "extrapolation";
  const double iterations = p.GetDouble("max_iterations", out.max_iterations);
  if (!(out.gamma > 0.0)) throw InputError("gamma = " + FormatNumber(out.gamma) + ": must be > 0");
  if (require_positive_beta ? !(out.beta > 0.0) : !(out.beta >= 0.0))
    throw InputError(
        "beta = " + FormatNumber(out.beta) +
        (require_positive_beta ? ": must be > 0 (displacement-based scheme)" : ": must be >= 0"));
  if (!(out.tol > 0.0)) throw InputError("tol = " + FormatNumber(out.tol) + ": must be > 0");
  if (!(iterations >= 1.0) || iterations != std::floor(iterations))
    throw InputError("max_iterations = " + FormatNumber(iterations) +
                     ": must be a positive integer");
  out.max_iterations = static_cast<int>(iterations);
  return out;
}

double NewmarkStabilityLimit(double omega, double gamma, double beta) {
  const double margin = 0.5 * gamma - beta;  // eq. (26): (1/2) alpha - beta
  if (gamma >= 0.5 && margin <= 0.0) return std::numeric_limits<double>::infinity();
  if (!(omega > 0.0) || !(margin > 0.0)) return std::numeric_limits<double>::infinity();
  return std::sqrt(1.0 / margin) / omega;  // eq. (26)
}

double FrequencyEstimator::Compute(const Matrix& mass, const Matrix& stiffness) {
  if (mass.rows() == 0) return 0.0;
  llt_.compute(mass);
  if (llt_.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
  // L^-1 K L^-T has the eigenvalues of M^-1 K.
  a_ = stiffness;
  llt_.matrixL().solveInPlace(a_);
  a_.transposeInPlace();
  llt_.matrixL().solveInPlace(a_);
  eig_.compute(a_, false);
  if (eig_.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
  double largest = 0.0;
  for (Eigen::Index i = 0; i < eig_.eigenvalues().size(); ++i)
    largest = std::max(largest, std::abs(eig_.eigenvalues()[i]));
  return std::sqrt(largest);
}

void ReportStabilityMetrics(double omega_max, double gamma, double beta,
                            std::map<std::string, double>& metrics) {
  if (!std::isfinite(omega_max)) return;
  metrics["omega_max"] = omega_max;
  const double limit = NewmarkStabilityLimit(omega_max, gamma, beta);
  if (std::isfinite(limit)) metrics["h_stability_limit_predicted"] = limit;
}

bool StartFromIndex1Solution(const MechanicalDae& dae, DaeWorkspace& ws, FixedStepState& s,
                             WorkCounters& counters, std::string& error) {
  AccelerationSolver solver(dae, ws);
  if (!solver.Solve(s.t, s.q, s.v, s.a, s.lambda)) {
    error = "no consistent initial acceleration (mass singular on the tangent space)";
    return false;
  }
  ++counters.rhs_evals;
  s.has_acceleration = true;
  s.has_multipliers = dae.num_constraints() > 0;
  return true;
}

}  // namespace mbb
