// The explicit discrete null space matrix and reparametrisation of paper 002 for models in
// directors whose bodies hang from the ground by spherical pairs in a tree (or fly free):
// the S pair of section 4.5.1 applied recursively, the gyro top of section 5.1.
//   unknowns mu: per body with a spherical parent joint its incremental rotation theta (3),
//     per free body (u_phi, theta) (6), eq (76)
//   reparametrisation (44), (93)-(95): (d_I)_1 = exp(theta^) (d_I)_0, and the centre of mass
//     from the parent's joint point at the end of the step, phi_1 = p_parent,1 - rho_1 (94)
//   null space matrix P = P_int P_ext (eqs 55, 84-87), its discrete version the mid-point
//     evaluation (eq 92): twists t = (v_phi, omega) propagated down the tree,
//     v_child = v_parent + omega_parent x a - omega_child x b (eq 83), d_I' = omega x d_I.
// G(q_mid) P(q_mid) = 0 holds identically in q (not only on the manifold), which is what
// eq (14) needs.
#pragma once

#include <memory>
#include <vector>

#include "problems/problem.h"

namespace mbb {

class SphericalTree {
 public:
  /// The tree of `problem`, or nullptr when its structure is not directors, 3-D, rigid
  /// bodies joined to the ground by spherical pairs in a tree (no cut joints, no drivers).
  static std::unique_ptr<SphericalTree> Make(const Problem& problem);

  int dof() const { return dof_; }
  /// q1 = F_{q0}(mu).
  void Configuration(const Vector& q0, const Vector& mu, Vector& q1) const;
  /// Each incremental rotation theta of mu replaced by the same rotation with |theta| <= pi
  /// (exp is singular in its derivative at |theta| = 2 pi; a predictor may land there).
  void WrapRotations(Vector& mu) const;
  /// P(q) (n x dof) at q (the mid-point for the discrete version).
  void NullSpace(const Vector& q, Matrix& p) const;

 private:
  struct Node {
    int offset = 0;                                      // the body's block in q (12 coordinates)
    int parent_offset = -1;                              // -1: the ground (or none for a free body)
    bool free = false;                                   // no parent joint: (u, theta) unknowns
    int unknown = 0;                                     // first index of its unknowns in mu
    Eigen::Vector3d s_parent = Eigen::Vector3d::Zero();  // joint point in the parent's axes
    Eigen::Vector3d s_child = Eigen::Vector3d::Zero();   // joint point in the body's axes
  };
  std::vector<Node> nodes_;  // parents first
  int n_ = 0, dof_ = 0;
};

}  // namespace mbb
