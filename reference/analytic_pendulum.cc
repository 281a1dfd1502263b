// Analytic references for planar one-degree-of-freedom "rotating group" mechanisms, found
// from the problem's ModelStructure (no problem ids): every body either rotates about a fixed
// ground pivot by a common angle a(t) or translates with the tip of such a rotating arm.
// Recognised:
//  - a single body on a revolute joint to the ground, or a point mass on a distance joint to
//    the ground (planar_pendulum, physical_pendulum, simple_pendulum_iftomm);
//  - a parallelogram chain: cranks on revolute joints to the ground and couplers joined only
//    to cranks, every crank-coupler joint at the same arm t0 from its crank's pivot, so the
//    couplers translate (double_four_bar, n_four_bar);
// with uniform gravity as the only force. For body i with pivot c_i, arm r_i (centre of mass
// c_i + R(a) r_i for a rotating body; c_i = COM0 - t0, r_i = t0 for a translating one):
//   T = I a'^2 / 2,   I = sum (m_i |r_i|^2 + J_i [rotating]),
//   V = -g . R(a) D,  D = sum m_i r_i,
// so theta = a + theta0 (theta0 the angle from the downward vertical to D) obeys the
// pendulum equation theta'' = -w^2 sin(theta), w^2 = |g| |D| / I. Its energy integral
// h = theta'^2/2 + 2 w^2 sin^2(theta/2) gives (Lawden, "Elliptic Functions and
// Applications", 1989, s8.1-8.2; sn, cn, am Jacobi's functions, F the elliptic integral of
// the first kind, Boost.Math, about 1e-15 relative):
//   libration (h < 2 w^2):  sin(theta/2) = k sn(u0 + w t, k),  k^2 = h / (2 w^2),
//                           u0 = F(asin(sin(theta0/2) / k), k) (2K - that when theta'0 < 0);
//   rotation   (h > 2 w^2): theta/2 = am(u0 + sign(theta'0) sqrt(h/2) t, k),  k^2 = 2 w^2 / h,
//                           u0 = F(theta0/2, k), am continuous (unwrapped).
// Released from rest this is sin(phi/2) = k sn(K - w t, k) of the old pendulum references;
// the chain started inverted with omega0 is the rotating pendulum of the parallelogram
// reduction. On the separatrix (h = 2 w^2, e.g. the chain at rest inverted) there is no
// reference. We claim 13 digits for libration and 12 for rotation (sn, cn, am, K to 1e-15
// over 1e3 s at most). A numerical run that switches the chain to a folded branch at its
// singular positions still conserves energy: the error against this reference detects it.
#include <algorithm>
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>
#include <numeric>

#include "problems/model/body_motion.h"
#include "reference/reference.h"

namespace mbb {
namespace {

using V2 = Eigen::Vector2d;

V2 Perp(const V2& r) { return V2(-r.y(), r.x()); }
V2 Rotate(double a, const V2& r) {
  const double c = std::cos(a), s = std::sin(a);
  return V2(c * r.x() - s * r.y(), s * r.x() + c * r.y());
}

// theta'' = -w^2 sin(theta) from (theta0, rate0).
struct PendulumMotion {
  enum class Regime { kUniform, kLibration, kRotation } regime;
  double theta0, rate0, w, k, u0, quarter, speed;

  static std::optional<PendulumMotion> Make(double w2, double theta0, double rate0) {
    PendulumMotion p{Regime::kUniform, theta0, rate0, std::sqrt(w2), 0, 0, 0, 0};
    if (w2 == 0.0) return p;
    const double h = 0.5 * rate0 * rate0 + 2.0 * w2 * std::pow(std::sin(0.5 * theta0), 2);
    const double ratio = h / (2.0 * w2);
    if (std::abs(ratio - 1.0) < 1e-12) return std::nullopt;  // separatrix
    if (ratio < 1.0) {
      p.regime = Regime::kLibration;
      p.k = std::sqrt(ratio);
      p.quarter = boost::math::ellint_1(p.k);
      const double s0 = std::clamp(std::sin(0.5 * theta0) / p.k, -1.0, 1.0);
      p.u0 = boost::math::ellint_1(p.k, std::asin(s0));
      if (rate0 < 0.0) p.u0 = 2.0 * p.quarter - p.u0;  // cn(u0) < 0: theta decreasing
    } else {
      p.regime = Regime::kRotation;
      p.k = std::sqrt(1.0 / ratio);
      p.quarter = boost::math::ellint_1(p.k);
      p.u0 = boost::math::ellint_1(p.k, 0.5 * theta0);  // theta0 in (-pi, pi]
      p.speed = (rate0 > 0.0 ? 1.0 : -1.0) * std::sqrt(0.5 * h);
    }
    return p;
  }

  double Theta(double t) const {
    switch (regime) {
      case Regime::kUniform:
        return theta0 + rate0 * t;
      case Regime::kLibration:
        return 2.0 * std::asin(k * boost::math::jacobi_sn(k, u0 + w * t));
      case Regime::kRotation: {
        // am(u), continuous: atan2(sn, cn) jumps by 2 pi at u = 2K (mod 4K).
        const double u = u0 + speed * t;
        double cn = 0.0, dn = 0.0;
        const double sn = boost::math::jacobi_elliptic(k, u, &cn, &dn);
        return 2.0 * (std::atan2(sn, cn) + 2.0 * M_PI * std::round(u / (4.0 * quarter)));
      }
    }
    return theta0;
  }

  // theta'(t): libration 2 k w cn(u) (d/dt of sin(theta/2) = k sn(u), cos(theta/2) = dn(u));
  // rotation 2 sqrt(h/2) dn(u) (d am(u)/du = dn(u)), dn from dn^2 = 1 - k^2 sn^2 (dn > 0 for
  // k < 1): Boost 1.74's dn is 2.4e-3 relative off exactly at u = K, its sn and cn are right.
  double Rate(double t) const {
    double cn = 0.0, dn = 0.0;
    switch (regime) {
      case Regime::kUniform:
        return rate0;
      case Regime::kLibration:
        boost::math::jacobi_elliptic(k, u0 + w * t, &cn, &dn);
        return 2.0 * k * w * cn;
      case Regime::kRotation: {
        const double sn = boost::math::jacobi_elliptic(k, u0 + speed * t, &cn, &dn);
        return 2.0 * speed * std::sqrt(1.0 - k * k * sn * sn);
      }
    }
    return rate0;
  }
};

// One body's motion in the group: centre of mass c + R(a) r, angle angle0 (+ a if rotating).
struct GroupMember {
  V2 centre, arm;
  bool rotates;
  double angle0;
};

// The rotating group of a planar model, or nothing if it is not one.
std::optional<std::vector<GroupMember>> RotatingGroup(const ModelStructure& s,
                                                      const std::vector<BodyMotion>& start) {
  const ModelDescription& m = s.model;
  if (m.dimension != 2 || !m.drivers.empty() || m.bodies.empty()) return std::nullopt;
  for (const ForceDescription& f : m.forces)
    if (f.kind != ForceKind::kGravity) return std::nullopt;
  const int nb = static_cast<int>(m.bodies.size());
  auto global = [&](int b, const Eigen::Vector3d& p) {
    const V2 local = p.head<2>();
    return b < 0 ? local : V2(start[b].position.head<2>() + Rotate(start[b].angle, local));
  };
  std::vector<int> pivot_joint(nb, -1);
  std::vector<int> component(nb);
  std::iota(component.begin(), component.end(), 0);
  auto root = [&](int b) {
    while (component[b] != b) b = component[b];
    return b;
  };
  std::optional<V2> arm;  // t0, common to every crank-coupler joint
  std::vector<V2> pivots(nb);
  // Pass 1: the cranks (one joint to the ground each).
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const JointDescription& jd = m.joints[j];
    const int a = s.joint_ends[j].body_a, b = s.joint_ends[j].body_b;
    if ((a < 0) == (b < 0)) continue;
    const int body = a < 0 ? b : a;
    const Eigen::Vector3d& body_point = a < 0 ? jd.point_b : jd.point_a;
    const bool point_mass = m.bodies[body].kind == BodyKind::kPointMass;
    const bool pin = jd.kind == JointKind::kRevolute;
    const bool rod = jd.kind == JointKind::kDistance && point_mass && body_point.norm() == 0.0;
    if ((!pin && !rod) || pivot_joint[body] >= 0) return std::nullopt;
    pivot_joint[body] = static_cast<int>(j);
    pivots[body] = (a < 0 ? jd.point_a : jd.point_b).head<2>();
  }
  // Pass 2: every other joint is a revolute joint between a crank and a coupler at t0.
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const JointDescription& jd = m.joints[j];
    const int a = s.joint_ends[j].body_a, b = s.joint_ends[j].body_b;
    if (a < 0 || b < 0) continue;
    if (jd.kind != JointKind::kRevolute) return std::nullopt;
    if ((pivot_joint[a] >= 0) == (pivot_joint[b] >= 0)) return std::nullopt;
    const int crank = pivot_joint[a] >= 0 ? a : b;
    const V2 at = global(a, jd.point_a);
    if ((at - global(b, jd.point_b)).norm() > 1e-9) return std::nullopt;  // not assembled
    const V2 t0 = at - pivots[crank];
    if (arm && (t0 - *arm).norm() > 1e-9 * (1.0 + arm->norm())) return std::nullopt;
    arm = t0;
    component[root(a)] = root(b);
  }
  int roots = 0;
  for (int b = 0; b < nb; ++b) roots += root(b) == b;
  if (roots != 1) return std::nullopt;  // independent pieces: more than one DOF
  std::vector<GroupMember> group;
  for (int b = 0; b < nb; ++b) {
    const V2 com = start[b].position.head<2>();
    if (pivot_joint[b] < 0 && !arm) return std::nullopt;  // a free body
    if (pivot_joint[b] >= 0)
      group.push_back({pivots[b], com - pivots[b], true, start[b].angle});
    else
      group.push_back({com - *arm, *arm, false, start[b].angle});
  }
  return group;
}

double Gravity(const ModelDescription& m, V2& g) {
  g.setZero();
  for (const ForceDescription& f : m.forces) g += f.vector.head<2>();
  return g.norm();
}

void GroupMotion(const std::vector<GroupMember>& group, double a, double rate,
                 std::vector<BodyMotion>& bodies) {
  for (size_t i = 0; i < group.size(); ++i) {
    const GroupMember& g = group[i];
    const V2 arm = Rotate(a, g.arm);
    bodies[i].position.head<2>() = g.centre + arm;
    bodies[i].velocity.head<2>() = rate * Perp(arm);
    bodies[i].angle = g.angle0 + (g.rotates ? a : 0.0);
    bodies[i].angular_velocity.z() = g.rotates ? rate : 0.0;
  }
}

}  // namespace

std::optional<Reference> PendulumReference(const Problem& problem) {
  if (!problem.structure) return std::nullopt;
  const ModelStructure& s = *problem.structure;
  if (!BodyCoordinatesUnsupported(s, problem.n()).empty()) return std::nullopt;
  std::vector<BodyMotion> start;
  BodiesFromCoordinates(s, problem.q0, problem.v0, start);
  const auto group = RotatingGroup(s, start);
  if (!group) return std::nullopt;

  double inertia = 0.0;
  V2 moment = V2::Zero();  // D
  for (size_t i = 0; i < group->size(); ++i) {
    const BodyDescription& b = s.model.bodies[i];
    const GroupMember& g = (*group)[i];
    inertia += b.mass * g.arm.squaredNorm();
    if (g.rotates && b.kind == BodyKind::kRigid) inertia += b.inertia(0, 0);
    moment += b.mass * g.arm;
  }
  if (inertia <= 0.0) return std::nullopt;
  V2 gravity;
  const double g = Gravity(s.model, gravity);
  // theta0: from the downward vertical to D; the rate from the first body's motion.
  const V2 down = g > 0.0 ? V2(gravity / g) : V2(0.0, -1.0);
  const double theta0 = std::atan2(down.x() * moment.y() - down.y() * moment.x(), down.dot(moment));
  const GroupMember& first = group->front();
  const double rate0 =
      first.rotates ? start[0].angular_velocity.z()
                    : start[0].velocity.head<2>().dot(Perp(first.arm)) / first.arm.squaredNorm();
  const auto motion = PendulumMotion::Make(g * moment.norm() / inertia, theta0, rate0);
  if (!motion) return std::nullopt;

  // The closed form must start at the problem's (q0, v0).
  std::vector<BodyMotion> bodies = start;
  Vector q = problem.q0, v = problem.v0;  // q0: the continuity hint (analytic_gyro_top.cc)
  GroupMotion(*group, 0.0, rate0, bodies);
  CoordinatesFromBodies(s, bodies, q, v);
  const double scale = 1.0 + problem.q0.lpNorm<Eigen::Infinity>();
  // An angle coordinate (Problem::coordinate_periods) is compared on its circle: a joint
  // angle at exactly +-pi comes back as pi or -pi with the sign of a rounded zero, which
  // differed between the Release and the sanitizer builds and lost the reference there.
  Vector dq = q - problem.q0;
  for (Eigen::Index i = 0; i < dq.size(); ++i) {
    const double period = static_cast<size_t>(i) < problem.coordinate_periods.size()
                              ? problem.coordinate_periods[i]
                              : 0.0;
    if (period > 0.0) dq[i] = std::remainder(dq[i], period);
  }
  if (dq.lpNorm<Eigen::Infinity>() > 1e-12 * scale ||
      (v - problem.v0).lpNorm<Eigen::Infinity>() > 1e-10 * (1.0 + std::abs(rate0) * scale))
    return std::nullopt;

  Reference ref;
  ref.id = problem.id + "/analytic";
  const bool rotation = motion->regime == PendulumMotion::Regime::kRotation;
  ref.provenance = std::string(group->size() == 1 ? "single body about a ground pivot"
                                                  : "parallelogram chain reduced to one angle") +
                   ", theta'' = -(|g| |D| / I) sin(theta), " +
                   (rotation ? "rotation: theta/2 = am(u0 + sqrt(h/2) t, k)"
                             : "libration: sin(theta/2) = k sn(u0 + w t, k)") +
                   " (Jacobi elliptic functions, Boost.Math); reference/analytic_pendulum.cc";
  ref.digits = rotation ? 12.0 : 13.0;
  ref.t_max = 1e3;
  ref.evaluate = [structure = problem.structure, group = *group, motion = *motion, bodies, v](
                     double t, Vector& out) mutable {
    GroupMotion(group, motion.Theta(t) - motion.theta0, 0.0, bodies);
    CoordinatesFromBodies(*structure, bodies, out, v);
  };
  // Velocities, for outputs that read v (the four-bar chains' B0_vx, B0_vy).
  ref.evaluate_velocity = [structure = problem.structure, group = *group, motion = *motion, bodies,
                           q](double t, Vector& out) mutable {
    GroupMotion(group, motion.Theta(t) - motion.theta0, motion.Rate(t), bodies);
    CoordinatesFromBodies(*structure, bodies, q, out);
  };
  return ref;
}

}  // namespace mbb
