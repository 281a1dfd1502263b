// Trees of S, R, C, P, E pairs in directors: reparametrisation and discrete null space matrix
// of paper 002 sections 3.3, 4.5 (spherical_tree.h).
#include "methods/energy_momentum/spherical_tree.h"

#include <Eigen/Geometry>
#include <cmath>

#include "problems/model/formulation.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

V3 Director(const Vector& q, int offset, int k) { return q.segment<3>(offset + 3 + 3 * k); }

// Global vector s_I d_I of a body vector s (body axes) at q; s itself for the ground.
V3 BodyVector(const Vector& q, int offset, const V3& s) {
  if (offset < 0) return s;
  return s[0] * Director(q, offset, 0) + s[1] * Director(q, offset, 1) +
         s[2] * Director(q, offset, 2);
}

// A body point r + s_I d_I (the ground: s).
V3 BodyPoint(const Vector& q, int offset, const V3& s) {
  return offset < 0 ? s : V3(q.segment<3>(offset) + BodyVector(q, offset, s));
}

// exp(theta^) by Rodrigues' formula (eq 43).
Eigen::Matrix3d Exp(const V3& theta) {
  const double angle = theta.norm();
  if (angle == 0.0) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, theta / angle).toRotationMatrix();
}

}  // namespace

std::unique_ptr<SphericalTree> SphericalTree::Make(const Problem& problem) {
  const auto& s = problem.structure;
  // Spatial director blocks (the layout the directors formulation declares), no loops.
  if (!s || s->bodies.size() != s->model.bodies.size() || s->model.dimension != 3 ||
      !s->model.drivers.empty() || !s->tree.cut_joints.empty())
    return nullptr;
  auto tree = std::unique_ptr<SphericalTree>(new SphericalTree());
  tree->n_ = problem.n();
  std::vector<int> node_of_body(s->model.bodies.size(), -1);
  size_t tree_joints = 0;
  for (int b : s->tree.topological_order) {
    const BodyDescription& body = s->model.bodies[b];
    if (body.kind != BodyKind::kRigid || s->bodies[b].layout != BodyLayout::kSpatialDirectors)
      return nullptr;
    Node node;
    node.offset = s->bodies[b].offset;
    node.unknown = tree->dof_;
    const int j = s->tree.parent_joint[b];
    if (j < 0) {
      node.kind = Kind::kFree;
      node.count = 6;
    } else {
      const JointDescription& joint = s->model.joints[j];
      const bool child_is_b = joint.body_b == body.name;
      switch (joint.kind) {
        case JointKind::kSpherical:
          node.kind = Kind::kSpherical;
          node.count = 3;
          break;
        case JointKind::kRevolute:
          node.kind = Kind::kRevolute;
          node.count = 1;
          break;
        case JointKind::kCylindrical:
          node.kind = Kind::kCylindrical;
          node.count = 2;
          break;
        case JointKind::kPrismatic:  // the P pair (s4.5.4): one slide, no relative rotation
          node.kind = Kind::kPrismatic;
          node.count = 1;
          break;
        case JointKind::kPlanar:
          node.kind = Kind::kPlanar;
          node.count = 3;
          break;
        default:
          return nullptr;
      }
      if (node.kind != Kind::kSpherical && !child_is_b) return nullptr;  // axis on the child
      node.s_parent = child_is_b ? joint.point_a : joint.point_b;
      node.s_child = child_is_b ? joint.point_b : joint.point_a;
      // The axes exactly as director_formulation.cc's MakeJointFrame writes the rows.
      node.ua = joint.axis_a.norm() > 0.0 ? V3(joint.axis_a.normalized()) : V3(V3::UnitZ());
      PerpendicularPair(node.ua, node.fa, node.ga);
      node.hb = joint.axis_b.norm() > 0.0 ? V3(joint.axis_b.normalized()) : V3(V3::UnitZ());
      const int parent = s->tree.parent[b];
      node.parent_offset = parent < 0 ? -1 : s->bodies[parent].offset;
      node.parent = parent < 0 ? -1 : node_of_body[parent];
      ++tree_joints;
    }
    tree->dof_ += node.count;
    node_of_body[b] = static_cast<int>(tree->nodes_.size());
    tree->nodes_.push_back(node);
  }
  if (s->model.joints.size() != tree_joints) return nullptr;  // a joint off the tree
  return tree;
}

void SphericalTree::WrapRotations(Vector& mu) const {
  for (const Node& node : nodes_) {
    if (node.kind != Kind::kFree && node.kind != Kind::kSpherical) continue;
    auto theta = mu.segment<3>(node.unknown + (node.kind == Kind::kFree ? 3 : 0));
    const double angle = theta.norm();
    if (angle <= M_PI) continue;
    const double wrapped = std::remainder(angle, 2.0 * M_PI);  // in [-pi, pi]
    theta *= wrapped / angle;
  }
}

// Eqs (44), (93)-(95) (S), (118), (126) (C, R), (152)-(154) (E), with the relative rotation
// about the body's axis h_b (header).
void SphericalTree::Configuration(const Vector& q0, const Vector& mu, Vector& q1) const {
  q1 = q0;
  std::vector<Eigen::Matrix3d>& increment = increment_;  // incremental rotation per body
  increment.resize(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    const int o = node.offset;
    const Eigen::Matrix3d parent_increment =
        node.parent < 0 ? Eigen::Matrix3d::Identity() : increment[node.parent];
    const double relative = mu[node.unknown + node.count - 1];  // theta' of R, C, E
    switch (node.kind) {
      case Kind::kFree:
        increment[i] = Exp(mu.segment<3>(node.unknown + 3));
        break;
      case Kind::kSpherical:
        increment[i] = Exp(mu.segment<3>(node.unknown));
        break;
      case Kind::kPrismatic:  // the body turns with its parent (136: the C pair with theta = 0)
        increment[i] = parent_increment;
        break;
      default:
        increment[i] = parent_increment * Exp(relative * BodyVector(q0, o, node.hb));
    }
    for (int k = 0; k < 3; ++k) q1.segment<3>(o + 3 + 3 * k) = increment[i] * Director(q0, o, k);
    if (node.kind == Kind::kFree) {
      q1.segment<3>(o) = q0.segment<3>(o) + mu.segment<3>(node.unknown);
      continue;
    }
    const V3 joint1 = BodyPoint(q1, node.parent_offset, node.s_parent);
    V3 separation = V3::Zero();  // d = p_b - p_a at the end of the step
    if (node.kind != Kind::kSpherical) {
      V3 d0 = BodyPoint(q0, o, node.s_child) - BodyPoint(q0, node.parent_offset, node.s_parent);
      if (node.kind == Kind::kCylindrical || node.kind == Kind::kPrismatic)
        d0 += mu[node.unknown] * BodyVector(q0, node.parent_offset, node.ua);
      if (node.kind == Kind::kPlanar)
        d0 += mu[node.unknown] * BodyVector(q0, node.parent_offset, node.fa) +
              mu[node.unknown + 1] * BodyVector(q0, node.parent_offset, node.ga);
      separation = parent_increment * d0;
    }
    q1.segment<3>(o) = joint1 + separation - BodyVector(q1, o, node.s_child);  // (94)
  }
}

// Eqs (55), (83)-(87) (S), (106)-(113) (C), (122)-(125) (R), (142)-(151) (E), at q.
void SphericalTree::NullSpace(const Vector& q, Matrix& p) const {
  p.setZero(n_, dof_);
  std::vector<V3>& v = v_;
  std::vector<V3>& w = w_;
  v.resize(nodes_.size());
  w.resize(nodes_.size());
  for (int column = 0; column < dof_; ++column) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      const int local = column - node.unknown;
      auto own = [&](int k) { return local == k ? 1.0 : 0.0; };
      const V3 wp = node.parent < 0 ? V3::Zero() : w[node.parent];
      const V3 vp = node.parent < 0 ? V3::Zero() : v[node.parent];
      const int po = node.parent_offset;
      switch (node.kind) {
        case Kind::kFree:
          v[i] = V3(own(0), own(1), own(2));
          w[i] = V3(own(3), own(4), own(5));
          break;
        case Kind::kSpherical:
          w[i] = V3(own(0), own(1), own(2));
          break;
        case Kind::kPrismatic:
          w[i] = wp;
          break;
        default:
          w[i] = wp + own(node.count - 1) * BodyVector(q, node.offset, node.hb);
      }
      if (node.kind != Kind::kFree) {
        // Joint point of the parent, its velocity, and the separation's rate.
        const V3 point_velocity = vp + wp.cross(BodyVector(q, po, node.s_parent));
        V3 separation_rate = V3::Zero();
        if (node.kind != Kind::kSpherical) {
          const V3 d = BodyPoint(q, node.offset, node.s_child) - BodyPoint(q, po, node.s_parent);
          separation_rate = wp.cross(d);
          const V3 u = BodyVector(q, po, node.ua), f = BodyVector(q, po, node.fa),
                   g = BodyVector(q, po, node.ga);
          if (node.kind == Kind::kCylindrical || node.kind == Kind::kPrismatic)
            separation_rate += own(0) * f.cross(g);  // (133); P: (131), (133)
          if (node.kind == Kind::kPlanar)
            separation_rate += own(0) * g.cross(u) + own(1) * u.cross(f);  // (149)
        }
        v[i] =
            point_velocity + separation_rate - w[i].cross(BodyVector(q, node.offset, node.s_child));
      }
      p.block<3, 1>(node.offset, column) = v[i];
      for (int k = 0; k < 3; ++k)  // d_I' = omega x d_I (27)
        p.block<3, 1>(node.offset + 3 + 3 * k, column) = w[i].cross(Director(q, node.offset, k));
    }
  }
}

}  // namespace mbb
