// What the joint-tree formulation's sources share (joint_tree.cc, joint_tree_spatial_dae.cc):
// one joint's blocks of (9) and the evaluation workspace.
#pragma once

#include <vector>

#include "problems/model/joint_tree.h"
#include "problems/model_structure.h"

namespace mbb {

// One joint of (7)-(9) in the explicit form p_b = r(p_a, q): p_b, p_b' and
// p_b'' = A p_a'' + B q'' + c, i.e. H = -A, J = -B, k^(II) = -c (K = I).
struct JointMotion {
  BodyVector p, pv, c;
  BodyMatrix A, B;
};

// Which (t, q, q') the workspace's TreeState holds. Exact comparison: a right-hand side
// evaluates Phi_q, gamma, M and Q at the very same vectors.
class TreeStateKey {
 public:
  bool Holds(double t, ConstVectorRef q, ConstVectorRef v) const {
    return valid_ && t == t_ && q == q_ && v == v_;
  }
  bool HoldsPositions(ConstVectorRef q) const { return valid_ && q == q_; }
  void Store(double t, ConstVectorRef q, ConstVectorRef v) {
    t_ = t;
    q_ = q;
    v_ = v;
    valid_ = true;
  }
  void Invalidate() { valid_ = false; }

 private:
  bool valid_ = false;
  double t_ = 0.0;
  Vector q_, v_;
};

struct TreeWorkspace final : DaeWorkspace {
  TreeState state;
  TreeStateKey cache;  // what `state` holds
  JointMotion motion;
  std::vector<SpatialFrame> frames;
  std::vector<SpatialFrame> absolute_frames;  // CalcAbsolute's and CalcBodyMotions' (spatial)
  // Velocity-level (num_absolute_velocities): body forces and accelerations; formulation
  // layout (num_absolute): p, pv; joint coordinates: the rest.
  Vector body_forces, acc, forces_all, q_plus, q_minus, col_plus, col_minus, zero_v, p, pv;
  // Closure constraints: the body formulation's workspace and values at p(q), the
  // coordinate Jacobian T = dp/dq, Phi_q at shifted q (finite differences).
  std::unique_ptr<DaeWorkspace> closure;
  Vector phi_all, gamma_all, p_acc, unit, lambda_all;  // lambda_all: scratch of size m_all
  Matrix phi_q_all, coordinate_jacobian, twist_jacobian, phi_q_plus, phi_q_minus;
  static TreeWorkspace& Of(DaeWorkspace& ws);
};

/// Spatial trees: every body's frame (tree order) from body motions aligned with the model.
std::vector<SpatialFrame> FramesOfBodies(const std::vector<TreeBody>& bodies,
                                         const std::vector<BodyMotion>& motion);
/// Spatial trees: the inverse of (7), (8) body by body (SpatialJointCoordinates).
void SpatialJointCoordinatesOf(const std::vector<TreeBody>& bodies,
                               const std::vector<SpatialFrame>& frames, Vector& q, Vector& v);

}  // namespace mbb
