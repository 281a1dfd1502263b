// The joint-tree formulation (joint_tree.h; paper 004 s3.1-3.2, eqs (7)-(11)).
#include "problems/model/joint_tree.h"

#include <cmath>

#include "problems/body_motion.h"
#include "problems/model/joint_tree_internal.h"
#include "problems/model/model_compiler.h"
#include "problems/parameters.h"

namespace mbb {
namespace {

Eigen::Vector2d Perp(const Eigen::Vector2d& u) { return {-u.y(), u.x()}; }

Eigen::Vector2d Rotate(double angle, const Eigen::Vector2d& s) {
  const double c = std::cos(angle), sn = std::sin(angle);
  return {c * s.x() - sn * s.y(), sn * s.x() + c * s.y()};
}

// The predecessor's pose and twist as a joint sees it (the ground: at rest at the origin).
struct ParentPose {
  Eigen::Vector2d x = Eigen::Vector2d::Zero(), xv = Eigen::Vector2d::Zero();
  double angle = 0.0, omega = 0.0;
  bool has_angle = false;
  int d = 0;
};

ParentPose PoseOf(const std::vector<TreeBody>& bodies, int parent, const double* p,
                  const double* pv) {
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
  }
  return a;
}

// Joint point of the predecessor: u_a = R(theta_a) s_a (a point mass or the ground: s_a).
Eigen::Vector2d ParentArm(const ParentPose& a, const TreeBody& b) {
  return a.has_angle ? Rotate(a.angle, b.s_a) : b.s_a;
}

void JointKinematics(const TreeBody& b, const ParentPose& a, const double* q, const double* qv,
                     JointMotion& out) {
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
      const Eigen::Vector2d ub = Rotate(theta, b.s_b);
      x -= ub;
      xv -= omega * Perp(ub);
      c += omega * omega * ub;
      dx_dtheta_a -= Perp(ub);
      out.B.block(0, 0, 2, 1) = -Perp(ub);
      out.B(2, 0) = 1.0;
      break;
    }
    case TreeJointKind::kPrismatic: {
      const Eigen::Vector2d w = a.has_angle ? Rotate(a.angle, b.axis_a) : b.axis_a;
      x += q[0] * w;
      xv += qv[0] * w + q[0] * wa * Perp(w);
      c += 2.0 * qv[0] * wa * Perp(w) - q[0] * wa * wa * w;
      dx_dtheta_a += q[0] * Perp(w);
      if (rigid) {
        theta += b.angle_offset;
        const Eigen::Vector2d ub = Rotate(theta, b.s_b);
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

// The inverse of (7), (8) body by body: joint coordinates and velocities of the absolute
// ones p, p' (planar layout). A distance joint's link angle is taken within pi of the value
// q holds on entry, so that a sequence of poses mapped in order gives a continuous angle.
void JointCoordinatesFromAbsolute(const std::vector<TreeBody>& bodies, const Vector& p,
                                  const Vector& pv, Vector& q, Vector& v) {
  for (const TreeBody& b : bodies) {
    const ParentPose a = PoseOf(bodies, b.parent, p.data(), pv.data());
    const Eigen::Vector2d x = p.segment<2>(b.p_offset), xv = pv.segment<2>(b.p_offset);
    const double theta = b.d == 3 ? p(b.p_offset + 2) : 0.0;
    const double omega = b.d == 3 ? pv(b.p_offset + 2) : 0.0;
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
        const Eigen::Vector2d w = a.has_angle ? Rotate(a.angle, b.axis_a) : b.axis_a;
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

TreeWorkspace& TreeWorkspace::Of(DaeWorkspace& ws) { return MBB_DOWNCAST(TreeWorkspace, ws); }

namespace {
TreeWorkspace& Ws(DaeWorkspace& ws) { return TreeWorkspace::Of(ws); }
}  // namespace

JointTreeDae::JointTreeDae(std::vector<TreeBody> bodies, std::vector<TreeForce> forces,
                           std::vector<BodyMatrix> mass_blocks,
                           std::shared_ptr<const MechanicalDae> planar, double mass_scale,
                           int dimension, std::vector<Eigen::Matrix3d> inertia, TreeClosure closure)
    : MechanicalDae(
          [&] {
            int n = 0;
            for (const auto& b : bodies) n += b.n;
            return n;
          }(),
          static_cast<int>(closure.rows.size())),
      bodies_(std::move(bodies)),
      forces_(std::move(forces)),
      mass_blocks_(std::move(mass_blocks)),
      planar_(std::move(planar)),
      mass_scale_(mass_scale),
      dimension_(dimension),
      inertia_(std::move(inertia)),
      closure_(std::move(closure)) {
  for (const TreeBody& b : bodies_) num_velocities_ += b.d;
}

TreeState JointTreeDae::MakeState() const {
  TreeState s;
  const int nb = num_bodies(), np = num_absolute();
  s.p.setZero(np);
  s.pv.setZero(np);
  s.H.resize(nb);
  s.J.resize(nb);
  s.M.resize(nb);
  s.k2.resize(nb);
  s.f.resize(nb);
  if (spatial()) s.frames.resize(nb);
  for (int i = 0; i < nb; ++i) {
    const TreeBody& b = bodies_[i];
    const int da = b.parent < 0 ? 0 : bodies_[b.parent].d;
    s.H[i].setZero(b.d, da);
    s.J[i].setZero(b.d, b.n);
    s.M[i] = mass_blocks_[i];  // constant in absolute coordinates
    s.k2[i].setZero(b.d);
    s.f[i].setZero(b.d);
  }
  return s;
}

std::unique_ptr<DaeWorkspace> JointTreeDae::MakeWorkspace() const {
  auto ws = std::make_unique<TreeWorkspace>();
  const int n = num_coordinates(), np = num_absolute(), nw = num_absolute_velocities();
  ws->state = MakeState();
  ws->frames.resize(num_bodies());
  if (spatial()) ws->absolute_frames.resize(num_bodies());
  ws->body_forces.setZero(nw);
  ws->acc.setZero(nw);
  ws->forces_all.setZero(nw);
  ws->p.setZero(np);
  ws->pv.setZero(np);
  ws->q_plus.setZero(n);
  ws->q_minus.setZero(n);
  ws->col_plus.setZero(n);
  ws->col_minus.setZero(n);
  ws->zero_v.setZero(n);
  if (closure_.dae) {
    const int m_all = closure_.dae->num_constraints();
    ws->closure = closure_.dae->MakeWorkspace();
    ws->phi_all.setZero(m_all);
    ws->gamma_all.setZero(m_all);
    ws->lambda_all.setZero(m_all);
    ws->p_acc.setZero(np);
    ws->unit.setZero(n);
    ws->phi_q_all.setZero(m_all, np);
    ws->coordinate_jacobian.setZero(np, n);
    ws->twist_jacobian.setZero(num_absolute_velocities(), n);
    ws->phi_q_plus.setZero(num_constraints(), n);
    ws->phi_q_minus.setZero(num_constraints(), n);
  }
  return ws;
}

// Forward recursion (7), (8): p_i and p_i' from the predecessor's and q_i, q_i'; the
// blocks of (9) on the way; then f(t, p, p') of the planar force elements.
void JointTreeDae::CalcTreeState(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                 ConstVectorRef v, TreeState& s) const {
  TreeWorkspace& ws = Ws(ws_base);
  // The workspace's own state is kept for (t, q, q'): a constrained method's right-hand
  // side asks for Phi_q, gamma, M and Q at the same point, each of which needs it.
  const bool own = &s == &ws.state;
  if (own && ws.cache.Holds(t, q, v)) return;
  if (own) ws.cache.Invalidate();
  if (spatial()) {
    CalcSpatialTreeState(ws_base, t, q, v, s);
  } else {
    CalcPlanarTreeState(ws, t, q, v, s);
  }
  if (own) ws.cache.Store(t, q, v);
}

void JointTreeDae::PositionState(TreeWorkspace& ws, ConstVectorRef q) const {
  if (ws.cache.HoldsPositions(q)) return;  // H, J, M and the poses depend on q only
  CalcTreeState(ws, 0.0, q, ws.zero_v, ws.state);
}

void JointTreeDae::CalcPlanarTreeState(TreeWorkspace& ws, double t, ConstVectorRef q,
                                       ConstVectorRef v, TreeState& s) const {
  JointMotion& jm = ws.motion;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    const ParentPose a = PoseOf(bodies_, b.parent, s.p.data(), s.pv.data());
    JointKinematics(b, a, q.data() + b.q_offset, v.data() + b.q_offset, jm);
    s.p.segment(b.p_offset, b.d) = jm.p;
    s.pv.segment(b.p_offset, b.d) = jm.pv;
    s.H[i] = -jm.A;   // (9): H_i = -dr_i/dp_{pi_i}
    s.J[i] = -jm.B;   //      J_i = -dr_i/dq_i
    s.k2[i] = -jm.c;  //      k_i^(II)
  }
  CalcAppliedForces(t, s.p, s.pv, ws.forces_all);  // f_i of (11)
  for (int i = 0; i < num_bodies(); ++i)
    s.f[i] = ws.forces_all.segment(bodies_[i].p_offset, bodies_[i].d);
}

namespace {

// A body point and its velocity (the ground: s itself, at rest).
void PointMotion(const std::vector<TreeBody>& bodies, int body, const Eigen::Vector2d& s,
                 const Vector& p, const Vector& pv, Eigen::Vector2d& x, Eigen::Vector2d& xv,
                 Eigen::Vector2d& arm) {
  if (body < 0) {
    x = s;
    xv.setZero();
    arm.setZero();
    return;
  }
  const TreeBody& b = bodies[body];
  arm = b.d == 3 ? Rotate(p(b.p_offset + 2), s) : s;
  x = p.segment<2>(b.p_offset) + arm;
  xv = pv.segment<2>(b.p_offset);
  if (b.d == 3) xv += pv(b.p_offset + 2) * Perp(arm);
  if (b.d != 3) arm.setZero();  // a point mass takes no torque
}

void AddForce(const std::vector<TreeBody>& bodies, int body, const Eigen::Vector2d& arm,
              const Eigen::Vector2d& force, Vector& f) {
  if (body < 0) return;
  const TreeBody& b = bodies[body];
  f.segment<2>(b.p_offset) += force;
  if (b.d == 3) f(b.p_offset + 2) += arm.x() * force.y() - arm.y() * force.x();
}

double AngleRate(const std::vector<TreeBody>& bodies, int body, const Vector& x) {
  return body < 0 || bodies[body].d != 3 ? 0.0 : x(bodies[body].p_offset + 2);
}

}  // namespace

// The planar formulation's force elements (model_equations.h) evaluated directly in
// absolute coordinates: one pass over the elements, O(N) (the planar DAE differentiates its
// potential one coordinate at a time, O(N^2)). tests/test_recursive.cc checks both agree.
void JointTreeDae::CalcAppliedForces(double t, const Vector& p, const Vector& pv, Vector& f,
                                     bool with_potential) const {
  f.setZero();
  Eigen::Vector2d xa, xva, arma, xb, xvb, armb;
  const double potential = with_potential ? 1.0 : 0.0;  // weight of gravity and springs
  for (const TreeForce& e : forces_) {
    switch (e.kind) {
      case ForceKind::kGravity:
        if (!with_potential) break;
        for (int i = 0; i < num_bodies(); ++i)
          f.segment<2>(bodies_[i].p_offset) += mass_blocks_[i](0, 0) * e.vector.head<2>();
        break;
      case ForceKind::kSpringDamper: {
        PointMotion(bodies_, e.a, e.sa, p, pv, xa, xva, arma);
        PointMotion(bodies_, e.b, e.sb, p, pv, xb, xvb, armb);
        const Eigen::Vector2d d = xb - xa;
        const double length = d.norm();
        const Eigen::Vector2d dir = d / length;
        const double rate = dir.dot(xvb - xva);
        const Eigen::Vector2d force =
            -(potential * e.stiffness * (length - e.rest) + e.damping * rate) * dir;  // on b
        AddForce(bodies_, e.b, armb, force, f);
        AddForce(bodies_, e.a, arma, -force, f);
        break;
      }
      case ForceKind::kTorsionalSpring: {
        const double rel = AngleRate(bodies_, e.b, p) - AngleRate(bodies_, e.a, p);
        const double rate = AngleRate(bodies_, e.b, pv) - AngleRate(bodies_, e.a, pv);
        const double torque = -potential * e.stiffness * (rel - e.rest) - e.damping * rate;  // on b
        if (e.b >= 0 && bodies_[e.b].d == 3) f(bodies_[e.b].p_offset + 2) += torque;
        if (e.a >= 0 && bodies_[e.a].d == 3) f(bodies_[e.a].p_offset + 2) -= torque;
        break;
      }
      case ForceKind::kForce: {
        PointMotion(bodies_, e.a, e.sa, p, pv, xa, xva, arma);
        AddForce(bodies_, e.a, arma, e.law.Eval(t) * e.vector.head<2>(), f);
        break;
      }
      case ForceKind::kTorque:
        if (e.a >= 0 && bodies_[e.a].d == 3)
          f(bodies_[e.a].p_offset + 2) += e.law.Eval(t) * e.vector.z();
        break;
    }
  }
}

// The planar formulation's potential (model_equations.h), element by element.
double JointTreeDae::PotentialEnergy(double /*t*/, const Vector& p) const {
  double energy = 0.0;
  Eigen::Vector2d xa, xva, arma, xb, xvb, armb;
  for (const TreeForce& e : forces_) {
    switch (e.kind) {
      case ForceKind::kGravity:  // V = -m g . x
        for (int i = 0; i < num_bodies(); ++i)
          energy -=
              mass_blocks_[i](0, 0) * e.vector.head<2>().dot(p.segment<2>(bodies_[i].p_offset));
        break;
      case ForceKind::kSpringDamper: {
        PointMotion(bodies_, e.a, e.sa, p, p, xa, xva, arma);  // p as p': velocities unused
        PointMotion(bodies_, e.b, e.sb, p, p, xb, xvb, armb);
        const double stretch = (xb - xa).norm() - e.rest;
        energy += 0.5 * e.stiffness * stretch * stretch;
        break;
      }
      case ForceKind::kTorsionalSpring: {
        const double rel = AngleRate(bodies_, e.b, p) - AngleRate(bodies_, e.a, p) - e.rest;
        energy += 0.5 * e.stiffness * rel * rel;
        break;
      }
      case ForceKind::kForce:
      case ForceKind::kTorque:
        break;  // applied: in the power, not the potential
    }
  }
  return energy;
}

void JointTreeDae::CalcAbsolute(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, VectorRef p,
                                VectorRef pv) const {
  CalcAbsoluteWith(Ws(ws).absolute_frames, q, v, p, pv);
}

void JointTreeDae::CalcAbsolute(ConstVectorRef q, ConstVectorRef v, VectorRef p,
                                VectorRef pv) const {
  std::vector<SpatialFrame> frames(spatial() ? bodies_.size() : 0);
  CalcAbsoluteWith(frames, q, v, p, pv);
}

void JointTreeDae::CalcAbsoluteWith(std::vector<SpatialFrame>& frames, ConstVectorRef q,
                                    ConstVectorRef v, VectorRef p, VectorRef pv) const {
  if (spatial()) {
    CalcFrames(q, v, frames, nullptr);
    FramesToLayout(frames, p, pv);
    return;
  }
  JointMotion jm;
  for (const TreeBody& b : bodies_) {
    const ParentPose a = PoseOf(bodies_, b.parent, p.data(), pv.data());
    JointKinematics(b, a, q.data() + b.q_offset, v.data() + b.q_offset, jm);
    p.segment(b.p_offset, b.d) = jm.p;
    pv.segment(b.p_offset, b.d) = jm.pv;
  }
}

void JointTreeDae::CalcBodyMotions(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Vector& p,
                                   Vector& pv, std::vector<BodyMotion>& bodies) const {
  CalcBodyMotionsWith(Ws(ws).absolute_frames, q, v, p, pv, bodies);
}

void JointTreeDae::CalcBodyMotions(ConstVectorRef q, ConstVectorRef v, Vector& p, Vector& pv,
                                   std::vector<BodyMotion>& bodies) const {
  std::vector<SpatialFrame> frames(spatial() ? bodies_.size() : 0);
  CalcBodyMotionsWith(frames, q, v, p, pv, bodies);
}

void JointTreeDae::CalcBodyMotionsWith(std::vector<SpatialFrame>& frames, ConstVectorRef q,
                                       ConstVectorRef v, Vector& p, Vector& pv,
                                       std::vector<BodyMotion>& bodies) const {
  if (spatial()) {
    CalcFrames(q, v, frames, nullptr);
    for (size_t i = 0; i < bodies_.size(); ++i) {
      BodyMotion& m = bodies[bodies_[i].model_index];
      m.position = frames[i].x;
      m.velocity = frames[i].v;
      m.orientation = Eigen::Quaterniond(frames[i].R);
      m.angular_velocity = frames[i].w;
    }
    return;
  }
  CalcAbsoluteWith(frames, q, v, p, pv);
  for (const TreeBody& b : bodies_) {
    BodyMotion& m = bodies[b.model_index];
    m.position << p(b.p_offset), p(b.p_offset + 1), 0.0;
    m.velocity << pv(b.p_offset), pv(b.p_offset + 1), 0.0;
    m.angle = b.d == 3 ? p(b.p_offset + 2) : 0.0;
    m.angular_velocity << 0.0, 0.0, b.d == 3 ? pv(b.p_offset + 2) : 0.0;
    m.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(m.angle, Eigen::Vector3d::UnitZ()));
  }
}

// Jp^T F: F_hat_i = F_i + sum_{j in I_i} A_j^T F_hat_j from the leaves to the root, and
// the joint's share B_i^T F_hat_i (A = -H, B = -J).
void JointTreeDae::ProjectBodyForces(const TreeState& s, Vector& body_forces, VectorRef out) const {
  for (int i = num_bodies() - 1; i >= 0; --i) {
    const TreeBody& b = bodies_[i];
    const auto fi = body_forces.segment(b.w_offset, b.d);
    out.segment(b.q_offset, b.n).noalias() = -s.J[i].transpose() * fi;
    if (b.parent >= 0) {
      const TreeBody& a = bodies_[b.parent];
      body_forces.segment(a.w_offset, a.d).noalias() -= s.H[i].transpose() * fi;
    }
  }
}

// out = Jp^T (F - M p''), p'' = Jp a + (velocity terms if with_forces), F = f if with_forces
// else 0; uses the tree state in the workspace.
void JointTreeDae::Project(DaeWorkspace& ws_base, double, ConstVectorRef, ConstVectorRef,
                           ConstVectorRef a, bool with_forces, VectorRef out) const {
  TreeWorkspace& ws = Ws(ws_base);
  const TreeState& s = ws.state;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    auto acc = ws.acc.segment(b.w_offset, b.d);
    acc.noalias() = -s.J[i] * a.segment(b.q_offset, b.n);  // (9): p'' = -H p_pi'' - J q'' - k
    if (with_forces) acc -= s.k2[i];
    if (b.parent >= 0)
      acc.noalias() -= s.H[i] * ws.acc.segment(bodies_[b.parent].w_offset, bodies_[b.parent].d);
    auto force = ws.body_forces.segment(b.w_offset, b.d);
    force.noalias() = -s.M[i] * acc;
    if (with_forces) force += s.f[i];
  }
  ProjectBodyForces(s, ws.body_forces, out);
}

void JointTreeDae::CalcMassMatrix(DaeWorkspace& ws_base, ConstVectorRef q, MatrixRef mass) const {
  TreeWorkspace& ws = Ws(ws_base);
  PositionState(ws, q);  // Project without forces reads H, J, M only
  const int n = num_coordinates();
  for (int k = 0; k < n; ++k) {
    ws.q_plus.setZero();
    ws.q_plus(k) = 1.0;
    Project(ws, 0.0, q, ws.zero_v, ws.q_plus, false, mass.col(k));  // -M e_k
    mass.col(k) *= -1.0;
  }
}

void JointTreeDae::CalcForces(DaeWorkspace& ws_base, double t, ConstVectorRef q, ConstVectorRef v,
                              VectorRef forces) const {
  TreeWorkspace& ws = Ws(ws_base);
  CalcTreeState(ws, t, q, v, ws.state);
  Project(ws, t, q, v, ws.zero_v, true, forces);  // q'' = 0: the velocity terms only
}

namespace {
double FdStep(double x) { return 1e-6 * (1.0 + std::abs(x)); }
}  // namespace

// Central differences of CalcForces (the projected forces have no closed-form Jacobian
// here; the general methods using it only need it for Newton iterations).
void JointTreeDae::CalcForceJacobians(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                      ConstVectorRef v, MatrixRef dq, MatrixRef dv) const {
  TreeWorkspace& ws = Ws(ws_base);
  const int n = num_coordinates();
  Vector& qq = ws.q_plus;
  Vector& vv = ws.q_minus;
  for (int k = 0; k < n; ++k) {
    qq = q;
    const double h = FdStep(q(k));
    qq(k) = q(k) + h;
    CalcForces(ws, t, qq, v, ws.col_plus);
    qq(k) = q(k) - h;
    CalcForces(ws, t, qq, v, ws.col_minus);
    dq.col(k) = (ws.col_plus - ws.col_minus) / (2.0 * h);
  }
  for (int k = 0; k < n; ++k) {
    vv = v;
    const double h = FdStep(v(k));
    vv(k) = v(k) + h;
    CalcForces(ws, t, q, vv, ws.col_plus);
    vv(k) = v(k) - h;
    CalcForces(ws, t, q, vv, ws.col_minus);
    dv.col(k) = (ws.col_plus - ws.col_minus) / (2.0 * h);
  }
}

void JointTreeDae::CalcMassTimesAccelerationJacobian(DaeWorkspace& ws_base, ConstVectorRef q,
                                                     ConstVectorRef a, MatrixRef out) const {
  TreeWorkspace& ws = Ws(ws_base);
  const int n = num_coordinates();
  Vector& qq = ws.q_plus;
  for (int k = 0; k < n; ++k) {
    qq = q;
    const double h = FdStep(q(k));
    qq(k) = q(k) + h;
    CalcTreeState(ws, 0.0, qq, ws.zero_v, ws.state);
    Project(ws, 0.0, qq, ws.zero_v, a, false, ws.col_plus);
    qq(k) = q(k) - h;
    CalcTreeState(ws, 0.0, qq, ws.zero_v, ws.state);
    Project(ws, 0.0, qq, ws.zero_v, a, false, ws.col_minus);
    out.col(k) = -(ws.col_plus - ws.col_minus) / (2.0 * h);  // Project gives -M a
  }
}

// Energy, power and momenta from the absolute coordinates body by body and element by
// element, O(N): the planar DAE's own would fill its dense n x n mass matrix.
double JointTreeDae::CalcEnergy(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                ConstVectorRef v) const {
  TreeWorkspace& ws = Ws(ws_base);
  if (spatial()) return SpatialEnergy(ws, q, v);
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  double kinetic = 0.0;
  for (int i = 0; i < num_bodies(); ++i) {
    const auto pv_i = ws.pv.segment(bodies_[i].p_offset, bodies_[i].d);
    kinetic += 0.5 * pv_i.dot(mass_blocks_[i] * pv_i);
  }
  return kinetic + PotentialEnergy(t, ws.p);
}

double JointTreeDae::CalcAppliedPower(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                      ConstVectorRef v) const {
  TreeWorkspace& ws = Ws(ws_base);
  if (spatial()) return SpatialAppliedPower(ws, t, q, v);
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  CalcAppliedForces(t, ws.p, ws.pv, ws.body_forces, /*with_potential=*/false);
  return ws.body_forces.dot(ws.pv);
}

void JointTreeDae::CalcMomenta(DaeWorkspace& ws_base, ConstVectorRef q, ConstVectorRef v,
                               Eigen::Vector3d& linear, Eigen::Vector3d& angular) const {
  TreeWorkspace& ws = Ws(ws_base);
  if (spatial()) {
    SpatialMomenta(ws, q, v, linear, angular);
    return;
  }
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  linear.setZero();
  angular.setZero();
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    const double m = mass_blocks_[i](0, 0);
    const Eigen::Vector2d x = ws.p.segment<2>(b.p_offset), xv = ws.pv.segment<2>(b.p_offset);
    linear.head<2>() += m * xv;
    angular.z() += m * (x.x() * xv.y() - x.y() * xv.x());
    if (b.d == 3) angular.z() += mass_blocks_[i](2, 2) * ws.pv(b.p_offset + 2);
  }
}

// ---------------------------------------------------------------------------------------
// Validation and formulation.

namespace {

bool RankDeficientMass(const BodyDescription& b, int dimension) {
  if (!(b.mass > 0.0)) return true;
  if (b.kind != BodyKind::kRigid) return false;
  if (dimension == 2) return !(b.inertia(0, 0) > 0.0);
  return !(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia, Eigen::EigenvaluesOnly)
               .eigenvalues()
               .minCoeff() > 0.0);
}

// The spatial joints the formulation writes explicitly (joint_tree_spatial.h).
void ValidateSpatialJoint(const std::string& w, const JointDescription& j,
                          const BodyDescription& body) {
  const bool rigid = body.kind == BodyKind::kRigid;
  const std::string what = ": joint '" + j.name + "' (" + JointKindName(j.kind) + ")";
  switch (j.kind) {
    case JointKind::kSpherical:
    case JointKind::kRevolute:
    case JointKind::kCylindrical:
    case JointKind::kPlanar:
      if (!rigid)
        throw InputError(w + what + ": the successor '" + body.name +
                         "' must be a rigid body (a point mass has no orientation)");
      break;
    case JointKind::kDistance:
      if (!(j.length > 0.0)) throw InputError(w + what + ": length must be > 0");
      return;
    case JointKind::kPrismatic:
      break;
    default:
      throw InputError(w + what +
                       ": formulation 'joint-tree' writes spatial models with spherical, "
                       "distance, revolute, prismatic, cylindrical and planar joints (and "
                       "bodies no joint connects) only");
  }
  if (j.kind != JointKind::kSpherical && !(j.axis_a.norm() > 0.0))
    throw InputError(w + what + ": axis_a must be nonzero");
}

// Every tree joint written from its predecessor (body_a) to its successor (body_b): a joint
// stated the other way round has its ends swapped (points and axes; a planar prismatic's
// axis, given in body_a's frame only, turned into the other body's frame at the stated
// pose). Cut joints stay as stated: the body formulation writes them.
ModelDescription OrientTreeJoints(const ModelDescription& model, const KinematicTree& tree) {
  ModelDescription out = model;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const int ji = tree.parent_joint[i];
    if (ji < 0 || out.joints[ji].body_b == model.bodies[i].name) continue;
    JointDescription& j = out.joints[ji];
    Eigen::Vector3d axis_in_b = j.axis_b;
    if (model.dimension == 2) {
      auto angle = [&](const std::string& name) {
        for (const BodyDescription& b : model.bodies)
          if (b.name == name) return b.kind == BodyKind::kRigid ? b.angle : 0.0;
        return 0.0;  // the ground
      };
      axis_in_b =
          Eigen::AngleAxisd(angle(j.body_a) - angle(j.body_b), Eigen::Vector3d::UnitZ()) * j.axis_a;
    }
    std::swap(j.body_a, j.body_b);
    std::swap(j.point_a, j.point_b);
    j.axis_b = j.axis_a;
    j.axis_a = axis_in_b;
  }
  return out;
}

// The spatial joint of a body (joint_tree_spatial.h); null: no joint connects it.
SpatialJoint SpatialJointOf(const JointDescription* j, bool rigid) {
  SpatialJoint g;
  g.rotation = rigid ? SpatialJoint::Rotation::kEuler : SpatialJoint::Rotation::kNone;
  if (!j) {
    g.translation = SpatialJoint::Translation::kWorld;
    return g;
  }
  g.s_a = j->point_a;
  g.s_b = j->point_b;
  const Eigen::Vector3d axis = j->axis_a.normalized();
  g.axis_a = axis;
  switch (j->kind) {
    case JointKind::kDistance:
      g.translation = SpatialJoint::Translation::kDistance;
      g.length = j->length;
      break;
    case JointKind::kRevolute:
      g.rotation = SpatialJoint::Rotation::kAxis;
      break;
    case JointKind::kPrismatic:
    case JointKind::kCylindrical:
      g.translation = SpatialJoint::Translation::kParentAxes;
      g.num_axes = 1;
      g.axes.col(0) = axis;
      if (rigid)
        g.rotation = j->kind == JointKind::kPrismatic ? SpatialJoint::Rotation::kLocked
                                                      : SpatialJoint::Rotation::kAxis;
      break;
    case JointKind::kPlanar: {  // slides in the plane normal to axis_a, turns about it
      Eigen::Index k = 0;
      axis.cwiseAbs().minCoeff(&k);
      const Eigen::Vector3d f = axis.cross(Eigen::Vector3d::Unit(k)).normalized();
      g.translation = SpatialJoint::Translation::kParentAxes;
      g.num_axes = 2;
      g.axes.col(0) = f;
      g.axes.col(1) = axis.cross(f);
      g.rotation = SpatialJoint::Rotation::kAxis;
      break;
    }
    default:
      break;  // kSpherical: the Euler angles (ValidateJointTreeModel refuses the rest)
  }
  return g;
}

TreeJointKind TreeKind(JointKind kind) {
  switch (kind) {
    case JointKind::kRevolute:
      return TreeJointKind::kRevolute;
    case JointKind::kPrismatic:
      return TreeJointKind::kPrismatic;
    case JointKind::kDistance:
      return TreeJointKind::kDistance;
    default:
      return TreeJointKind::kFree;  // kPlanar: free relative motion in the plane
  }
}

}  // namespace

void ValidateJointTreeModel(const ModelDescription& stated) {
  const std::string w = stated.Where();
  const ModelDescription model = OrientTreeJoints(stated, BuildKinematicTree(stated));
  if (model.dimension != 2 && model.dimension != 3)
    throw InputError(w + ": formulation 'joint-tree' needs dimension 2 or 3");
  const bool spatial = model.dimension == 3;
  if (!model.drivers.empty())
    throw InputError(w + ": driver '" + model.drivers[0].name +
                     "': formulation 'joint-tree' has no constraints (drivers are refused)");
  for (const auto& b : model.bodies)
    if (b.kind == BodyKind::kRigid && !(b.inertia.diagonal().minCoeff() >= 0.0))
      throw InputError(w + ": body '" + b.name + "' inertia must be >= 0");
  if (spatial)
    for (const auto& f : model.forces)
      if (f.kind == ForceKind::kTorsionalSpring)
        throw InputError(w + ": force '" + f.name +
                         "' (torsional spring) is planar: refused in a spatial joint tree");
  const KinematicTree tree = BuildKinematicTree(model);
  if (!tree.cut_joints.empty()) {
    // Loop-closure constraints: the cut joints as the body formulation writes them.
    ModelDescription cut = model;
    cut.joints.clear();
    for (int ji : tree.cut_joints) cut.joints.push_back(model.joints[ji]);
    if (spatial)
      ValidateEulerParameterModel(cut);
    else
      ValidatePlanarModel(cut);
  }
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const BodyDescription& body = model.bodies[i];
    const int ji = tree.parent_joint[i];
    if (ji >= 0) {
      const JointDescription& j = model.joints[ji];
      const bool rigid = body.kind == BodyKind::kRigid;
      if (spatial) {
        ValidateSpatialJoint(w, j, body);
      } else {
        if (j.kind != JointKind::kRevolute && j.kind != JointKind::kPrismatic &&
            j.kind != JointKind::kDistance && j.kind != JointKind::kPlanar)
          throw InputError(w + ": joint '" + j.name + "' (" + JointKindName(j.kind) +
                           "): formulation 'joint-tree' writes planar trees with revolute, "
                           "prismatic, distance and planar joints only (any kind may close a "
                           "loop)");
        if (j.kind == JointKind::kRevolute && !rigid)
          throw InputError(w + ": joint '" + j.name + "' (revolute): the successor '" + body.name +
                           "' must be a rigid body (a point mass has no angle)");
        if (j.kind == JointKind::kDistance && rigid)
          throw InputError(w + ": joint '" + j.name + "' (distance): the successor '" + body.name +
                           "' must be a point mass");
        if (j.kind == JointKind::kDistance && !(j.length > 0.0))
          throw InputError(w + ": joint '" + j.name + "' (distance): length must be > 0");
        if (j.kind == JointKind::kPrismatic && !(j.axis_a.head<2>().norm() > 0.0))
          throw InputError(w + ": joint '" + j.name + "' (prismatic): axis_a must be nonzero");
      }
    }
    // Assumption (23): rank M_i < d => pi_i = 0 or rank M_{pi_i} = d.
    const int parent = tree.parent[i];
    if (parent >= 0 && RankDeficientMass(body, model.dimension) &&
        RankDeficientMass(model.bodies[parent], model.dimension))
      throw InputError(w + ": bodies '" + model.bodies[parent].name + "' and '" + body.name +
                       "' both have rank-deficient mass and one follows the other: assumption "
                       "(23) of paper 004 (isolated zero-mass bodies) is violated");
  }
}

namespace {

// The model's held pose and twist components (BodyDescription::hold) as rows on the joint
// coordinates: the body formulation's rows times T = dp/dq at the stated pose (exact for
// velocities, the linearisation for positions, which a consistent stated pose never moves).
void HeldRows(const ModelDescription& model, const JointTreeDae& dae, const Vector& q,
              FormulatedModel& out) {
  ModelDescription bodies = model;
  bodies.joints.clear();
  bodies.drivers.clear();
  const FormulatedModel held =
      model.dimension == 3 ? FormulateSpatialEuler(bodies) : FormulatePlanar(bodies);
  const int n = dae.num_coordinates(), np = dae.num_absolute();
  Matrix coordinate_jacobian(np, n);
  Vector unit(n), p(np), pv(np);
  for (int k = 0; k < n; ++k) {
    unit.setZero();
    unit(k) = 1.0;
    dae.CalcAbsolute(q, unit, p, pv);
    coordinate_jacobian.col(k) = pv;
  }
  out.hold_q = held.hold_q * coordinate_jacobian;
  out.hold_v = held.hold_v * coordinate_jacobian;
  out.hold_names_q = held.hold_names_q;
  out.hold_names_v = held.hold_names_v;
}

// The cut joints' equations (joint_tree_closure.cc): the body formulation of the same
// bodies with those joints only, its joint rows (the Euler-parameter normalisations hold by
// construction in the tree), their owners renumbered and named as in `model`.
TreeClosure LoopClosure(const ModelDescription& model, const ModelDescription& free_bodies,
                        const KinematicTree& tree, std::vector<ConstraintRows>& rows,
                        std::vector<std::string>& names) {
  TreeClosure closure;
  if (tree.cut_joints.empty()) return closure;
  ModelDescription cut = free_bodies;
  for (int ji : tree.cut_joints) cut.joints.push_back(model.joints[ji]);
  const FormulatedModel body_form =
      model.dimension == 3 ? FormulateSpatialEuler(cut) : FormulatePlanar(cut);
  closure.dae = body_form.dae;
  for (const ConstraintRows& r : body_form.rows) {
    if (r.owner != ConstraintRows::Owner::kJoint) continue;
    ConstraintRows kept = r;
    kept.index = tree.cut_joints[r.index];
    kept.first_row = static_cast<int>(closure.rows.size());
    for (int k = 0; k < r.num_rows; ++k) {
      closure.rows.push_back(r.first_row + k);
      names.push_back(body_form.constraint_names[r.first_row + k]);
    }
    rows.push_back(kept);
  }
  return closure;
}

}  // namespace

namespace {
// 2 pi for the joint coordinates that are angles able to turn without bound: a planar
// revolute joint's relative angle, a distance joint's rod direction and a free planar
// body's theta. Spatial charts are local
// (they change chart before they wrap), so none is periodic there.
std::vector<double> JointAnglePeriods(const std::vector<TreeBody>& bodies, bool spatial, int n) {
  std::vector<double> periods(n, 0.0);
  if (spatial) return periods;
  for (const TreeBody& b : bodies) {
    // A distance joint's coordinate is the rod's direction angle (e = (cos q, sin q)).
    if (b.joint == TreeJointKind::kRevolute || b.joint == TreeJointKind::kDistance)
      periods[b.q_offset] = 2.0 * M_PI;
    if (b.joint == TreeJointKind::kFree && b.rigid && b.n == 3)
      periods[b.q_offset + 2] = 2.0 * M_PI;
  }
  return periods;
}
}  // namespace

FormulatedModel FormulateJointTree(const ModelDescription& stated) {
  const ModelDescription model = OrientTreeJoints(stated, BuildKinematicTree(stated));
  // The same bodies and force elements without joints and drivers: M_i, f_i and outputs
  // in absolute coordinates p.
  ModelDescription free_bodies = model;
  free_bodies.joints.clear();
  free_bodies.drivers.clear();
  for (auto& b : free_bodies.bodies) b.hold.clear();
  const bool spatial = model.dimension == 3;
  FormulatedModel planar =
      spatial ? FormulateSpatialEuler(free_bodies) : FormulatePlanar(free_bodies);
  // The body blocks of that formulation: body motions to and from its coordinates.
  auto planar_blocks = std::make_shared<ModelStructure>();
  planar_blocks->model = planar.model;
  planar_blocks->formulation = spatial ? "euler-parameters" : "planar";
  planar_blocks->bodies = planar.body_coordinates;

  const KinematicTree tree = BuildKinematicTree(model);
  std::vector<ConstraintRows> closure_rows;
  std::vector<std::string> closure_names;
  const TreeClosure closure = LoopClosure(model, free_bodies, tree, closure_rows, closure_names);
  std::vector<int> position(model.bodies.size());  // model index -> tree index
  for (size_t k = 0; k < tree.topological_order.size(); ++k)
    position[tree.topological_order[k]] = static_cast<int>(k);
  std::vector<TreeBody> bodies;
  double mass_scale = 0.0;
  int q_offset = 0, w_offset = 0;
  for (int mi : tree.topological_order) {
    const BodyDescription& desc = model.bodies[mi];
    TreeBody b;
    b.name = desc.name;
    b.model_index = mi;
    b.parent = tree.parent[mi] < 0 ? -1 : position[tree.parent[mi]];
    b.rigid = desc.kind == BodyKind::kRigid;
    b.d = spatial ? (b.rigid ? 6 : 3) : planar.body_coordinates[mi].size;
    b.p_offset = planar.body_coordinates[mi].offset;
    // Planar: the velocity level is the planar layout itself (the force elements write
    // there); spatial: blocks of d in tree order.
    b.w_offset = spatial ? w_offset : b.p_offset;
    w_offset += b.d;
    b.s_a.setZero();
    b.s_b.setZero();
    b.axis_a = Eigen::Vector2d::UnitX();
    const int ji = tree.parent_joint[mi];
    if (ji >= 0) {
      const JointDescription& j = model.joints[ji];
      b.joint = TreeKind(j.kind);
      b.joint_name = j.name;
      b.s_a = j.point_a.head<2>();
      b.s_b = j.point_b.head<2>();
      b.axis_a = j.axis_a.head<2>().normalized();
      b.length = j.length;
      if (b.joint == TreeJointKind::kPrismatic && b.d == 3) {
        const double theta_a = tree.parent[mi] < 0 ? 0.0 : model.bodies[tree.parent[mi]].angle;
        b.angle_offset = desc.angle - theta_a;
      }
    }
    b.n = b.joint == TreeJointKind::kFree ? b.d : 1;
    if (spatial) {
      b.spatial = SpatialJointOf(ji < 0 ? nullptr : &model.joints[ji], b.rigid);
      b.n = b.spatial.translation_count() + b.spatial.rotation_count();
    }
    b.q_offset = q_offset;
    q_offset += b.n;
    mass_scale = std::max({mass_scale, desc.mass, desc.inertia.diagonal().maxCoeff()});
    bodies.push_back(b);
  }

  // Joint coordinates of the stated pose and twist (spatial: the charts first).
  Vector q = Vector::Zero(q_offset), v = Vector::Zero(q_offset);
  if (spatial) {
    std::vector<BodyMotion> motion;
    BodiesFromCoordinates(*planar_blocks, planar.q_guess, planar.v_guess, motion);
    const std::vector<SpatialFrame> frames = FramesOfBodies(bodies, motion);
    Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
    for (const ForceDescription& f : model.forces)
      if (f.kind == ForceKind::kGravity) gravity += f.vector;
    for (TreeBody& b : bodies) {
      const SpatialFrame* parent = b.parent < 0 ? nullptr : &frames[b.parent];
      ChooseSpatialCharts(b.spatial, parent, b.parent >= 0 && bodies[b.parent].rigid,
                          frames[&b - bodies.data()], gravity);
    }
    SpatialJointCoordinatesOf(bodies, frames, q, v);
  } else {
    JointCoordinatesFromAbsolute(bodies, planar.q_guess, planar.v_guess, q, v);
  }

  std::vector<TreeForce> forces;
  const BodyIndex index(model);
  auto tree_index = [&](const std::string& name) {
    const int mi = name.empty() ? -1 : index.Find(name, "force element");
    return mi < 0 ? -1 : position[mi];
  };
  for (const ForceDescription& d : model.forces) {
    TreeForce e;
    e.kind = d.kind;
    e.a = tree_index(d.body_a);
    e.b = tree_index(d.body_b);
    e.sa = d.point_a.head<2>();
    e.sb = d.point_b.head<2>();
    e.sa3 = d.point_a;
    e.sb3 = d.point_b;
    e.vector = d.vector;
    e.stiffness = d.stiffness;
    e.damping = d.damping;
    e.rest = d.rest_length;
    e.law = d.law;
    forces.push_back(e);
  }
  std::vector<BodyMatrix> mass_blocks;
  std::vector<Eigen::Matrix3d> inertia;
  for (const TreeBody& tb : bodies) {
    const BodyDescription& b = model.bodies[tb.model_index];
    BodyMatrix m = BodyMatrix::Zero(tb.d, tb.d);
    m.topLeftCorner(model.dimension, model.dimension).diagonal().setConstant(b.mass);
    // (11): diag(m, m, J); spatial diag(m I, R J R^T), the rotation block set per state.
    if (tb.rigid && !spatial) m(2, 2) = b.inertia(0, 0);
    mass_blocks.push_back(m);
    inertia.push_back(tb.rigid ? b.inertia : Eigen::Matrix3d::Zero());
  }
  auto dae = std::make_shared<JointTreeDae>(bodies, forces, mass_blocks, planar.dae, mass_scale,
                                            model.dimension, inertia, closure);
  FormulatedModel out;
  out.model = stated;
  out.dae = dae;
  out.q_guess = q;
  out.v_guess = v;
  out.hold_q.resize(0, q_offset);
  out.hold_v.resize(0, q_offset);
  // Holds matter only to the assembly of loop-closure constraints (a tree needs none).
  bool holds = false;
  for (const BodyDescription& b : model.bodies) holds = holds || !b.hold.empty();
  if (dae->num_constraints() > 0 && holds) HeldRows(model, *dae, q, out);
  out.stated_q = Vector::Zero(q_offset);
  out.stated_v = Vector::Zero(q_offset);
  out.rows = closure_rows;
  out.constraint_names = closure_names;
  out.coordinate_periods = JointAnglePeriods(bodies, spatial, q_offset);
  out.angle_outputs_wrap = planar.angle_outputs_wrap;  // its outputs are those of `planar`
  // References and peers hand back body motions: absolute coordinates through the planar
  // blocks of the same bodies (spatial: the frames), then the inverse of (7), (8).
  out.coordinates_from_bodies = [dae, planar_blocks](const std::vector<BodyMotion>& motion,
                                                     Vector& qq, Vector& vv) {
    if (qq.size() != dae->num_coordinates() || !qq.allFinite()) qq.setZero(dae->num_coordinates());
    vv.resize(dae->num_coordinates());
    if (dae->spatial()) {
      SpatialJointCoordinatesOf(dae->bodies(), FramesOfBodies(dae->bodies(), motion), qq, vv);
      return;
    }
    // Per-thread buffers: a peer engine maps every step through here (the MuJoCo peer's
    // allocation check), so no allocation once sized.
    thread_local Vector pp, ppv;
    pp.resize(dae->num_absolute());
    ppv.resize(dae->num_absolute());
    CoordinatesFromBodies(*planar_blocks, motion, pp, ppv);
    JointCoordinatesFromAbsolute(dae->bodies(), pp, ppv, qq, vv);
  };
  out.bodies_from_coordinates = [dae](const Vector& qq, const Vector& vv,
                                      std::vector<BodyMotion>& motion) {
    Vector pp(dae->num_absolute()), ppv(dae->num_absolute());
    dae->CalcBodyMotions(qq, vv, pp, ppv, motion);
  };
  auto planar_outputs = planar.calc_outputs;
  const int np = dae->num_absolute();
  out.calc_outputs = [dae, planar_outputs, np](double t, const Vector& qq, const Vector& vv,
                                               Vector& values) {
    Vector pp(np), ppv(np);
    dae->CalcAbsolute(qq, vv, pp, ppv);
    planar_outputs(t, pp, ppv, values);
  };
  return out;
}

}  // namespace mbb
