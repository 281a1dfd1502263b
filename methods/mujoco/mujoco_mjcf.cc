// Writing the MJCF text of a MuJoCo 2.2.2 model from a ModelStructure (the translation
// mujoco_model.cc compiles and runs; Todorov, Erez, Tassa, "MuJoCo: a physics engine for
// model-based control", IROS 2012: joint coordinates on a kinematic tree, loops and other
// couplings by soft equality constraints). Conventions:
//  - Each MuJoCo body's frame is the model body's frame (origin at the centre of mass) at
//    t0, nested as the problem's kinematic tree (ModelStructure::tree), so the MuJoCo
//    reference configuration (qpos0) is the problem's initial pose. A planar model
//    (dimension 2) is built in MuJoCo's X-Y plane, rotations about Z.
//  - Tree joints: revolute -> hinge (axis z in a planar model, the joint axis in a spatial
//    one), prismatic -> slide, spherical -> ball, cylindrical -> slide then hinge,
//    planar (spatial) -> two slides then a hinge, fixed -> no joint (welded). A body without
//    a tree joint is free: a free joint (spatial rigid body), slides x, y, z (spatial point
//    mass), slides x, y and a hinge z (planar rigid body), slides x, y (planar point mass).
//  - A point mass has no rotational inertia. A distance joint ending at its centre (the
//    planar and spatial pendulums' rod) is a hinge z (planar) or ball (spatial) at the
//    rod's other end: the MuJoCo body's frame sits at the pivot, its mass at the bob. A
//    revolute or spherical joint at a point mass's centre welds it (its position follows
//    the parent's point; it has no orientation). A point mass gets the rotational inertia
//    max(1e-14 m (rod length^2 or 1 m^2), 1e-14 kg m^2) about each axis, which MuJoCo's
//    compiler needs (mass and inertia of moving bodies above mjMINVAL = 1e-15): it adds
//    1e-14 relative to a rod pendulum's m l^2 (1.6e-12 on spatial_pendulum), and about the
//    rod's own axis it only carries a spin that no load excites.
//  - Forces: gravity -> mjOption gravity; a torsional spring-damper between two bodies
//    joined by a tree hinge -> the hinge's stiffness, springref and damping (MuJoCo's passive
//    force, -k (q - q_spring) - c q'); applied forces and torques (their time laws at the
//    stage's time) and translational spring-dampers -> qfrc_passive through MuJoCo's
//    passive-force callback (PassiveLoads), for the model the thread is running.
//  - Cut joints: refused by default; loops=connect closes revolute and spherical ones with
//    soft connect equality constraints (LoopClosure). Refused (not_applicable naming the
//    element): drivers, other joints and forces.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "methods/mujoco/mujoco_model.h"  // WriteMjcf
#include "problems/core/format.h"
#include "problems/model/body_motion.h"
#include "problems/model/model_compiler.h"  // JointKindName

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

// A point mass's rotational inertia, relative to m l^2 (see the header comment), and at
// least 10 mjMINVAL (1e-14 kg m^2), which MuJoCo's compiler accepts. Measured on
// planar_pendulum (m l^2 = 1) at h = 5e-4: relative 1e-10 gives an error floor of 2.1e-9,
// 1e-12 one of 2.2e-11, 1e-14 the RK4 error 1.2e-12.
constexpr double kPointInertia = 1e-14;

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
std::string Vec(const V3& v) { return Num(v.x()) + " " + Num(v.y()) + " " + Num(v.z()); }
std::string Quat(const Eigen::Quaterniond& q) {
  return Num(q.w()) + " " + Num(q.x()) + " " + Num(q.y()) + " " + Num(q.z());
}

class Builder {
 public:
  Builder(const Problem& problem, MujocoModel& out)
      : problem_(problem), out_(out), s_(*problem.structure), m_(s_.model) {}

  // The MJCF text, or "" with the reason in why_not.
  std::string Build(const MujocoOptions& options, std::string& why_not) {
    planar_ = m_.dimension == 2;
    out_.planar = planar_;
    if (!m_.drivers.empty()) {
      why_not = "driver '" + m_.drivers[0].name + "': prescribed motions are not translated";
      return {};
    }
    why_not = BodyCoordinatesUnsupported(s_, problem_.n());
    if (!why_not.empty()) return {};
    const size_t nb = m_.bodies.size();
    if (s_.tree.parent.size() != nb || s_.tree.parent_joint.size() != nb ||
        s_.tree.topological_order.size() != nb || s_.joint_ends.size() != m_.joints.size()) {
      why_not = "the structure's kinematic tree does not cover the model's bodies";
      return {};
    }
    if (!s_.tree.cut_joints.empty() && options.loops != "connect") {
      const JointDescription& jd = m_.joints[s_.tree.cut_joints[0]];
      why_not = "joint '" + jd.name + "' (" + JointKindName(jd.kind) +
                ") closes a kinematic loop: MuJoCo closes loops only with soft equality "
                "constraints (loops=connect)";
      return {};
    }
    BodiesFromCoordinates(s_, problem_.q0, problem_.v0, out_.start);
    out_.motion = out_.start;
    out_.rigid.resize(nb);
    frame_pos_.resize(nb);
    frame_rot_.resize(nb);
    body_xml_.resize(nb);
    children_.assign(nb, {});
    std::vector<int> roots;
    for (int b : s_.tree.topological_order) {
      out_.rigid[b] = m_.bodies[b].kind == BodyKind::kRigid;
      why_not = BodyElement(b);
      if (!why_not.empty()) return {};
      (s_.tree.parent[b] < 0 ? roots : children_[s_.tree.parent[b]]).push_back(b);
    }
    V3 gravity = V3::Zero();
    for (const ForceDescription& f : m_.forces) {
      why_not = AddForce(f, gravity);
      if (!why_not.empty()) return {};
    }
    std::string equality;
    for (int j : s_.tree.cut_joints) {
      why_not = LoopClosure(m_.joints[j], options, equality);
      if (!why_not.empty()) return {};
    }
    const std::string& integrator = options.integrator;
    const double h = options.h;
    const char* integrator_name = integrator == "euler"      ? "Euler"
                                  : integrator == "implicit" ? "implicit"
                                                             : "RK4";
    std::string xml = "<mujoco model=\"mbbench\">\n";
    xml += "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
    xml += "  <option timestep=\"" + Num(h) + "\" gravity=\"" + Vec(gravity) + "\" integrator=\"" +
           integrator_name + "\"/>\n";
    xml += "  <worldbody>\n";
    for (int b : roots) Emit(b, -1, 2, xml);
    xml += "  </worldbody>\n";
    if (!equality.empty()) xml += "  <equality>\n" + equality + "  </equality>\n";
    xml += "</mujoco>\n";
    return xml;
  }

 private:
  int Index(const std::string& name) const {
    return name == "ground" ? -1 : FindBodyIndex(m_, name, "the MuJoCo peer");
  }
  M3 StartRotation(int b) const {
    if (b < 0) return M3::Identity();
    if (planar_) return M3(Eigen::AngleAxisd(out_.start[b].angle, V3::UnitZ()));
    return out_.start[b].orientation.toRotationMatrix();
  }
  V3 StartPoint(int b, const V3& s) const {
    return b < 0 ? s : V3(out_.start[b].position + StartRotation(b) * s);
  }
  V3 FramePos(int b) const { return b < 0 ? V3::Zero() : frame_pos_[b]; }
  M3 FrameRot(int b) const { return b < 0 ? M3::Identity() : frame_rot_[b]; }

  std::string Inertial(int b, double length) const {
    const BodyDescription& d = m_.bodies[b];
    // The centre of mass in the MuJoCo body frame (the pivot's frame for a rod).
    const V3 com = FrameRot(b).transpose() * (out_.start[b].position - FramePos(b));
    std::string full;
    if (d.kind == BodyKind::kRigid) {
      if (planar_) {
        // Planar: J about z; only Izz ever acts. A body without rotational inertia (the
        // stiff pendulum's bob, J = 0) gets the point masses' stand-in, 10 mjMINVAL.
        const double j = std::max(d.inertia(0, 0), 10.0 * mjMINVAL);
        return "<inertial pos=\"" + Vec(com) + "\" mass=\"" + Num(d.mass) + "\" diaginertia=\"" +
               Num(j) + " " + Num(j) + " " + Num(j) + "\"/>";
      } else {
        full = Num(d.inertia(0, 0)) + " " + Num(d.inertia(1, 1)) + " " + Num(d.inertia(2, 2)) +
               " " + Num(d.inertia(0, 1)) + " " + Num(d.inertia(0, 2)) + " " + Num(d.inertia(1, 2));
      }
    } else {
      // diaginertia: MuJoCo's check of fullinertia (positive eigenvalues) refuses 6e-15.
      const double i = std::max(kPointInertia * d.mass * (length > 0.0 ? length * length : 1.0),
                                10.0 * mjMINVAL);
      return "<inertial pos=\"" + Vec(com) + "\" mass=\"" + Num(d.mass) + "\" diaginertia=\"" +
             Num(i) + " " + Num(i) + " " + Num(i) + "\"/>";
    }
    return "<inertial pos=\"" + Vec(com) + "\" mass=\"" + Num(d.mass) + "\" fullinertia=\"" + full +
           "\"/>";
  }

  // Frame, joints and inertial of body b (its tree joint translated).
  std::string BodyElement(int b) {
    const BodyDescription& body = m_.bodies[b];
    const bool point = body.kind == BodyKind::kPointMass;
    const int j = s_.tree.parent_joint[b];
    frame_pos_[b] = out_.start[b].position;
    frame_rot_[b] = StartRotation(b);
    std::string& x = body_xml_[b];
    if (j < 0) {  // free relative to the ground
      if (planar_)
        x = "<joint type=\"slide\" axis=\"1 0 0\"/><joint type=\"slide\" axis=\"0 1 0\"/>" +
            std::string(point ? "" : "<joint type=\"hinge\" axis=\"0 0 1\"/>");
      else if (point)
        x = "<joint type=\"slide\" axis=\"1 0 0\"/><joint type=\"slide\" axis=\"0 1 0\"/>"
            "<joint type=\"slide\" axis=\"0 0 1\"/>";
      else
        x = "<freejoint/>";
      x += Inertial(b, 0.0);
      return {};
    }
    const JointDescription& jd = m_.joints[j];
    const std::string what = "joint '" + jd.name + "' (" + JointKindName(jd.kind) + ")";
    const int a_index = s_.joint_ends[j].body_a, b_index = s_.joint_ends[j].body_b;
    const int parent = s_.tree.parent[b];
    if (!((a_index == parent && b_index == b) || (b_index == parent && a_index == b)))
      return "tree " + what + " does not join body '" + body.name + "' to its tree parent";
    const bool parent_is_a = a_index == parent;
    const V3 parent_point = parent_is_a ? jd.point_a : jd.point_b;
    const V3 child_point = parent_is_a ? jd.point_b : jd.point_a;
    const V3 axis_parent = parent_is_a ? jd.axis_a : jd.axis_b;
    const V3 axis_global = StartRotation(parent) * axis_parent;
    const bool at_centre = child_point.norm() == 0.0;
    auto axis_in_child = [&](const V3& global) {
      return V3(frame_rot_[b].transpose() * global.normalized());
    };
    switch (jd.kind) {
      case JointKind::kRevolute:
        if (point) {
          if (!at_centre) return what + " off the centre of point mass '" + body.name + "'";
          x.clear();  // welded: the mass follows the parent's point
        } else {
          const V3 axis = planar_ ? V3(V3::UnitZ()) : axis_in_child(axis_global);
          if (axis.norm() == 0.0 || !axis.allFinite()) return what + ": no axis";
          x = "<joint type=\"hinge\" pos=\"" + Vec(child_point) + "\" axis=\"" + Vec(axis) + "\"/>";
          hinges_.push_back({parent, b});
        }
        break;
      case JointKind::kPrismatic: {
        V3 along = axis_global;
        if (planar_) {  // the slide direction in the plane (planar_formulation.cc)
          along.z() = 0.0;
          if (along.norm() == 0.0) along = V3::UnitX();
        }
        if (along.norm() == 0.0) return what + ": no axis";
        x = "<joint type=\"slide\" axis=\"" + Vec(axis_in_child(along)) + "\"/>";
        break;
      }
      case JointKind::kSpherical:
        if (planar_) return what + " in a planar model";
        if (point) {
          if (!at_centre) return what + " off the centre of point mass '" + body.name + "'";
          x.clear();  // welded, as above
        } else {
          x = "<joint type=\"ball\" pos=\"" + Vec(child_point) + "\"/>";
        }
        break;
      case JointKind::kCylindrical:
      case JointKind::kPlanar: {
        // Slides first, then the hinge: MuJoCo applies a body's joints in order, so the
        // slides keep the parent's directions and the hinge turns about the axis through
        // the joint point wherever the slides took it.
        if (planar_) return what + " in a planar model";
        if (point) return what + " on point mass '" + body.name + "'";
        if (axis_global.norm() == 0.0) return what + ": no axis";
        const V3 axis = axis_in_child(axis_global);
        if (jd.kind == JointKind::kCylindrical) {
          x = "<joint type=\"slide\" axis=\"" + Vec(axis) + "\"/>";
        } else {  // the axis is the plane's normal
          V3 u, w;
          PerpendicularPair(axis_global.normalized(), u, w);
          x = "<joint type=\"slide\" axis=\"" + Vec(axis_in_child(u)) +
              "\"/><joint type=\"slide\" axis=\"" + Vec(axis_in_child(w)) + "\"/>";
        }
        x += "<joint type=\"hinge\" pos=\"" + Vec(child_point) + "\" axis=\"" + Vec(axis) + "\"/>";
        break;
      }
      case JointKind::kFixed:
        x.clear();
        break;
      case JointKind::kDistance: {
        if (!point || !at_centre)
          return what +
                 ": a distance joint is translated only as a rod ending at the centre "
                 "of a point mass";
        // The rod: the MuJoCo body's frame at the pivot (global axes at t0), the mass at
        // the bob.
        const V3 pivot = StartPoint(parent, parent_point);
        const double length = (out_.start[b].position - pivot).norm();
        if (std::abs(length - jd.length) > 1e-9 * std::max(1.0, jd.length))
          return what + ": the bob starts " + FormatNumber(length) +
                 " m from the pivot, not the rod's length " + FormatNumber(jd.length);
        frame_pos_[b] = pivot;
        frame_rot_[b] = M3::Identity();
        x = planar_ ? "<joint type=\"hinge\" axis=\"0 0 1\"/>" : "<joint type=\"ball\"/>";
        x += Inertial(b, length);
        return {};
      }
      default:
        return what + " has no MuJoCo joint in the peer";
    }
    x += Inertial(b, 0.0);
    return {};
  }

  // A cut joint as MuJoCo connect constraints: body a's point (in a's MuJoCo frame) kept at
  // the point of b that coincides with it at t0 (MuJoCo takes b's point from qpos0, the
  // problem's initial pose). Planar revolute and spherical: one connect; spatial revolute:
  // a second one a unit along the axis (6 equations for the joint's 5, redundant ones are
  // regularised by MuJoCo's soft constraints). solref (time constant, damping ratio 1) and
  // solimp near hard (docs/methods/mujoco.md).
  std::string LoopClosure(const JointDescription& jd, const MujocoOptions& o,
                          std::string& equality) const {
    const std::string what = "joint '" + jd.name + "' (" + JointKindName(jd.kind) + ")";
    const int ia = Index(jd.body_a), ib = Index(jd.body_b);
    std::vector<V3> points{StartPoint(ia, jd.point_a)};  // global at t0
    switch (jd.kind) {
      case JointKind::kRevolute:
        if (!planar_) {
          const V3 axis = StartRotation(ia) * jd.axis_a;
          if (axis.norm() == 0.0) return what + ": no axis";
          points.push_back(points[0] + axis.normalized());
        }
        break;
      case JointKind::kSpherical:
        if (planar_) return what + " in a planar model";
        break;
      default:
        return what + " closes a kinematic loop: no MuJoCo connect translation for it";
    }
    const std::string body1 = ia < 0 ? "world" : "b" + std::to_string(ia);
    const std::string body2 = ib < 0 ? "world" : "b" + std::to_string(ib);
    const double imp = o.loop_solimp;
    for (size_t k = 0; k < points.size(); ++k) {
      const V3& p = points[k];
      const V3 anchor = FrameRot(ia).transpose() * (p - FramePos(ia));
      equality += "    <connect name=\"" + jd.name + "#" + std::to_string(k) + "\" body1=\"" +
                  body1 + "\" body2=\"" + body2 + "\" anchor=\"" + Vec(anchor) + "\" solref=\"" +
                  Num(o.loop_timeconst_h * o.h) + " 1\" solimp=\"" + Num(imp) + " " + Num(imp) +
                  " 0.001 0.5 2\"/>\n";
    }
    return {};
  }

  void Emit(int b, int parent, int depth, std::string& xml) const {
    const M3 rp = FrameRot(parent);
    const V3 pos = rp.transpose() * (frame_pos_[b] - FramePos(parent));
    const Eigen::Quaterniond quat(M3(rp.transpose() * frame_rot_[b]));
    const std::string indent(2 * depth, ' ');
    xml += indent + "<body name=\"b" + std::to_string(b) + "\" pos=\"" + Vec(pos) + "\" quat=\"" +
           Quat(quat.normalized()) + "\">" + body_xml_[b] + "\n";
    for (int c : children_[b]) Emit(c, b, depth + 1, xml);
    xml += indent + "</body>\n";
  }

  std::string AddForce(const ForceDescription& f, V3& gravity) {
    const std::string what = "force '" + f.name + "'";
    switch (f.kind) {
      case ForceKind::kGravity:
        gravity += f.vector;
        return {};
      case ForceKind::kTorsionalSpring: {
        if (!planar_) return what + ": a spatial torsional spring is not translated";
        const int ia = Index(f.body_a), ib = Index(f.body_b);
        for (const Hinge& hinge : hinges_) {
          const bool child_is_b = hinge.parent == ia && hinge.child == ib;
          if (!child_is_b && !(hinge.parent == ib && hinge.child == ia)) continue;
          // The hinge's q = (theta_child - theta_parent) - (its value at t0): the spring's
          // theta_b - theta_a - rest = +-(q - springref).
          const double d0 =
              (ib < 0 ? 0.0 : out_.start[ib].angle) - (ia < 0 ? 0.0 : out_.start[ia].angle);
          const double springref = child_is_b ? f.rest_length - d0 : d0 - f.rest_length;
          std::string& x = body_xml_[hinge.child];
          const std::string open = "<joint type=\"hinge\"";
          const size_t at = x.find(open);
          if (at == std::string::npos || x.find(" stiffness=", at) < x.find("/>", at))
            return what + ": a second spring on the same hinge";
          x.insert(at + open.size(), " stiffness=\"" + Num(f.stiffness) + "\" springref=\"" +
                                         Num(springref) + "\" damping=\"" + Num(f.damping) + "\"");
          return {};
        }
        return what + ": a torsional spring between bodies not joined by a tree hinge";
      }
      case ForceKind::kForce:
      case ForceKind::kTorque:
      case ForceKind::kSpringDamper: {
        MujocoModel::Load load;
        load.kind = f.kind == ForceKind::kForce    ? MujocoModel::Load::Kind::kForce
                    : f.kind == ForceKind::kTorque ? MujocoModel::Load::Kind::kTorque
                                                   : MujocoModel::Load::Kind::kSpringDamper;
        const int ia = Index(f.body_a);
        const int ib = f.kind == ForceKind::kSpringDamper ? Index(f.body_b) : -1;
        if (f.kind != ForceKind::kSpringDamper && ia < 0) return {};  // on the ground
        load.body_a = ia;  // model indices here, MuJoCo ids after compiling
        load.body_b = ib;
        load.point_a = FrameRot(ia).transpose() * (StartPoint(ia, f.point_a) - FramePos(ia));
        load.point_b = FrameRot(ib).transpose() * (StartPoint(ib, f.point_b) - FramePos(ib));
        load.vector = f.vector;
        if (planar_ && f.kind == ForceKind::kTorque) load.vector = V3(0, 0, f.vector.z());
        if (planar_ && f.kind == ForceKind::kForce) load.vector.z() = 0.0;
        load.law = f.law;
        load.stiffness = f.stiffness;
        load.damping = f.damping;
        load.rest_length = f.rest_length;
        out_.loads.push_back(load);
        return {};
      }
      default:
        return what + " is not translated by the MuJoCo peer";
    }
  }

  struct Hinge {
    int parent, child;
  };

  const Problem& problem_;
  MujocoModel& out_;
  const ModelStructure& s_;
  const ModelDescription& m_;
  bool planar_ = true;
  std::vector<V3> frame_pos_;  // per body: the MuJoCo body frame at t0 (global)
  std::vector<M3> frame_rot_;
  std::vector<std::string> body_xml_;  // joints and inertial
  std::vector<std::vector<int>> children_;
  std::vector<Hinge> hinges_;
};

}  // namespace

std::string WriteMjcf(const Problem& problem, const MujocoOptions& options, MujocoModel& out,
                      std::string& why_not) {
  Builder builder(problem, out);
  return builder.Build(options, why_not);
}

}  // namespace mbb
