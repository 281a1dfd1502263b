// The method conformance suite's shared pieces: the problem set every registry entry is
// checked on, the step sizes of the order check, and an observer measuring what the
// promises (methods/method.h MethodPromises) are about. Used by conformance.cc (the checks,
// library mbbench::conformance) and tests/test_conformance_allocations.cc (the binary that
// counts allocations).
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "methods/method.h"
#include "problems/core/problem.h"

namespace mbb {
namespace conformance {

/// One problem of the set. `omega` (rad/s) is the largest rate of the motion, the scale
/// the order check's step sizes are chosen on (omega h, not h, decides whether the error
/// is in its asymptotic range).
struct Case {
  std::string label;
  std::string id;
  std::map<std::string, std::string> parameters;
  double omega;
};

/// planar_pendulum (paper 000 eq. 30: l = 1 m, released horizontal: the largest angular
/// rate sqrt(2 g / l) = 4.4 rad/s); stiff_pendulum in both forms (paper 001 eq. 12), started
/// at theta0 = 1 rad so the motion is nonlinear (the default theta0 = 0 only follows the
/// 0.01 rad forced response, a linear problem on which Fox-Goodwin would look fourth order;
/// sqrt(g/L) = 3.13 rad/s); spatial_pendulum (paper 000 eq. 49: l = 0.08 m, released
/// horizontal at v0 = 0.79 m/s: at the bottom v = sqrt(v0^2 + 2 g l) = 1.48 m/s, a rate
/// v/l = 18.5 rad/s).
inline std::vector<Case> Cases() {
  return {{"planar_pendulum", "planar_pendulum", {}, 4.5},
          {"stiff_pendulum form=constrained",
           "stiff_pendulum",
           {{"form", "constrained"}, {"theta0", "1"}},
           3.2},
          {"stiff_pendulum form=minimal",
           "stiff_pendulum",
           {{"form", "minimal"}, {"theta0", "1"}},
           3.2},
          {"spatial_pendulum", "spatial_pendulum", {}, 18.5},
          // The IFToMM simple pendulum in joint coordinates (paper 004's joint-tree
          // formulation: the link angle), so the tree methods are covered; released
          // horizontal from l = 1 m: sqrt(2 g / l) = 4.43 rad/s.
          {"simple_pendulum_iftomm formulation=joint-tree",
           "simple_pendulum_iftomm",
           {{"formulation", "joint-tree"}},
           4.5}};
}

inline Problem BuildCase(const Case& c, std::map<std::string, std::string> overrides = {}) {
  std::map<std::string, std::string> p = c.parameters;
  for (const auto& [k, v] : overrides) p[k] = v;
  return BuildProblem(c.id, ParameterSet(p));
}

/// Horizon of the order and tolerance checks: about half a period of the pendulums.
inline constexpr double kHorizon = 1.0;

/// Number of steps of the coarsest run of the order check, h0 = kHorizon / N0, chosen so
/// that omega h0 = 0.05 for p <= 2 and 0.1 for p > 2. The leading error term then dominates
/// the next one (ratio ~ omega h <= 0.1, <= 0.025 at h0/4), and the differences of the
/// finest runs stay ~1e-10 of the motion or more, far above rounding (~1e-16 per step,
/// ~1e-13 after a thousand steps). Twice these steps are pre-asymptotic on this set: dopri5
/// reads 4.5 on the constrained stiff pendulum at omega h = 0.2 (4.86 at 0.1) and the
/// index-3 Newmark 9.4 on the spatial pendulum at omega h = 0.1 (2.00 at 0.05), where it
/// gains energy (relative drift 1.0 at h = 0.009 s).
inline long CoarsestSteps(int order, double omega) {
  const double c = order <= 2 ? 0.05 : 0.1;
  return static_cast<long>(std::ceil(omega * kHorizon / c));
}

/// Records the last state and the largest constraint residuals and energy deviation of a
/// run. Allocates only at construction (a method's step loop runs through OnStep).
class Recorder final : public StepObserver {
 public:
  explicit Recorder(const Problem& p)
      : q(p.n()),
        v(p.n()),
        dae_(*p.dae),
        ws_(dae_.MakeWorkspace()),
        phi_(p.m()),
        gamma_(p.m()),
        phi_q_(p.m(), p.n()),
        zero_v_(Vector::Zero(p.n())) {}

  void OnStep(const StepSample& s) override {
    t = s.t;
    q = s.q;
    v = s.v;
    if (keep_trajectory) trajectory.push_back({s.t, s.q});
    ++steps;
    if (phi_.size() > 0) {
      dae_.CalcPhi(*ws_, s.t, s.q, phi_);
      position = std::max(position, phi_.lpNorm<Eigen::Infinity>());
      dae_.CalcVelocityResidual(*ws_, s.t, s.q, s.v, phi_);
      velocity = std::max(velocity, phi_.lpNorm<Eigen::Infinity>());
      if (s.a) {
        dae_.CalcPhiQ(*ws_, s.t, s.q, phi_q_);
        dae_.CalcGamma(*ws_, s.t, s.q, s.v, gamma_);
        phi_.noalias() = phi_q_ * *s.a;
        acceleration = std::max(acceleration, (phi_ - gamma_).lpNorm<Eigen::Infinity>());
      }
    }
    if (s.a) reported_acceleration = true;
    const double e = dae_.CalcEnergy(*ws_, s.t, s.q, s.v);
    kinetic_max = std::max(kinetic_max, std::abs(e - dae_.CalcEnergy(*ws_, s.t, s.q, zero_v_)));
    if (steps == 1) e0 = e;
    energy_drift = std::max(energy_drift, std::abs(e - e0));
    if (s.t <= quarter_time) energy_drift_first_quarter = energy_drift;
  }

  double quarter_time = 0.0;  // energy_drift_first_quarter covers t <= quarter_time
  /// If set, every reported (t, q) is kept (this allocates: not for the allocation checks).
  bool keep_trajectory = false;
  std::vector<std::pair<double, Vector>> trajectory;
  double t = 0.0;
  Vector q, v;
  long steps = 0;
  bool reported_acceleration = false;
  double position = 0.0, velocity = 0.0, acceleration = 0.0;
  double e0 = 0.0, energy_drift = 0.0, energy_drift_first_quarter = 0.0;
  double kinetic_max = 0.0;  // largest kinetic energy: the energy scale when E0 = 0

 private:
  const MechanicalDae& dae_;
  std::unique_ptr<DaeWorkspace> ws_;
  Vector phi_, gamma_;
  Matrix phi_q_;
  Vector zero_v_;
};

/// Settings of a fixed-step run with `steps` steps over [t0, t0 + horizon].
inline RunSettings FixedSettings(const Problem& p, double horizon, long steps) {
  RunSettings s;
  s.t0 = p.t0;
  s.t_end = p.t0 + horizon;
  s.h = horizon / static_cast<double>(steps);
  return s;
}

/// Settings of a tolerance-controlled run (atol = rtol / 100, the harness's ratio).
inline RunSettings AdaptiveSettings(const Problem& p, double horizon, double rtol) {
  RunSettings s;
  s.t0 = p.t0;
  s.t_end = p.t0 + horizon;
  s.h = 0.0;
  s.rtol = rtol;
  s.atol = 1e-2 * rtol;
  return s;
}

/// The entry's step mode with its default parameters.
inline StepMode DefaultMode(const MethodEntry& e) {
  return e.step.ModeFor(ParameterSet(), e.parameters);
}

/// Whether the entry's default mode is tolerance-controlled (the harness's rule).
inline bool DefaultIsAdaptive(const MethodEntry& e) { return DefaultMode(e) != StepMode::kFixed; }

/// Whether the entry can run with a fixed step (order check, fixed-step allocations).
inline bool HasFixedStepMode(const MethodEntry& e) {
  return DefaultMode(e) == StepMode::kFixed || DefaultMode(e) == StepMode::kAdaptiveOrFixed;
}

}  // namespace conformance
}  // namespace mbb
