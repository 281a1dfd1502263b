// MetricsObserver (metrics_observer.h): the error against a reference. The run's q and
// outputs at the reference's sample times (the run's own sample, or its cubic Hermite
// interpolant between accepted steps when samples=interpolate), relative to the
// reference's scale; significant correct digits follow in Finish (docs/result-schema.md).
#include <algorithm>
#include <cmath>

#include "harness/metrics_observer.h"

namespace mbb {

void MetricsObserver::InterpolateState(double t, const StepSample& cur, Vector& q,
                                       Vector& v) const {
  // q_last_/t_last_ hold the sample before `cur` while OnStep runs.
  const double t0 = t_last_, h = cur.t - t_last_;
  if (h <= 0.0) {
    q = cur.q;
    v = cur.v;
    return;
  }
  const double s = (t - t0) / h;
  const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
  const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
  q = h00 * q_last_ + h10 * h * v_last_ + h01 * cur.q + h11 * h * cur.v;
  // d/dt of the same cubic: O(h^3) where q is O(h^4).
  const double d00 = 6 * s * (s - 1), d10 = (1 - s) * (1 - 3 * s);
  const double d01 = -d00, d11 = s * (3 * s - 2);
  v = (d00 / h) * q_last_ + d10 * v_last_ + (d01 / h) * cur.q + d11 * cur.v;
}

// |q - q_ref|_inf, a unit-quaternion block (Problem::unit_quaternion_offsets) compared with
// the nearer of +-q_ref: e and -e are one attitude, and Euler parameters mapped back from
// joint coordinates may take either sign from step to step (the tree methods on gyro_top
// in euler-parameters reported a 198 % error for outputs exact to 1.8e-13).
double MetricsObserver::DistanceToReference(const Vector& q, const Vector& q_ref) const {
  if (problem_.unit_quaternion_offsets.empty()) return (q - q_ref).lpNorm<Eigen::Infinity>();
  // The reference's sign per coordinate: -1 on a quaternion block nearer to -q_ref.
  reference_sign_.setOnes();
  for (int offset : problem_.unit_quaternion_offsets) {
    const auto e = q.segment<4>(offset);
    const auto e_ref = q_ref.segment<4>(offset);
    if ((e + e_ref).lpNorm<Eigen::Infinity>() < (e - e_ref).lpNorm<Eigen::Infinity>())
      reference_sign_.segment<4>(offset).setConstant(-1.0);
  }
  return (q - reference_sign_.cwiseProduct(q_ref)).lpNorm<Eigen::Infinity>();
}

void MetricsObserver::Accumulate(double t, const Vector& q, const Vector& v, const Vector& q_ref,
                                 const Vector* out_ref) {
  const double error = DistanceToReference(q, q_ref);
  max_err_ = std::max(max_err_, error);
  ref_scale_ = std::max(ref_scale_, q_ref.lpNorm<Eigen::Infinity>());
  ++compared_;
  // Judged on the outputs where the reference provides them (what the run is for: a
  // spinning top's directors may be a phase behind at a coarse step while its outputs hold),
  // on the positions otherwise.
  bool far = !(error <= kOutputsFarFactor * ref_scale_);
  if (compare_outputs_ && out_ref) {
    problem_.calc_outputs(t, q, v, run_out_);
    far = !(AccumulateOutputs(*out_ref) <= kOutputsFarFactor * output_scale_);
  }
  if (far && !left_reference_at_) left_reference_at_ = t;
}

// Output error over the outputs the reference provides; a periodic output (an angle the
// run unwraps) is compared modulo its period, as the reference holds it on any branch.
// Returns this sample's largest output error.
double MetricsObserver::AccumulateOutputs(const Vector& out_ref) {
  const auto& periods = problem_.output_periods;
  double sample_error = 0.0;
  for (Eigen::Index k = 0; k < out_ref.size(); ++k) {
    if (!reference_->output_provided[k]) continue;
    double d = run_out_[k] - out_ref[k];
    const double period = static_cast<size_t>(k) < periods.size() ? periods[k] : 0.0;
    if (period > 0.0) d -= period * std::round(d / period);
    max_output_err_ = std::isfinite(d) ? std::max(max_output_err_, std::abs(d))
                                       : std::numeric_limits<double>::infinity();  // a diverged run
    sample_error = std::isfinite(d) ? std::max(sample_error, std::abs(d))
                                    : std::numeric_limits<double>::infinity();
    output_scale_ = std::max(output_scale_, std::abs(out_ref[k]));
  }
  return sample_error;
}

void MetricsObserver::CompareWithReference(const StepSample& s) {
  // The last step of a fixed-step run can land a rounding above t_max (3000 * 1e-5 >
  // 0.03): same 1e-12 relative slack as the sample matching below.
  if (s.t > reference_->t_max + 1e-12 * (1.0 + std::abs(reference_->t_max))) return;
  if (reference_->evaluate) {
    // The continuity hint is the method's own q: a closed form gives orientations, not turn
    // counts, so a chart angle that wraps (a joint tree's Euler and link angles) is
    // compared within pi of the method's (a top spinning 6.8 rad per sample cannot be
    // unwrapped against the previous sample). Outputs are unaffected.
    if (s.q.allFinite()) ref_q_ = s.q;
    reference_->evaluate(s.t, ref_q_);
    if (compare_outputs_) {
      // Without reference velocities ref_v_ stays zero and the outputs that read v are
      // not provided (AttachOutputs), so that zero never enters the error.
      if (reference_->evaluate_velocity) reference_->evaluate_velocity(s.t, ref_v_);
      problem_.calc_outputs(s.t, ref_q_, ref_v_, ref_out_);
    }
    Accumulate(s.t, s.q, s.v, ref_q_, &ref_out_);
    return;
  }
  const bool has_outputs = reference_->outputs.size() == reference_->times.size();
  while (next_reference_sample_ < reference_->times.size() &&
         reference_->times[next_reference_sample_] <= s.t) {
    const size_t k = next_reference_sample_;
    const double tr = reference_->times[k];
    const Vector* out_ref = has_outputs ? &reference_->outputs[k] : nullptr;
    if (std::abs(tr - s.t) <= 1e-12 * (1.0 + std::abs(tr)) || !have_previous_) {
      if (std::abs(tr - s.t) <= 1e-12 * (1.0 + std::abs(tr)))
        Accumulate(s.t, s.q, s.v, reference_->positions[k], out_ref);
    } else {
      InterpolateState(tr, s, interp_q_, interp_v_);
      Accumulate(tr, interp_q_, interp_v_, reference_->positions[k], out_ref);
    }
    ++next_reference_sample_;
  }
}

}  // namespace mbb
