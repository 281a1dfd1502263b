#include "harness/metrics_observer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>

namespace mbb {

MetricsObserver::MetricsObserver(const Problem& problem, const Reference* reference,
                                 bool keep_series, const StabilityBand* band)
    : problem_(problem),
      reference_(reference),
      keep_series_(keep_series),
      band_(band),
      ws_(problem.dae->MakeWorkspace()),
      reference_sign_(Vector::Ones(problem.n())),
      phi_(problem.m()),
      velocity_residual_(problem.m()),
      gamma_(problem.m()),
      accel_residual_(problem.m()),
      outputs_(problem.output_names.size()),
      ref_q_(problem.q0),  // an analytic reference's continuity hint (model_structure.h)
      interp_q_(problem.n()),
      interp_v_(problem.n()),
      ref_v_(Vector::Zero(problem.n())),
      run_out_(problem.output_names.size()),
      ref_out_(problem.output_names.size()),
      phi_q_(problem.m(), problem.n()),
      q_prev_(problem.n()),
      v_prev_(problem.n()),
      a_prev_(problem.n()),
      q_last_(problem.n()),
      v_last_(problem.n()),
      zero_velocity_(Vector::Zero(problem.n())),
      a_cur_(problem.n()),
      a_last_(problem.n()),
      lambda_work_(problem.m()),
      q_mid_(problem.n()),
      v_mid_(problem.n()) {
  for (double period : problem.output_periods) has_periodic_outputs_ |= period > 0.0;
  for (size_t i = 0; i < problem.output_names.size(); ++i)
    if (problem.output_names[i] == problem.revolution_output)
      revolution_index_ = static_cast<int>(i);
  compare_outputs_ = reference_ && problem.calc_outputs && reference_->provides_any_output();
  // Momenta: tracked when the DAE reports them (it allocates nothing per step, the buffers
  // are fixed-size).
  has_momenta_ = problem.dae->capabilities().momenta;
  if (has_momenta_) problem.dae->CalcMomenta(*ws_, problem.q0, problem.v0, linear_, angular_);
  for (const std::string& name : problem.conserved_momentum) {
    const int index = MomentumComponentIndex(name);
    if (index < 0)
      throw InputError("problem " + problem.id + ": conserved_momentum '" + name +
                       "' is not one of linear_x, linear_y, linear_z, angular_x, angular_y, "
                       "angular_z");
    conserved_components_.push_back(index);
  }
}

void MetricsObserver::KeepSeriesRow(const StepSample& s, double pos_res, double vel_res,
                                    double balance, double acc_res) {
  SeriesRow row;
  row.t = s.t;
  row.q.assign(s.q.data(), s.q.data() + s.q.size());
  row.v.assign(s.v.data(), s.v.data() + s.v.size());
  if (s.extra) row.extra.assign(s.extra->data(), s.extra->data() + s.extra->size());
  if (problem_.calc_outputs) {
    row.outputs.assign(outputs_.data(), outputs_.data() + outputs_.size());
  }
  row.position_residual = pos_res;
  row.velocity_residual = vel_res;
  row.energy_balance = balance;
  row.acceleration_residual = acc_res;
  if (s.lambda) row.lambda.assign(s.lambda->data(), s.lambda->data() + s.lambda->size());
  if (has_momenta_)  // this sample's, computed in OnStep
    row.momentum = {linear_[0], linear_[1], linear_[2], angular_[0], angular_[1], angular_[2]};
  series_.push_back(std::move(row));
}

void MetricsObserver::OnStep(const StepSample& s) {
  double pos_res = 0.0, vel_res = 0.0;
  const double acc_res = ConstraintResiduals(s, pos_res, vel_res);
  const double balance = EnergyBalance(s);
  if (!band_) WatchDivergence(s, balance);

  if (s.lambda && s.lambda->size() > 0) {
    have_multipliers_ = true;
    max_multiplier_ = std::max(max_multiplier_, s.lambda->lpNorm<Eigen::Infinity>());
  }
  max_q_deviation_ = std::max(max_q_deviation_, (s.q - problem_.q0).lpNorm<Eigen::Infinity>());
  max_velocity_ = std::max(max_velocity_, s.v.lpNorm<Eigen::Infinity>());
  if (has_momenta_) {
    problem_.dae->CalcMomenta(*ws_, s.q, s.v, linear_, angular_);
    TrackMomenta();
  }

  // Outputs every step when something follows them along the run: the series, the
  // revolution timer, or the unwrapping of periodic (angle) outputs.
  const bool follow_outputs =
      problem_.calc_outputs && (keep_series_ || revolution_index_ >= 0 || has_periodic_outputs_);
  if (follow_outputs) CalcOutputs(s.t, s.q, s.v);
  if (revolution_index_ >= 0 && !metrics_.revolution_period) TimeRevolution(s);
  if (reference_) CompareWithReference(s);
  if (band_) WatchBand(s);

  if (keep_series_) KeepSeriesRow(s, pos_res, vel_res, balance, acc_res);
  RememberSample(s);
  ++metrics_.samples;
}

double MetricsObserver::ConstraintResiduals(const StepSample& s, double& pos_res, double& vel_res) {
  const MechanicalDae& dae = *problem_.dae;
  double acc_res = std::numeric_limits<double>::quiet_NaN();
  if (problem_.m() > 0) {
    dae.CalcPhi(*ws_, s.t, s.q, phi_);
    dae.CalcVelocityResidual(*ws_, s.t, s.q, s.v, velocity_residual_);
    pos_res = phi_.lpNorm<Eigen::Infinity>();
    vel_res = velocity_residual_.lpNorm<Eigen::Infinity>();
    if (s.a) {
      dae.CalcPhiQ(*ws_, s.t, s.q, phi_q_);
      dae.CalcGamma(*ws_, s.t, s.q, s.v, gamma_);
      accel_residual_.noalias() = phi_q_ * (*s.a);
      acceleration_scale_ =
          std::max({acceleration_scale_, accel_residual_.lpNorm<Eigen::Infinity>(),
                    gamma_.lpNorm<Eigen::Infinity>()});
      accel_residual_ -= gamma_;
      const double acc = accel_residual_.lpNorm<Eigen::Infinity>();
      acc_res = acc;
      metrics_.acceleration_residual_max =
          std::max(metrics_.acceleration_residual_max.value_or(0.0), acc);
    }
  }
  metrics_.position_residual_max = std::max(metrics_.position_residual_max, pos_res);
  metrics_.velocity_residual_max = std::max(metrics_.velocity_residual_max, vel_res);
  return acc_res;
}

double MetricsObserver::EnergyBalance(const StepSample& s) {
  const MechanicalDae& dae = *problem_.dae;
  // Energy balance: E(t) - E(0) - W_ext(t). W_ext by Gauss-Legendre quadrature along the
  // quintic Hermite interpolant of each accepted step (WorkAlongStep), so the quadrature
  // error stays below the integrator's own even at the large steps of a high-order method;
  // the trapezoidal rule's O(h^3) showed as a spurious drift of 2e-5 on the damped double
  // pendulum at rtol 1e-10, Simpson's rule at a cubic Hermite midpoint as 6.8e-4 J under
  // odeint-rkf78 at rtol 1e-8.
  const double energy = dae.CalcEnergy(*ws_, s.t, s.q, s.v);
  const double power = dae.CalcAppliedPower(*ws_, s.t, s.q, s.v);
  const double kinetic = energy - dae.CalcEnergy(*ws_, s.t, s.q, zero_velocity_);  // T = E - V
  const bool forced = power != 0.0 || (have_previous_ && power_prev_ != 0.0);
  // The accelerations of both ends of a forced step. A method's own are kept at every sample
  // (a copy); solved ones only where the power is on, and for the step's start afterwards
  // when the power was off there: a run from rest has P(t0) = 0, and without a(t0) its first
  // step fell back to the trapezoidal rule, whose O(h^3) stayed in the balance as a constant
  // offset (3.3e-4 J on the double pendulum at any tolerance, odeint-rkf78 from its first
  // step of h = 0.1).
  bool a_valid = false;
  if (s.a) {
    a_cur_ = *s.a;
    a_valid = true;
  } else if (forced) {
    AccelerationSolver* solver = Accelerations();
    a_valid = solver && solver->Solve(s.t, s.q, s.v, a_cur_, lambda_work_);
    if (a_valid && have_previous_ && !a_last_valid_)
      a_last_valid_ = solver->Solve(t_last_, q_last_, v_last_, a_last_, lambda_work_);
  }
  const double potential = energy - kinetic;
  if (!have_previous_) {
    energy0_ = energy;
    potential0_ = potential;
    metrics_.energy_initial = energy;
  } else if (forced && a_valid && a_last_valid_) {
    const double h = s.t - t_last_;
    if (SmoothAccelerations(h, s.q, s.v)) {
      work_ += WorkAlongStep(h, s.q, s.v);
    } else {
      // The midpoint rule at the step's mean state: the trapezoidal scheme's own energy
      // balance (E1 - E0 = h P at the mean velocity for a linear damper), in which a
      // velocity that alternates from step to step cancels as it does in the method.
      q_mid_ = 0.5 * (q_last_ + s.q);
      v_mid_ = 0.5 * (v_last_ + s.v);
      work_ += h * dae.CalcAppliedPower(*ws_, t_last_ + 0.5 * h, q_mid_, v_mid_);
    }
  } else {
    work_ += 0.5 * (power + power_prev_) * (s.t - t_last_);
  }
  power_prev_ = power;
  if (a_valid) a_last_.swap(a_cur_);  // a_cur_ is written afresh at the next sample
  a_last_valid_ = a_valid;
  const double balance = energy - energy0_ - work_;
  energy_scale_ = std::max({energy_scale_, std::abs(energy0_), std::abs(kinetic)});
  // Without numerical error T - T0 = W_ext - (V - V0): the kinetic energy a run can gain is
  // bounded by what the potential and the applied forces exchange with it.
  if (!have_previous_) exchangeable_energy_ = std::max(std::abs(energy0_), std::abs(kinetic));
  exchangeable_energy_ =
      std::max({exchangeable_energy_, std::abs(potential - potential0_), std::abs(work_)});
  if (std::isfinite(balance))
    metrics_.energy_max_abs_drift = std::max(metrics_.energy_max_abs_drift, std::abs(balance));
  else
    metrics_.energy_max_abs_drift = std::numeric_limits<double>::infinity();
  metrics_.energy_final = energy;
  return balance;
}

// Keep the previous and the current sample for interpolation.
void MetricsObserver::RememberSample(const StepSample& s) {
  if (have_previous_) {
    q_prev_ = q_last_;
    v_prev_ = v_last_;
    t_prev_ = t_last_;
  }
  q_last_ = s.q;
  v_last_ = s.v;
  t_last_ = s.t;
  if (!have_previous_) {
    q_prev_ = s.q;
    v_prev_ = s.v;
  }
  t_prev_ = have_previous_ ? t_prev_ : s.t;
  have_previous_ = true;
}

// Made on the first forced step of a method that reports no accelerations: its dense n x n
// matrices are not affordable for every model (pendulum_chain with N = 1e5: 80 GB each),
// and most runs never need them. Without it the work integral falls back to the trapezoidal
// rule (a_valid false).
AccelerationSolver* MetricsObserver::Accelerations() {
  if (!accel_solver_ && !accel_unaffordable_) {
    try {
      accel_ws_ = problem_.dae->MakeWorkspace();
      accel_solver_ = std::make_unique<AccelerationSolver>(*problem_.dae, *accel_ws_);
    } catch (const std::bad_alloc&) {
      accel_ws_.reset();
      accel_unaffordable_ = true;
    }
  }
  return accel_solver_.get();
}

// Momenta along the run: the first report is p(0); then max |p(t) - p(0)| per component
// (infinite once a component is not finite: a diverged run).
void MetricsObserver::TrackMomenta() {
  if (!have_momenta0_) {
    linear0_ = linear_;
    angular0_ = angular_;
    linear_drift_.setZero();
    angular_drift_.setZero();
    have_momenta0_ = true;
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const double dl = std::abs(linear_[i] - linear0_[i]), da = std::abs(angular_[i] - angular0_[i]);
    linear_drift_[i] = std::isfinite(dl) ? std::max(linear_drift_[i], dl)
                                         : std::numeric_limits<double>::infinity();
    angular_drift_[i] = std::isfinite(da) ? std::max(angular_drift_[i], da)
                                          : std::numeric_limits<double>::infinity();
  }
}

// The first time the angle output has turned by 2 pi from its initial value, by linear
// interpolation between accepted steps (error O(h^2) of the angle's curvature; far below the
// 1e-4 s differences between the slider-crank variants at the default steps).
void MetricsObserver::CalcOutputs(double t, const Vector& q, const Vector& v) {
  problem_.calc_outputs(t, q, v, outputs_);
  const auto& periods = problem_.output_periods;
  if (periods.empty()) return;
  if (!have_unwrapped_) unwrapped_last_.assign(outputs_.data(), outputs_.data() + outputs_.size());
  for (size_t k = 0; k < periods.size() && k < unwrapped_last_.size(); ++k) {
    if (periods[k] <= 0.0) continue;
    outputs_[k] += periods[k] * std::round((unwrapped_last_[k] - outputs_[k]) / periods[k]);
    unwrapped_last_[k] = outputs_[k];
  }
  have_unwrapped_ = true;
}

void MetricsObserver::TimeRevolution(const StepSample& s) {  // outputs_ is current
  const double angle = outputs_[revolution_index_];
  if (!have_previous_) {
    revolution_angle0_ = revolution_angle_last_ = angle;
    return;
  }
  const double turned = std::abs(angle - revolution_angle0_);
  const double turned_last = std::abs(revolution_angle_last_ - revolution_angle0_);
  if (turned >= 2.0 * M_PI && turned_last < 2.0 * M_PI) {
    const double fraction = (2.0 * M_PI - turned_last) / (turned - turned_last);
    metrics_.revolution_period = t_last_ + fraction * (s.t - t_last_) - problem_.t0;
  }
  revolution_angle_last_ = angle;
}

void MetricsObserver::WatchBand(const StepSample& s) {
  auto check = [&](double value, double limit, const char* what) {
    if (!std::isfinite(limit)) return;
    const double ratio = value / limit;
    max_band_ratio_ = std::max(max_band_ratio_, std::isfinite(ratio) ? ratio : 1e300);
    if (!(ratio <= 1.0) && !stop_) {
      stop_ = true;
      char buffer[160];
      std::snprintf(buffer, sizeof buffer, "%s = %.3g left its band %.3g at t = %.6g", what, value,
                    limit, s.t);
      stop_reason_ = buffer;
    }
  };
  check((s.q - problem_.q0).lpNorm<Eigen::Infinity>(), band_->q_deviation, "|q - q0|_inf");
  check(s.v.lpNorm<Eigen::Infinity>(), band_->velocity, "|v|_inf");
  if (s.lambda && s.lambda->size() > 0)
    check(s.lambda->lpNorm<Eigen::Infinity>(), band_->multiplier, "|lambda|_inf");
  if (problem_.m() > 0)
    check(velocity_residual_.lpNorm<Eigen::Infinity>(), band_->velocity_residual,
          "|Phi_q v + Phi_t|_inf");
}

// The default divergence criterion of every run (docs/divergence.md): the growth criterion
// of the stability search with a generous factor, |q - q0|_inf > kDivergenceFactor x the
// position scale (|q0|_inf, Problem::stability_amplitude, at least 1), and the energy balance
// |E - E0 - W_ext| > kEnergyBalanceFactor x the initial energy scale (max |E0|, |T0|).
// The initial energy scale is a scale only if it is not rounding noise next to the energy the
// run has seen (double_pendulum starts at rest with E0 = 4e-15 J and falls through ~1 J): it
// must be above 1e-6 of the largest |E0|, |T| so far; otherwise only q is watched. A diverging
// run crosses 10 x the initial scale long before its kinetic energy reaches 1e6 x it.
// A run that starts at rest at the zero of its potential (planar_pendulum, horizontal) has no
// initial scale at all; there the balance is held against the energy the run can exchange,
// max(|E0|, |T0|, |V - V0|, |W_ext|) so far, with a factor 1e3: exactly, T - T0 = W_ext -
// (V - V0), and V is bounded where the constraints bound q, so a balance 1e3 times that is
// kinetic energy from nowhere (classical index-3 Newmark on the planar pendulum at h = 1e-3
// reached 6.7e9 J from a 1 kg, 1 m pendulum whose potential falls by at most m g L = 9.81 J
// from its start, and was `ok`).
bool MetricsObserver::EnergyScaleResolved() const {
  return energy_scale0_ > 0.0 && energy_scale0_ > 1e-6 * energy_scale_;
}

// |q - q0|_inf with each periodic coordinate (Problem::coordinate_periods: an angle that may
// turn without bound) measured on its circle: a crank turning at speed is not diverging
// (andrews_squeezer's beta passed 1e3 x its scale at t = 0.43 s of an accurate run). A NaN
// stays a NaN, so a non-finite q still trips the criterion.
double MetricsObserver::DistanceFromStart(const Vector& q) const {
  const std::vector<double>& periods = problem_.coordinate_periods;
  double distance = 0.0;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    const double period = static_cast<size_t>(i) < periods.size() ? periods[i] : 0.0;
    const double d = q[i] - problem_.q0[i];
    const double on_circle = period > 0.0 ? std::abs(std::remainder(d, period)) : std::abs(d);
    if (std::isnan(on_circle)) return on_circle;
    distance = std::max(distance, on_circle);
  }
  return distance;
}

// The applied power's integral over the step from the last sample to (q, v), by 3-point
// Gauss-Legendre quadrature (exact for polynomials of degree 5, error O(h^7) a step) along the
// quintic Hermite interpolant of q through both samples' q, v and a, with v its derivative.
// The interpolant is O(h^6) in q and O(h^5) in v, and v is consistent with q: the work of a
// conservative applied force (a spring's P = -dV/dt) is the difference of V between the ends
// up to the quadrature's O(h^7), whatever the interpolant's own error. The earlier Simpson
// rule at the cubic Hermite midpoint (v from a, inconsistent with q) was O(h^4) over a run:
// on the double pendulum's torsional springs at the steps of a high-order method it and
// the trapezoidal first step (EnergyBalance) reported a drift 1e5 times the run's own error
// (odeint-rkf78 at rtol 1e-8: 6.8e-4 J with the outputs within 5e-9).
double MetricsObserver::WorkAlongStep(double h, const Vector& q, const Vector& v) {
  const MechanicalDae& dae = *problem_.dae;
  static const double kOffset = std::sqrt(15.0) / 10.0;
  const double nodes[3] = {0.5 - kOffset, 0.5, 0.5 + kOffset};
  constexpr double kWeights[3] = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};
  double work = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double x = nodes[i], x2 = x * x, x3 = x2 * x, x4 = x3 * x, x5 = x4 * x;
    // Quintic Hermite basis on [0, 1] (values and derivatives at both ends) and its slopes.
    const double h_q1 = 10 * x3 - 15 * x4 + 6 * x5;         // q1 (q0 takes 1 - h_q1)
    const double h_v0 = x - 6 * x3 + 8 * x4 - 3 * x5;       // h v0
    const double h_v1 = -4 * x3 + 7 * x4 - 3 * x5;          // h v1
    const double h_a0 = 0.5 * (x2 - 3 * x3 + 3 * x4 - x5);  // h^2 a0
    const double h_a1 = 0.5 * (x3 - 2 * x4 + x5);           // h^2 a1
    const double d_q1 = 30 * x2 - 60 * x3 + 30 * x4;
    const double d_v0 = 1 - 18 * x2 + 32 * x3 - 15 * x4;
    const double d_v1 = -12 * x2 + 28 * x3 - 15 * x4;
    const double d_a0 = 0.5 * (2 * x - 9 * x2 + 12 * x3 - 5 * x4);
    const double d_a1 = 0.5 * (3 * x2 - 8 * x3 + 5 * x4);
    q_mid_ = q_last_ + h_q1 * (q - q_last_) + h * (h_v0 * v_last_ + h_v1 * v) +
             (h * h) * (h_a0 * a_last_ + h_a1 * a_cur_);
    v_mid_ = (d_q1 / h) * (q - q_last_) + d_v0 * v_last_ + d_v1 * v +
             h * (d_a0 * a_last_ + d_a1 * a_cur_);
    work += kWeights[i] * dae.CalcAppliedPower(*ws_, t_last_ + x * h, q_mid_, v_mid_);
  }
  return h * work;
}

// Whether the step's reported accelerations belong to its positions and velocities, so that
// they can shape the Hermite interpolant. The cubic through (q0, v0, q1, v1) has the
// acceleration change da_H = (6 h (v0 + v1) - 12 (q1 - q0)) / h^2 over the step; a smooth
// solution's reported change a1 - a0 agrees with it to O(h^2). Classical index-3 Newmark
// reports accelerations that alternate by 1e4-1e5 m/s^2 from step to step while its q and v
// are those of a constant acceleration over the step (da_H = 0 exactly for gamma = 1/2,
// beta = 1/4): on flyball_governor at h = 2e-4 the stiff damper's power at that midpoint
// summed to W_ext = -2393 J against IDA's -0.0026 J, and an accurate run was called
// unstable at t = 2.64. Then the midpoint rule at the step's mean state. The bound: half
// the reported change (Newmark's alternation misses it by its whole size) plus 1e-3 of the
// accelerations (rounding in da_H, and the O(h^2) disagreement of a large adaptive step).
bool MetricsObserver::SmoothAccelerations(double h, const Vector& q, const Vector& v) const {
  double mismatch = 0.0, reported = 0.0, size = 0.0;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    const double da = a_cur_[i] - a_last_[i];
    const double da_h = (6.0 * h * (v_last_[i] + v[i]) - 12.0 * (q[i] - q_last_[i])) / (h * h);
    mismatch = std::max(mismatch, std::abs(da - da_h));
    reported = std::max(reported, std::abs(da));
    size = std::max({size, std::abs(a_cur_[i]), std::abs(a_last_[i])});
  }
  return mismatch <= 0.5 * reported + 1e-3 * size;
}

void MetricsObserver::WatchDivergence(const StepSample& s, double balance) {
  if (!divergence_scales_set_) {
    divergence_scales_set_ = true;
    q_scale_ = std::max({problem_.q0.lpNorm<Eigen::Infinity>(), problem_.stability_amplitude, 1.0});
    energy_scale0_ = energy_scale_;
  }
  if (stop_) return;
  char buffer[200];
  const double dq = DistanceFromStart(s.q);
  if (!(dq <= kDivergenceFactor * q_scale_)) {
    std::snprintf(buffer, sizeof buffer,
                  "diverged at t = %.6g: |q - q0|_inf = %.3g grew beyond %g x its scale %.3g", s.t,
                  dq, kDivergenceFactor, q_scale_);
  } else if (EnergyScaleResolved() &&
             !(std::abs(balance) <= kEnergyBalanceFactor * energy_scale0_)) {
    std::snprintf(buffer, sizeof buffer,
                  "diverged at t = %.6g: energy balance |E - E0 - W_ext| = %.3g J grew beyond %g "
                  "x the energy scale %.3g J",
                  s.t, std::abs(balance), kEnergyBalanceFactor, energy_scale0_);
  } else if (!(std::abs(balance) <= kRunawayEnergyFactor * exchangeable_energy_)) {
    std::snprintf(buffer, sizeof buffer,
                  "diverged at t = %.6g: energy balance |E - E0 - W_ext| = %.3g J grew beyond %g "
                  "x the energy the potential and the applied forces exchanged (%.3g J)",
                  s.t, std::abs(balance), kRunawayEnergyFactor, exchangeable_energy_);
  } else {
    return;
  }
  stop_ = true;
  stop_reason_ = buffer;
}

void MetricsObserver::Finish(double t_end, RunRecord& record) {
  record.run_warnings_begin = record.warnings.size();
  metrics_.external_work = work_;
  metrics_.energy_max_rel_drift =
      energy_scale_ > 0.0 ? metrics_.energy_max_abs_drift / energy_scale_ : 0.0;
  if (!band_ && record.status == RunStatus::kOk &&
      metrics_.energy_max_rel_drift > kEnergyDriftWarning) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer,
                  "energy drift %.3g of the energy scale exceeds the warning threshold %g: the "
                  "run finished but may be far from the solution",
                  metrics_.energy_max_rel_drift, kEnergyDriftWarning);
    record.warnings.push_back(buffer);
    record.drift_warning = true;
  }
  // Judged on the whole run's scale; the time is the first sample whose error passed the
  // factor of the scale seen by then.
  const double largest = compare_outputs_
                             ? (output_scale_ > 0.0 ? max_output_err_ / output_scale_ : 0.0)
                             : (ref_scale_ > 0.0 ? max_err_ / ref_scale_ : 0.0);
  if (!band_ && record.status == RunStatus::kOk && left_reference_at_ &&
      !(largest <= kOutputsFarFactor)) {
    char buffer[400];
    std::snprintf(buffer, sizeof buffer,
                  "the run left the reference at t = %.6g (error above %g of the reference's "
                  "scale; largest %.3g): outputs_meaningful false, it is no approximation of "
                  "the solution (another branch at a singular position, or too coarse a step)",
                  *left_reference_at_, kOutputsFarFactor, largest);
    record.warnings.push_back(buffer);
    record.left_reference_at = left_reference_at_;
  }
  // The reported accelerations (and with them the multipliers) must satisfy the
  // acceleration-level constraint Phi_q a = gamma; classical index-3 Newmark's alternate
  // about it while its positions stay accurate (andrews_squeezer, (0.5, 0.25), h = 2e-6:
  // residual 3.4e3 beside position error 2e-7, where [001] s6 says the scheme fails).
  const double acceleration_residual = metrics_.acceleration_residual_max.value_or(0.0);
  if (!band_ && record.status == RunStatus::kOk && acceleration_scale_ > 0.0 &&
      !(acceleration_residual <= kAccelerationResidualWarning * acceleration_scale_)) {
    char buffer[320];
    std::snprintf(buffer, sizeof buffer,
                  "acceleration-level residual |Phi_q a - gamma| = %.3g is %.3g of its scale "
                  "%.3g: the reported accelerations and multipliers do not satisfy the "
                  "constraints (they oscillate), whatever the positions' accuracy",
                  acceleration_residual, acceleration_residual / acceleration_scale_,
                  acceleration_scale_);
    record.warnings.push_back(buffer);
  }
  if (have_multipliers_) metrics_.multiplier_max = max_multiplier_;
  if (reference_ && compared_ > 0) {
    ErrorMetrics e;
    e.reference = reference_->id;
    e.position_max_abs = max_err_;
    e.position_max_rel = ref_scale_ > 0.0 ? max_err_ / ref_scale_ : max_err_;
    e.scd = std::min(reference_->digits, e.position_max_rel > 0.0 ? -std::log10(e.position_max_rel)
                                                                  : reference_->digits);
    e.compared_samples = compared_;
    if (compare_outputs_) {
      e.output_max_abs = max_output_err_;
      e.output_max_rel = output_scale_ > 0.0 ? max_output_err_ / output_scale_ : max_output_err_;
      e.output_scd =
          std::min(reference_->digits,
                   *e.output_max_rel > 0.0 ? -std::log10(*e.output_max_rel) : reference_->digits);
      for (size_t k = 0; k < reference_->output_provided.size(); ++k)
        if (reference_->output_provided[k]) e.outputs_compared.push_back(problem_.output_names[k]);
    }
    metrics_.error = e;
  }
  if (have_momenta0_) {
    MomentumMetrics p;
    for (int i = 0; i < 3; ++i) {
      p.linear_initial[i] = linear0_[i];
      p.angular_initial[i] = angular0_[i];
      p.linear_max_abs_drift[i] = linear_drift_[i];
      p.angular_max_abs_drift[i] = angular_drift_[i];
    }
    p.conserved_components = problem_.conserved_momentum;
    for (int index : conserved_components_) {
      const double drift = index < 3 ? linear_drift_[index] : angular_drift_[index - 3];
      p.conserved_max_abs_drift = std::max(p.conserved_max_abs_drift.value_or(0.0), drift);
    }
    metrics_.momentum = p;
  }
  record.metrics = metrics_;
  record.series = std::move(series_);

  // Final state at t_end: the last sample, or a cubic Hermite interpolation between the
  // last two samples when a fixed-step run went past t_end.
  if (!have_previous_) return;
  Vector q = q_last_, v = v_last_;
  double t = t_last_;
  if (t_last_ > t_end + 1e-12 * (1.0 + std::abs(t_end)) && t_prev_ < t_last_) {
    const double h = t_last_ - t_prev_, s = (t_end - t_prev_) / h;
    const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
    const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
    q = h00 * q_prev_ + h10 * h * v_prev_ + h01 * q_last_ + h11 * h * v_last_;
    v = (1 - s) * v_prev_ + s * v_last_;  // velocities: linear (no acceleration stored)
    t = t_end;
    record.final_state_interpolated = true;
  }
  record.final_state_valid = true;
  record.final_t = t;
  record.final_q.assign(q.data(), q.data() + q.size());
  record.final_v.assign(v.data(), v.data() + v.size());
  if (problem_.calc_outputs) {
    CalcOutputs(t, q, v);
    record.outputs.assign(outputs_.data(), outputs_.data() + outputs_.size());
  }
}

}  // namespace mbb
