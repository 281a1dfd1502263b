// What the joint-tree formulation's sources share (joint_tree.cc, joint_tree_planar.cc,
// joint_tree_forces.cc, joint_tree_formulation.cc, joint_tree_closure.cc,
// joint_tree_spatial_dae.cc): one joint's blocks of (9), the planar joint map and the
// evaluation workspace.
#pragma once

#include <cmath>
#include <vector>

#include "problems/model/body_motion.h"
#include "problems/model/joint_tree.h"
#include "problems/model/model_structure.h"

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

// Planar vectors: u rotated by +90 degrees, and s rotated by `angle` (R(angle) s).
inline Eigen::Vector2d Perp(const Eigen::Vector2d& u) { return {-u.y(), u.x()}; }
struct PlanarRotation {
  double c = 1.0, s = 0.0;  // cos and sin of the angle
};
inline PlanarRotation RotationOf(double angle) { return {std::cos(angle), std::sin(angle)}; }
inline Eigen::Vector2d Rotate(const PlanarRotation& r, const Eigen::Vector2d& u) {
  return {r.c * u.x() - r.s * u.y(), r.s * u.x() + r.c * u.y()};
}
inline Eigen::Vector2d Rotate(double angle, const Eigen::Vector2d& u) {
  return Rotate(RotationOf(angle), u);
}

/// The rotation of the body whose joint motion was computed last (CalcPlanarJointMotion),
/// handed to its successor when that is the next body in tree order (every body of a chain):
/// the successor's joint needs R(theta) of the very angle its predecessor has just rotated by,
/// so a chain takes one cosine and sine per body instead of two. The same values, so the
/// same results to the bit.
struct LastPlanarRotation {
  int body = -1;  // tree index of the body `rotation` belongs to, -1: none
  PlanarRotation rotation;
};

/// Planar trees (joint_tree_planar.cc): body b's joint (7), (8), (9) from its predecessor's
/// absolute coordinates in p, pv (planar layout) and its own q, q' (n_b values each). Call
/// it body by body in tree order with one `last` (starting empty).
void CalcPlanarJointMotion(const std::vector<TreeBody>& bodies, const TreeBody& b, const double* p,
                           const double* pv, const double* q, const double* qv,
                           LastPlanarRotation& last, JointMotion& out);
/// The joint map of a rigid body on a revolute joint whose predecessor is rigid or the
/// ground (most planar trees: every pendulum chain), in scalars: p_i, p_i' (3 each), the
/// entries of (9) that vary, J_i = (j[0], j[1], -1), k_i = (k[0], k[1], -0.0) and the
/// third column of H_i (h[0], h[1], -1; the rest that of -I, zeros negated: -0.0).
struct RigidRevoluteMotion {
  double p[3], pv[3], j[2], k[2], h[2];
};
bool IsRigidRevolute(const std::vector<TreeBody>& bodies, const TreeBody& b);
/// The same operations in the same order as CalcPlanarJointMotion (tests/test_recursive.cc
/// compares them to the bit), without its blocks of run-time size, which cost more than
/// the joint's arithmetic. Hands on `last` as CalcPlanarJointMotion does.
void CalcRigidRevoluteMotion(const std::vector<TreeBody>& bodies, const TreeBody& b,
                             const double* p, const double* pv, double q, double qv,
                             LastPlanarRotation& last, RigidRevoluteMotion& out);
/// Planar trees: the inverse of (7), (8) body by body, from the absolute coordinates
/// p, p' (planar layout) or straight from body motions aligned with the model. A distance
/// joint's link angle is taken within pi of the value q holds on entry.
void PlanarJointCoordinatesFromAbsolute(const std::vector<TreeBody>& bodies, const Vector& p,
                                        const Vector& pv, Vector& q, Vector& v);
void PlanarJointCoordinatesFromMotions(const std::vector<TreeBody>& bodies,
                                       const std::vector<BodyMotion>& motion, Vector& q, Vector& v);

/// Spatial trees: every body's frame (tree order) from body motions aligned with the model.
std::vector<SpatialFrame> FramesOfBodies(const std::vector<TreeBody>& bodies,
                                         const std::vector<BodyMotion>& motion);
/// Spatial trees: the inverse of (7), (8) body by body (SpatialJointCoordinates).
void SpatialJointCoordinatesOf(const std::vector<TreeBody>& bodies,
                               const std::vector<SpatialFrame>& frames, Vector& q, Vector& v);

}  // namespace mbb
