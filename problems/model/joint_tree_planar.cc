// The planar joint map of the joint-tree formulation (joint_tree.h; paper 004 s3.1-3.2):
// one joint's explicit form p_b = r(p_a, q) (7), its velocity (8) and the blocks of (9),
// and the inverse of (7), (8) body by body (joint coordinates of absolute ones).
#include <cmath>

#include "problems/model/joint_tree_internal.h"

namespace mbb {
namespace {

// The predecessor's pose and twist as a joint sees it (the ground: at rest at the origin).
struct ParentPose {
  Eigen::Vector2d x = Eigen::Vector2d::Zero(), xv = Eigen::Vector2d::Zero();
  double angle = 0.0, omega = 0.0;
  PlanarRotation rotation;  // R(angle)
  bool has_angle = false;
  int d = 0;
};

// The predecessor's pose; its rotation from `known` if that is the predecessor's.
ParentPose PoseOf(const std::vector<TreeBody>& bodies, int parent, const double* p,
                  const double* pv, const LastPlanarRotation* known = nullptr) {
  ParentPose a;
  if (parent < 0) return a;
  const TreeBody& b = bodies[parent];
  a.d = b.d;
  a.x = Eigen::Vector2d(p[b.p_offset], p[b.p_offset + 1]);
  a.xv = Eigen::Vector2d(pv[b.p_offset], pv[b.p_offset + 1]);
  a.has_angle = b.d == 3;
  if (a.has_angle) {
    a.angle = p[b.p_offset + 2];
    a.omega = pv[b.p_offset + 2];
    a.rotation = known && known->body == parent ? known->rotation : RotationOf(a.angle);
  }
  return a;
}

// Joint point of the predecessor: u_a = R(theta_a) s_a (a point mass or the ground: s_a).
Eigen::Vector2d ParentArm(const ParentPose& a, const TreeBody& b) {
  return a.has_angle ? Rotate(a.rotation, b.s_a) : b.s_a;
}

// Also gives R(theta_b) in `own` where the joint computes it (revolute; prismatic on a
// rigid body); has_own false otherwise.
void JointKinematics(const TreeBody& b, const ParentPose& a, const double* q, const double* qv,
                     JointMotion& out, PlanarRotation& own, bool& has_own) {
  has_own = false;
  const int d = b.d;
  const bool rigid = d == 3;
  out.p.setZero(d);
  out.pv.setZero(d);
  out.c.setZero(d);
  out.A.setZero(d, a.d);
  out.B.setZero(d, b.n);
  const Eigen::Vector2d ua = ParentArm(a, b);
  const double wa = a.omega;
  // Common part: the predecessor's joint point and its acceleration terms.
  Eigen::Vector2d x = a.x + ua, xv = a.xv + wa * Perp(ua), c = -wa * wa * ua;
  Eigen::Vector2d dx_dtheta_a = Perp(ua);  // column of A for the predecessor's angle
  double theta = a.angle, omega = wa;
  switch (b.joint) {
    case TreeJointKind::kFree:
      x += Eigen::Vector2d(q[0], q[1]);
      xv += Eigen::Vector2d(qv[0], qv[1]);
      if (rigid) {
        theta += q[2];
        omega += qv[2];
      }
      out.B.setIdentity(d, d);
      break;
    case TreeJointKind::kRevolute: {
      theta += q[0];
      omega += qv[0];
      own = RotationOf(theta);
      has_own = true;
      const Eigen::Vector2d ub = Rotate(own, b.s_b);
      x -= ub;
      xv -= omega * Perp(ub);
      c += omega * omega * ub;
      dx_dtheta_a -= Perp(ub);
      out.B.block(0, 0, 2, 1) = -Perp(ub);
      out.B(2, 0) = 1.0;
      break;
    }
    case TreeJointKind::kPrismatic: {
      const Eigen::Vector2d w = a.has_angle ? Rotate(a.rotation, b.axis_a) : b.axis_a;
      x += q[0] * w;
      xv += qv[0] * w + q[0] * wa * Perp(w);
      c += 2.0 * qv[0] * wa * Perp(w) - q[0] * wa * wa * w;
      dx_dtheta_a += q[0] * Perp(w);
      if (rigid) {
        theta += b.angle_offset;
        own = RotationOf(theta);
        has_own = true;
        const Eigen::Vector2d ub = Rotate(own, b.s_b);
        x -= ub;
        xv -= omega * Perp(ub);
        c += omega * omega * ub;
        dx_dtheta_a -= Perp(ub);
      } else {
        x -= b.s_b;
      }
      out.B.block(0, 0, 2, 1) = w;
      break;
    }
    case TreeJointKind::kDistance: {
      const Eigen::Vector2d e(std::cos(q[0]), std::sin(q[0]));
      x += b.length * e;
      xv += b.length * qv[0] * Perp(e);
      c -= b.length * qv[0] * qv[0] * e;
      out.B.block(0, 0, 2, 1) = b.length * Perp(e);
      break;
    }
  }
  out.p.head(2) = x;
  out.pv.head(2) = xv;
  out.c.head(2) = c;
  if (rigid) {
    out.p(2) = theta;
    out.pv(2) = omega;
  }
  if (a.d > 0) {
    out.A.block(0, 0, 2, 2).setIdentity();
    if (a.has_angle) {
      out.A.block(0, 2, 2, 1) = dx_dtheta_a;
      if (rigid) out.A(2, 2) = 1.0;
    }
  }
}

// The inverse of (7), (8) body by body with `pose(i)` the absolute pose and twist of tree
// body i (the ground for -1). A distance joint's link angle is taken within pi of the value
// q holds on entry, so that a sequence of poses mapped in order gives a continuous angle.
template <class PoseFn>
void JointCoordinatesOfPoses(const std::vector<TreeBody>& bodies, const PoseFn& pose, Vector& q,
                             Vector& v) {
  for (const TreeBody& b : bodies) {
    const ParentPose a = pose(b.parent);
    const ParentPose self = pose(static_cast<int>(&b - bodies.data()));
    const Eigen::Vector2d x = self.x, xv = self.xv;
    const double theta = self.angle, omega = self.omega;  // 0 for a point mass
    const Eigen::Vector2d ua = ParentArm(a, b);
    const Eigen::Vector2d anchor = a.x + ua, anchor_v = a.xv + a.omega * Perp(ua);
    double* qi = q.data() + b.q_offset;
    double* vi = v.data() + b.q_offset;
    switch (b.joint) {
      case TreeJointKind::kFree:
        qi[0] = x.x() - anchor.x();
        qi[1] = x.y() - anchor.y();
        vi[0] = xv.x() - anchor_v.x();
        vi[1] = xv.y() - anchor_v.y();
        if (b.d == 3) {
          qi[2] = theta - a.angle;
          vi[2] = omega - a.omega;
        }
        break;
      case TreeJointKind::kRevolute:
        qi[0] = theta - a.angle;
        vi[0] = omega - a.omega;
        break;
      case TreeJointKind::kPrismatic: {
        const Eigen::Vector2d w = a.has_angle ? Rotate(a.rotation, b.axis_a) : b.axis_a;
        const Eigen::Vector2d ub = b.d == 3 ? Rotate(theta, b.s_b) : b.s_b;
        qi[0] = w.dot(x + ub - anchor);
        Eigen::Vector2d rest = anchor_v + qi[0] * a.omega * Perp(w);
        if (b.d == 3) rest -= a.omega * Perp(ub);
        vi[0] = w.dot(xv - rest);
        break;
      }
      case TreeJointKind::kDistance: {
        const Eigen::Vector2d r = x - anchor;
        const double angle = std::atan2(r.y(), r.x());
        qi[0] += std::remainder(angle - qi[0], 2.0 * M_PI);
        vi[0] = Perp(r.normalized()).dot(xv - anchor_v) / b.length;
        break;
      }
    }
  }
}

}  // namespace

void CalcPlanarJointMotion(const std::vector<TreeBody>& bodies, const TreeBody& b, const double* p,
                           const double* pv, const double* q, const double* qv,
                           LastPlanarRotation& last, JointMotion& out) {
  PlanarRotation own;
  bool has_own = false;
  JointKinematics(b, PoseOf(bodies, b.parent, p, pv, &last), q, qv, out, own, has_own);
  last.body = has_own ? static_cast<int>(&b - bodies.data()) : -1;
  last.rotation = own;
}

bool IsRigidRevolute(const std::vector<TreeBody>& bodies, const TreeBody& b) {
  return b.joint == TreeJointKind::kRevolute && b.d == 3 &&
         (b.parent < 0 || bodies[b.parent].d == 3);
}

// JointKinematics' revolute case entry by entry (Perp(u) = (-u_y, u_x), Eigen's scalar
// times vector as scalar products; its expressions evaluated left to right as there).
void CalcRigidRevoluteMotion(const std::vector<TreeBody>& bodies, const TreeBody& b,
                             const double* p, const double* pv, double q, double qv,
                             LastPlanarRotation& last, RigidRevoluteMotion& out) {
  const ParentPose a = PoseOf(bodies, b.parent, p, pv, &last);
  const Eigen::Vector2d ua = ParentArm(a, b);
  const double wa = a.omega;
  double x0 = a.x.x() + ua.x(), x1 = a.x.y() + ua.y();
  double xv0 = a.xv.x() + wa * -ua.y(), xv1 = a.xv.y() + wa * ua.x();
  const double wa2 = -wa * wa;
  double c0 = wa2 * ua.x(), c1 = wa2 * ua.y();
  double dx0 = -ua.y(), dx1 = ua.x();
  const double theta = a.angle + q, omega = wa + qv;
  const PlanarRotation own = RotationOf(theta);
  const Eigen::Vector2d ub = Rotate(own, b.s_b);
  x0 -= ub.x();
  x1 -= ub.y();
  xv0 -= omega * -ub.y();
  xv1 -= omega * ub.x();
  const double w2 = omega * omega;
  c0 += w2 * ub.x();
  c1 += w2 * ub.y();
  dx0 -= -ub.y();
  dx1 -= ub.x();
  out.p[0] = x0;
  out.p[1] = x1;
  out.p[2] = theta;
  out.pv[0] = xv0;
  out.pv[1] = xv1;
  out.pv[2] = omega;
  out.j[0] = -ub.y();  // J = -B = Perp(ub) (negations are exact)
  out.j[1] = ub.x();
  out.k[0] = -c0;
  out.k[1] = -c1;
  out.h[0] = -dx0;
  out.h[1] = -dx1;
  last.body = static_cast<int>(&b - bodies.data());
  last.rotation = own;
}

void PlanarJointCoordinatesFromAbsolute(const std::vector<TreeBody>& bodies, const Vector& p,
                                        const Vector& pv, Vector& q, Vector& v) {
  JointCoordinatesOfPoses(
      bodies, [&](int i) { return PoseOf(bodies, i, p.data(), pv.data()); }, q, v);
}

// The planar layout of a body motion read directly (as BodyLayout::kPlanarPose / kPlanarPoint
// write it, body_motion.cc): no absolute vector in between, so nothing to allocate or keep.
void PlanarJointCoordinatesFromMotions(const std::vector<TreeBody>& bodies,
                                       const std::vector<BodyMotion>& motion, Vector& q,
                                       Vector& v) {
  auto pose = [&](int i) {
    ParentPose a;
    if (i < 0) return a;
    const TreeBody& b = bodies[i];
    const BodyMotion& m = motion[b.model_index];
    a.d = b.d;
    a.x = m.position.head<2>();
    a.xv = m.velocity.head<2>();
    a.has_angle = b.d == 3;
    if (a.has_angle) {
      a.angle = m.angle;
      a.omega = m.angular_velocity.z();
      a.rotation = RotationOf(a.angle);
    }
    return a;
  };
  JointCoordinatesOfPoses(bodies, pose, q, v);
}

}  // namespace mbb
