// The joint-tree formulation of spatial models (joint_tree.h, joint_tree_spatial.h; paper
// 004 s3.1-3.2): the forward recursion (7), (8) over SpatialJointKinematics, the body mass
// matrices M_i = diag(m I, R J R^T) of (11) at the velocity level (v, w), and the forces
// f_i of (11): the force elements, and for a rigid body the gyroscopic moment -w x (R J R^T) w
// (Euler's equations written with the global angular velocity).
#include <cmath>
#include <cstdio>

#include "problems/model/joint_tree.h"
#include "problems/model/joint_tree_internal.h"

namespace mbb {
namespace {

// A body point and its velocity (the ground: s itself, at rest); arm = the point minus the
// centre of mass for a rigid body, zero for a point mass (which takes no moment).
void FramePoint(const std::vector<TreeBody>& bodies, const std::vector<SpatialFrame>& frames,
                int body, const Eigen::Vector3d& s, Eigen::Vector3d& x, Eigen::Vector3d& xv,
                Eigen::Vector3d& arm) {
  arm.setZero();
  if (body < 0) {
    x = s;
    xv.setZero();
    return;
  }
  const SpatialFrame& f = frames[body];
  if (bodies[body].rigid) {
    arm = f.R * s;
    x = f.x + arm;
    xv = f.v + f.w.cross(arm);
  } else {
    x = f.x + s;  // a point mass: a global offset
    xv = f.v;
  }
}

void AddFrameForce(const std::vector<TreeBody>& bodies, int body, const Eigen::Vector3d& arm,
                   const Eigen::Vector3d& force, Vector& f) {
  if (body < 0) return;
  const TreeBody& b = bodies[body];
  f.segment<3>(b.w_offset) += force;
  if (b.rigid) f.segment<3>(b.w_offset + 3) += arm.cross(force);
}

}  // namespace

std::vector<SpatialFrame> FramesOfBodies(const std::vector<TreeBody>& bodies,
                                         const std::vector<BodyMotion>& motion) {
  std::vector<SpatialFrame> frames(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodyMotion& m = motion[bodies[i].model_index];
    frames[i].x = m.position;
    frames[i].v = m.velocity;
    if (!bodies[i].rigid) continue;
    frames[i].R = m.orientation.normalized().toRotationMatrix();
    frames[i].w = m.angular_velocity;
  }
  return frames;
}

void SpatialJointCoordinatesOf(const std::vector<TreeBody>& bodies,
                               const std::vector<SpatialFrame>& frames, Vector& q, Vector& v) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    const TreeBody& b = bodies[i];
    const SpatialFrame* parent = b.parent < 0 ? nullptr : &frames[b.parent];
    SpatialJointCoordinates(*b.spatial, parent, b.parent >= 0 && bodies[b.parent].rigid, b.rigid,
                            frames[i], q.data() + b.q_offset, v.data() + b.q_offset);
  }
}

Eigen::Matrix3d JointTreeDae::GlobalInertia(int i, const Eigen::Matrix3d& R) const {
  return R * inertia_[i] * R.transpose();
}

// Forward recursion (7), (8) from the root; with `s`, the blocks H_i, J_i, k_i^(II) of (9)
// and the smallest chart margin on the way.
void JointTreeDae::CalcFrames(ConstVectorRef q, ConstVectorRef v, std::vector<SpatialFrame>& frames,
                              TreeState* s) const {
  BodyMatrix A, B;
  BodyVector c;
  if (s) {
    s->chart_margin = 1.0;
    s->chart_body = -1;
  }
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    const SpatialFrame* parent = b.parent < 0 ? nullptr : &frames[b.parent];
    const bool parent_rigid = b.parent >= 0 && bodies_[b.parent].rigid;
    const double margin =
        SpatialJointKinematics(*b.spatial, parent, parent_rigid, b.rigid, q.data() + b.q_offset,
                               v.data() + b.q_offset, frames[i], A, B, c);
    if (!s) continue;
    s->H[i] = -A;   // (9): H_i = -dr_i/dp_{pi_i}
    s->J[i] = -B;   //      J_i = -dr_i/dq_i
    s->k2[i] = -c;  //      k_i^(II)
    if (margin < s->chart_margin) {
      s->chart_margin = margin;
      s->chart_body = i;
    }
  }
}

void JointTreeDae::CalcSpatialTreeState(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                        ConstVectorRef v, TreeState& s) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcFrames(q, v, s.frames, &s);
  CalcSpatialForces(t, s.frames, ws.forces_all, /*with_potential=*/true);  // f_i of (11)
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    s.f[i] = ws.forces_all.segment(b.w_offset, b.d);
    if (!b.rigid) continue;
    const Eigen::Matrix3d inertia = GlobalInertia(i, s.frames[i].R);
    s.M[i].bottomRightCorner<3, 3>() = inertia;                        // (11): diag(m I, R J R^T)
    s.f[i].tail<3>() -= s.frames[i].w.cross(inertia * s.frames[i].w);  // gyroscopic moment
  }
}

const TreeState& JointTreeDae::StateOf(DaeWorkspace& ws) const {
  return TreeWorkspace::Of(ws).state;
}

std::string JointTreeDae::ChartFailure(const TreeState& s) const {
  if (s.chart_body < 0 || !(s.chart_margin < kChartMargin)) return {};
  const TreeBody& b = bodies_[s.chart_body];
  const std::string what = b.spatial->translation == SpatialJoint::Translation::kDistance
                               ? "link-angle or Euler-angle"
                               : "Euler-angle";
  const std::string& where = b.spatial->where;
  char margin[64];
  std::snprintf(margin, sizeof margin, "margin %.1e < %.0e", s.chart_margin, kChartMargin);
  return where + ": its " + what + " chart is singular here (" + margin +
         "; the joint-tree formulation chooses its charts once, at the stated pose, and does "
         "not switch them)";
}

// The spatial formulation's force elements (model_equations.h) at the velocity level of
// the absolute coordinates: forces on the centre of mass and moments about it, O(N).
void JointTreeDae::CalcSpatialForces(double t, const std::vector<SpatialFrame>& frames, Vector& f,
                                     bool with_potential) const {
  f.setZero();
  Eigen::Vector3d xa, xva, arma, xb, xvb, armb;
  const double potential = with_potential ? 1.0 : 0.0;  // weight of gravity and springs
  for (const TreeForce& e : forces_) {
    switch (e.kind) {
      case ForceKind::kGravity:
        if (!with_potential) break;
        for (int i = 0; i < num_bodies(); ++i)
          f.segment<3>(bodies_[i].w_offset) += mass_blocks_[i](0, 0) * e.vector;
        break;
      case ForceKind::kSpringDamper: {
        FramePoint(bodies_, frames, e.a, e.sa3, xa, xva, arma);
        FramePoint(bodies_, frames, e.b, e.sb3, xb, xvb, armb);
        const Eigen::Vector3d d = xb - xa;
        const double length = d.norm();
        const Eigen::Vector3d dir = d / length;
        const double rate = dir.dot(xvb - xva);
        const Eigen::Vector3d force =
            -(potential * e.stiffness * (length - e.rest) + e.damping * rate) * dir;  // on b
        AddFrameForce(bodies_, e.b, armb, force, f);
        AddFrameForce(bodies_, e.a, arma, -force, f);
        break;
      }
      case ForceKind::kForce:
        FramePoint(bodies_, frames, e.a, e.sa3, xa, xva, arma);
        AddFrameForce(bodies_, e.a, arma, e.law.Eval(t) * e.vector, f);
        break;
      case ForceKind::kTorque:
        if (e.a >= 0 && bodies_[e.a].rigid)
          f.segment<3>(bodies_[e.a].w_offset + 3) += e.law.Eval(t) * e.vector;
        break;
      case ForceKind::kTorsionalSpring:
        break;  // planar only: refused for spatial trees (ValidateJointTreeModel)
    }
  }
}

double JointTreeDae::SpatialPotential(const std::vector<SpatialFrame>& frames) const {
  double energy = 0.0;
  Eigen::Vector3d xa, xva, arma, xb, xvb, armb;
  for (const TreeForce& e : forces_) {
    if (e.kind == ForceKind::kGravity) {  // V = -m g . x
      for (int i = 0; i < num_bodies(); ++i)
        energy -= mass_blocks_[i](0, 0) * e.vector.dot(frames[i].x);
    } else if (e.kind == ForceKind::kSpringDamper) {
      FramePoint(bodies_, frames, e.a, e.sa3, xa, xva, arma);
      FramePoint(bodies_, frames, e.b, e.sb3, xb, xvb, armb);
      const double stretch = (xb - xa).norm() - e.rest;
      energy += 0.5 * e.stiffness * stretch * stretch;
    }
  }
  return energy;
}

// The Euler-parameter formulation's layout: (x, e) and (x', e'), e' = 1/2 (0, w) e.
void JointTreeDae::FramesToLayout(const std::vector<SpatialFrame>& frames, VectorRef p,
                                  VectorRef pv) const {
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    p.segment<3>(b.p_offset) = frames[i].x;
    pv.segment<3>(b.p_offset) = frames[i].v;
    if (!b.rigid) continue;
    const Eigen::Quaterniond e(frames[i].R);
    const Eigen::Quaterniond w(0.0, frames[i].w.x(), frames[i].w.y(), frames[i].w.z());
    const Eigen::Quaterniond ed = w * e;
    p.segment<4>(b.p_offset + 3) << e.w(), e.x(), e.y(), e.z();
    pv.segment<4>(b.p_offset + 3) << 0.5 * ed.w(), 0.5 * ed.x(), 0.5 * ed.y(), 0.5 * ed.z();
  }
}

double JointTreeDae::SpatialEnergy(TreeWorkspace& ws, ConstVectorRef q, ConstVectorRef v) const {
  CalcFrames(q, v, ws.frames, nullptr);
  double kinetic = 0.0;
  for (int i = 0; i < num_bodies(); ++i) {
    const SpatialFrame& f = ws.frames[i];
    kinetic += 0.5 * mass_blocks_[i](0, 0) * f.v.squaredNorm();
    if (bodies_[i].rigid) kinetic += 0.5 * f.w.dot(GlobalInertia(i, f.R) * f.w);
  }
  return kinetic + SpatialPotential(ws.frames);
}

double JointTreeDae::SpatialAppliedPower(TreeWorkspace& ws, double t, ConstVectorRef q,
                                         ConstVectorRef v) const {
  CalcFrames(q, v, ws.frames, nullptr);
  CalcSpatialForces(t, ws.frames, ws.body_forces, /*with_potential=*/false);
  double power = 0.0;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    power += ws.body_forces.segment<3>(b.w_offset).dot(ws.frames[i].v);
    if (b.rigid) power += ws.body_forces.segment<3>(b.w_offset + 3).dot(ws.frames[i].w);
  }
  return power;
}

// Linear momentum and angular momentum about the origin.
void JointTreeDae::SpatialMomenta(TreeWorkspace& ws, ConstVectorRef q, ConstVectorRef v,
                                  Eigen::Vector3d& linear, Eigen::Vector3d& angular) const {
  CalcFrames(q, v, ws.frames, nullptr);
  linear.setZero();
  angular.setZero();
  for (int i = 0; i < num_bodies(); ++i) {
    const SpatialFrame& f = ws.frames[i];
    const Eigen::Vector3d momentum = mass_blocks_[i](0, 0) * f.v;
    linear += momentum;
    angular += f.x.cross(momentum);
    if (bodies_[i].rigid) angular += GlobalInertia(i, f.R) * f.w;
  }
}

}  // namespace mbb
