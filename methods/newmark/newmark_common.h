// Shared pieces of the Newmark family of paper 001 (Newmark 1959; paper 001 eqs. 11, 25-26):
//
//   q_{n+1} = q_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1})
//   v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1})
//
// Paper 001 calls gamma "alpha". Presets (`scheme`): trapezoidal (1/2, 1/4), fox-goodwin
// (1/2, 1/12), linear-acceleration (1/2, 1/6); explicit `gamma`/`beta` override the preset.
// The linear stability limit of eq. (26) (eq. (11) for several frequencies; the paper's
// text cites eq. (10) by mistake) is h <= (1/omega_max) sqrt(1 / (gamma/2 - beta)); the
// scheme is unconditionally stable for gamma >= 1/2 and beta >= gamma/2 (the paper's
// condition beta > 0.5 alpha, non-strict as docs/reproduction.md, 001, notes).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "methods/fixed_step_method.h"
#include "methods/method.h"

namespace mbb {

struct NewmarkParameters {
  double gamma = 0.5;
  double beta = 0.25;
  std::string scheme = "trapezoidal";
  double tol = 1e-10;       // Newton: relative change of q, v and a
  int max_iterations = 25;  // Newton iterations per step
  // `derivatives=reuse` (the constrained methods' modified Newton): the derivative terms of
  // the iteration matrix are kept from one step to the next while the iteration contracts,
  // instead of being taken afresh at each step's first iterate (`per-step`, the default).
  bool reuse_derivatives = false;
  // `predictor=extrapolation` (the constrained methods): the iteration starts from a_{n+1}
  // (and newmark-index3's lambda_{n+1}) extrapolated from the last accepted steps
  // (extrapolator.h) instead of a_n (`constant`).
  bool extrapolate_start = true;

  /// Reads scheme/gamma/beta/tol/max_iterations/derivatives/predictor; throws InputError on
  /// bad values. `require_positive_beta` for displacement-based schemes that divide by beta.
  static NewmarkParameters FromParameters(const ParameterSet& p, bool require_positive_beta);
  /// The parameter specs (scheme, gamma, beta, tol, max_iterations).
  static std::vector<ParameterSpec> Specs();
  /// Specs(), `derivatives` and `predictor`, for the methods with a modified Newton iteration
  /// (newmark-index3, tangent-newmark).
  static std::vector<ParameterSpec> ModifiedNewtonSpecs();
  /// ModifiedNewtonSpecs() and `constraint_solves` (newmark-index3's Newton system: dense
  /// LU, sparse envelope LU, or auto).
  static std::vector<ParameterSpec> Index3Specs();
  /// ModifiedNewtonSpecs() and `constraint_solves` (tangent-newmark's constraint solves and
  /// tangent-space basis: dense QR, sparse Cholesky of Phi_q Phi_q^T, or auto) and
  /// `convergence` (contraction or change).
  static std::vector<ParameterSpec> TangentSpecs();
};

/// Eq. (26): the largest stable step for the frequency omega (rad/s), or +inf if the scheme
/// is unconditionally stable (gamma >= 1/2, beta >= gamma/2) or omega <= 0.
double NewmarkStabilityLimit(double omega, double gamma, double beta);

/// Largest natural frequency sqrt(max |eig(M^-1 K)|) of a linearised system M x'' + K x = 0
/// (section 5: the reduced M_R and K_R of the system actually integrated). Storage is
/// allocated at construction for size k; Compute() does not allocate.
class FrequencyEstimator {
 public:
  explicit FrequencyEstimator(int k) : llt_(k), a_(k, k), eig_(k) {}
  /// NaN if M is not symmetric positive definite.
  double Compute(const Matrix& mass, const Matrix& stiffness);

 private:
  Eigen::LLT<Matrix> llt_;
  Matrix a_;
  Eigen::EigenSolver<Matrix> eig_;
};

/// Records omega_max and h_stability_limit_predicted (eq. 26) in `metrics`.
void ReportStabilityMetrics(double omega_max, double gamma, double beta,
                            std::map<std::string, double>& metrics);

/// The consistent start of the constrained Newmark methods: a0 and lambda0 from the
/// index-1 system (null-space solve: handles a singular M and redundant constraints).
/// Returns false with `error` set if the reduced mass matrix is singular.
bool StartFromIndex1Solution(const MechanicalDae& dae, DaeWorkspace& ws, FixedStepState& s,
                             WorkCounters& counters, std::string& error);

}  // namespace mbb
