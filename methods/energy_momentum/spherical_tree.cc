// Spherical-pair trees in directors: reparametrisation and discrete null space matrix of
// paper 002 sections 3.3, 4.5.1 (spherical_tree.h).
#include "methods/energy_momentum/spherical_tree.h"

#include <Eigen/Geometry>
#include <cmath>

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

V3 Director(const Vector& q, int offset, int k) { return q.segment<3>(offset + 3 + 3 * k); }

// Global vector s_I d_I of a body point s (body axes) at q.
V3 BodyVector(const Vector& q, int offset, const V3& s) {
  return s[0] * Director(q, offset, 0) + s[1] * Director(q, offset, 1) +
         s[2] * Director(q, offset, 2);
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
  if (!s || s->formulation != "directors" || s->model.dimension != 3 || !s->model.drivers.empty() ||
      !s->tree.cut_joints.empty())
    return nullptr;
  auto tree = std::unique_ptr<SphericalTree>(new SphericalTree());
  tree->n_ = problem.n();
  for (int b : s->tree.topological_order) {
    const BodyDescription& body = s->model.bodies[b];
    if (body.kind != BodyKind::kRigid || s->bodies[b].size != 12) return nullptr;
    Node node;
    node.offset = s->bodies[b].offset;
    node.unknown = tree->dof_;
    const int j = s->tree.parent_joint[b];
    if (j < 0) {
      node.free = true;
      tree->dof_ += 6;
    } else {
      const JointDescription& joint = s->model.joints[j];
      if (joint.kind != JointKind::kSpherical) return nullptr;
      const bool child_is_b = joint.body_b == body.name;
      node.s_parent = child_is_b ? joint.point_a : joint.point_b;
      node.s_child = child_is_b ? joint.point_b : joint.point_a;
      const int parent = s->tree.parent[b];
      node.parent_offset = parent < 0 ? -1 : s->bodies[parent].offset;
      tree->dof_ += 3;
    }
    tree->nodes_.push_back(node);
  }
  size_t tree_joints = 0;
  for (const Node& node : tree->nodes_) tree_joints += node.free ? 0 : 1;
  if (s->model.joints.size() != tree_joints) return nullptr;  // a joint off the tree
  return tree;
}

// Eqs (44), (93)-(95).
void SphericalTree::Configuration(const Vector& q0, const Vector& mu, Vector& q1) const {
  q1 = q0;
  for (const Node& node : nodes_) {
    const int o = node.offset;
    const V3 theta = mu.segment<3>(node.unknown + (node.free ? 3 : 0));
    const Eigen::Matrix3d r = Exp(theta);
    for (int k = 0; k < 3; ++k) q1.segment<3>(o + 3 + 3 * k) = r * Director(q0, o, k);
    if (node.free) {
      q1.segment<3>(o) = q0.segment<3>(o) + mu.segment<3>(node.unknown);
      continue;
    }
    const V3 joint = node.parent_offset < 0 ? node.s_parent
                                            : V3(q1.segment<3>(node.parent_offset) +
                                                 BodyVector(q1, node.parent_offset, node.s_parent));
    q1.segment<3>(o) = joint - BodyVector(q1, o, node.s_child);  // (94)
  }
}

void SphericalTree::WrapRotations(Vector& mu) const {
  for (const Node& node : nodes_) {
    auto theta = mu.segment<3>(node.unknown + (node.free ? 3 : 0));
    const double angle = theta.norm();
    if (angle <= M_PI) continue;
    const double wrapped = std::remainder(angle, 2.0 * M_PI);  // in [-pi, pi]
    theta *= wrapped / angle;
  }
}

// Eqs (55), (83)-(87), evaluated at q.
void SphericalTree::NullSpace(const Vector& q, Matrix& p) const {
  p.setZero(n_, dof_);
  std::vector<V3> v(nodes_.size()), w(nodes_.size());
  for (int column = 0; column < dof_; ++column) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      const int local = column - node.unknown;
      const bool own = local >= 0 && local < (node.free ? 6 : 3);
      w[i].setZero();
      v[i].setZero();
      if (node.free) {
        if (own && local < 3) v[i][local] = 1.0;
        if (own && local >= 3) w[i][local - 3] = 1.0;
      } else {
        if (own) w[i][local] = 1.0;
        V3 parent_v = V3::Zero();
        if (node.parent_offset >= 0) {
          size_t parent = 0;
          while (nodes_[parent].offset != node.parent_offset) ++parent;
          parent_v = v[parent] + w[parent].cross(BodyVector(q, node.parent_offset, node.s_parent));
        }
        v[i] = parent_v - w[i].cross(BodyVector(q, node.offset, node.s_child));  // (83)
      }
      p.block<3, 1>(node.offset, column) = v[i];
      for (int k = 0; k < 3; ++k)  // d_I' = omega x d_I (27)
        p.block<3, 1>(node.offset + 3 + 3 * k, column) = w[i].cross(Director(q, node.offset, k));
    }
  }
}

}  // namespace mbb
