// Analytic reference for a heavy symmetric top in steady precession (paper 002 s5.1, eqs
// (164)-(171)), found from the problem's ModelStructure (no problem id): a spatial model
// with one rigid body on a spherical joint to the ground (the tip), uniform gravity as the
// only force, an inertia symmetric about the axis d3 from the tip to the centre of mass, and
// an initial angular velocity w0 = omega_p e3 + omega_s d3 (e3 = up, against gravity) with
// the steady-precession spin rate of eq (165):
//   omega_s = M g L / (M3 omega_p) + (M1 - M3) / M3 omega_p cos(theta),
//   M1 = J1 + M L^2, M3 = J3 (eq 168), L = |tip - centre of mass|, cos(theta) = e3 . d3.
// Then the top turns at omega_p about e3 and at omega_s about its axis at constant
// nutation: R(t) = R_e3(omega_p t) R0 R_d3(omega_s t), i.e. the Euler parameters
// e(t) = q_e3(omega_p t) e0 q_d3(omega_s t) (continuous in t from the start value), the
// centre of mass tip + R(t) (centre - tip in body axes) (eq 169). For the catalogue's cone
// this is R(t) = Rz(omega_p t) Rx(theta) Rz(omega_s t). Closed form in a few trigonometric
// evaluations: we claim 13 digits, far beyond what a test uses. Refused unless the problem
// starts on this motion (omega_s of eq (165) to 1e-10 relative; a changed omega_s is
// another motion).
#include <Eigen/Geometry>
#include <cmath>

#include "problems/model/body_motion.h"
#include "reference/reference.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

struct SteadyPrecession {
  V3 tip, up, axis_body, centre_body;  // centre_body: tip to centre of mass, body axes
  Eigen::Quaterniond e0;
  double omega_p, omega_s;
  void At(double t, BodyMotion& b) const {
    const Eigen::Quaterniond e = Eigen::Quaterniond(Eigen::AngleAxisd(omega_p * t, up)) * e0 *
                                 Eigen::Quaterniond(Eigen::AngleAxisd(omega_s * t, axis_body));
    b.orientation = e;
    const V3 arm = e * centre_body;
    b.position = tip + arm;
    b.angular_velocity = omega_p * up + omega_s * (e * axis_body);  // eq (171)
    b.velocity = b.angular_velocity.cross(arm);                     // eq (170)
  }
};

std::optional<SteadyPrecession> Recognise(const ModelStructure& s, const BodyMotion& start) {
  const ModelDescription& m = s.model;
  if (m.dimension != 3 || m.bodies.size() != 1 || m.joints.size() != 1 || !m.drivers.empty())
    return std::nullopt;
  const BodyDescription& body = m.bodies[0];
  const JointDescription& joint = m.joints[0];
  if (body.kind != BodyKind::kRigid || joint.kind != JointKind::kSpherical) return std::nullopt;
  const bool ground_is_a = joint.body_a == "ground";
  if (ground_is_a == (joint.body_b == "ground")) return std::nullopt;
  V3 gravity = V3::Zero();
  for (const ForceDescription& f : m.forces) {
    if (f.kind != ForceKind::kGravity) return std::nullopt;
    gravity += f.vector;
  }
  const double g = gravity.norm();
  const V3 tip_in_body = ground_is_a ? joint.point_b : joint.point_a;
  const double length = tip_in_body.norm();
  if (g == 0.0 || length == 0.0) return std::nullopt;
  SteadyPrecession p;
  p.tip = ground_is_a ? joint.point_a : joint.point_b;
  p.up = -gravity / g;
  p.centre_body = -tip_in_body;
  p.axis_body = p.centre_body / length;  // d3 in body axes
  // Symmetric about d3: I = J1 (1 - d d^T) + J3 d d^T.
  const Eigen::Matrix3d& inertia = body.inertia;
  const double j3 = p.axis_body.dot(inertia * p.axis_body);
  const double j1 = 0.5 * (inertia.trace() - j3);
  const Eigen::Matrix3d dd = p.axis_body * p.axis_body.transpose();
  const Eigen::Matrix3d symmetric = j1 * (Eigen::Matrix3d::Identity() - dd) + j3 * dd;
  if ((inertia - symmetric).norm() > 1e-12 * inertia.norm() || j3 <= 0.0) return std::nullopt;
  // w0 = omega_p e3 + omega_s d3 (least squares in that basis; it must be exact).
  p.e0 = start.orientation;
  const V3 d3 = p.e0 * p.axis_body;
  const double cos_theta = p.up.dot(d3);
  if (1.0 - std::abs(cos_theta) < 1e-9) return std::nullopt;  // upright: no precession axis
  Eigen::Matrix<double, 3, 2> basis;
  basis << p.up, d3;
  const Eigen::Vector2d rates = basis.colPivHouseholderQr().solve(start.angular_velocity);
  if ((basis * rates - start.angular_velocity).norm() > 1e-12 * start.angular_velocity.norm())
    return std::nullopt;
  p.omega_p = rates[0];
  p.omega_s = rates[1];
  if (p.omega_p == 0.0) return std::nullopt;
  const double m1 = j1 + body.mass * length * length, m3 = j3;  // eq (168)
  const double steady = body.mass * g * length / (m3 * p.omega_p) +
                        (m1 - m3) / m3 * p.omega_p * cos_theta;  // eq (165)
  if (std::abs(p.omega_s - steady) > 1e-10 * std::abs(steady)) return std::nullopt;
  return p;
}

}  // namespace

std::optional<Reference> GyroTopReference(const Problem& problem) {
  if (!problem.structure) return std::nullopt;
  const ModelStructure& s = *problem.structure;
  if (!BodyCoordinatesUnsupported(s, problem.n()).empty()) return std::nullopt;
  std::vector<BodyMotion> bodies;
  BodiesFromCoordinates(s, problem.q0, problem.v0, bodies);
  if (bodies.size() != 1) return std::nullopt;
  const auto precession = Recognise(s, bodies[0]);
  if (!precession) return std::nullopt;
  // The closed form must start at the problem's (q0, v0). q enters as the continuity hint of
  // CoordinatesFromBodies (a joint angle is unwrapped next to it): the start itself, never
  // uninitialised memory, which once put the angle 2 pi k away and lost the reference.
  Vector q = problem.q0, v = problem.v0;
  precession->At(0.0, bodies[0]);
  CoordinatesFromBodies(s, bodies, q, v);
  if ((q - problem.q0).lpNorm<Eigen::Infinity>() > 1e-12 * (1.0 + problem.q0.norm()) ||
      (v - problem.v0).lpNorm<Eigen::Infinity>() > 1e-10 * (1.0 + problem.v0.norm()))
    return std::nullopt;
  Reference ref;
  ref.id = problem.id + "/analytic";
  ref.provenance =
      "steady precession, 002 eqs (164)-(171): R(t) = R_e3(omega_p t) R0 R_d3(omega_s t), "
      "omega_s from eq (165); reference/analytic_gyro_top.cc";
  ref.digits = 13.0;
  ref.t_max = 1e3;
  ref.evaluate = [structure = problem.structure, p = *precession, bodies, v](double t,
                                                                             Vector& out) mutable {
    p.At(t, bodies[0]);
    CoordinatesFromBodies(*structure, bodies, out, v);
  };
  return ref;
}

}  // namespace mbb
