// The explicit discrete null space matrix and reparametrisation of paper 002 for models in
// directors whose joints form a tree of S, R, C, P and E pairs (bodies may fly free): the pairs
// of section 4.5 applied recursively (Remark 4.1, eqs 178-184), the gyro top of section 5.1,
// the cylindrical and planar pairs of 5.2, 5.3. For R, C, E the relative rotation is about
// the body's own joint axis h_b (omega_b = omega_a + theta' h_b), which keeps this suite's
// axis rows f_a . h_b = g_a . h_b = 0 identically; the relative translation of C is along
// f_a x g_a (eq 133's m_1 x m_2), of E along g_a x u_a and u_a x f_a (eq 149).
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

#include "problems/core/problem.h"

namespace mbb {

class SphericalTree {
 public:
  /// The tree of `problem`, or nullptr when its structure is not directors, 3-D, rigid
  /// bodies joined by S, R, C, P, E pairs in a tree (no cut joints, no drivers), each R, C, E
  /// with its axis body (body_a) as the parent.
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
  enum class Kind { kFree, kSpherical, kRevolute, kCylindrical, kPrismatic, kPlanar };
  struct Node {
    Kind kind = Kind::kFree;
    int offset = 0;          // the body's block in q (12 coordinates)
    int parent_offset = -1;  // the parent's block (-1: the ground, or none)
    int parent = -1;         // index into nodes_ (-1: ground)
    int unknown = 0;         // first index of its unknowns in mu
    int count = 0;           // its number of unknowns
    Eigen::Vector3d s_parent = Eigen::Vector3d::Zero();  // joint point in the parent's axes
    Eigen::Vector3d s_child = Eigen::Vector3d::Zero();   // joint point in the body's axes
    // Joint axes as the directors formulation writes the rows: u_a with f_a, g_a in the
    // parent's axes, h_b in the body's axes.
    Eigen::Vector3d ua = Eigen::Vector3d::UnitZ(), fa = Eigen::Vector3d::UnitX(),
                    ga = Eigen::Vector3d::UnitY(), hb = Eigen::Vector3d::UnitZ();
  };
  std::vector<Node> nodes_;  // parents first
  int n_ = 0, dof_ = 0;
  // Per-node scratch of Configuration and NullSpace, sized on first use (a tree belongs to
  // one run's workspace): the Newton loop allocates nothing.
  mutable std::vector<Eigen::Matrix3d> increment_;
  mutable std::vector<Eigen::Vector3d> v_, w_;
};

}  // namespace mbb
