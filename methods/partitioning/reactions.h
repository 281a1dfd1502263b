// Physical joint reactions of paper 003 s5: with the distribution matrix B (m x n) of the
// joints' physical forces and moments f (32), C^T lambda = B^T f, and
//
//   (35)  f = (B M^-1 B^T)^-1 B ([0; xi] - M^-1 h)
//   (37)  [f; 0] = (T_bd M)^-T (M q'' - h),  T_bd M = [B; D M]   (the same scheme as (36))
//   (38)  B^T f = M q'' - h,  solved in the least-squares sense (n rows, m unknowns)
//
// with h = Q (the suite's M q'' = Q - Phi_q^T lambda, so M q'' - h is the total reaction
// force, -Phi_q^T lambda). B is built per joint kind from the model structure (planar):
// f is the force (and moment) body_a exerts on body_b at the joint, in the global frame:
//
//   revolute       (f_x, f_y)        rows J_b - J_a of the joint points
//   fixed          (f_x, f_y, m_z)   plus the row d(theta_b - theta_a)/dq
//   prismatic      (f_n, m_z)        n_a^T (J_b - J_a), n_a the slide normal, and the moment
//   distance       f                 u^T (J_b - J_a), u the unit vector from p_a to p_b
//   point-on-line  f_n               n_a^T (J_b - J_a)
//
// (virtual work: f . (dp_b - dp_a) + m (dtheta_b - dtheta_a) = f^T B dq). J is the Jacobian of
// a body point: from the body blocks (x, y, theta), or the structure's planar_body_jacobian
// for relative coordinates. (35) needs M^-1 and is NaN for a singular M; (37) and (38) are not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "methods/partitioning/partitioned_equations.h"
#include "problems/core/problem.h"

namespace mbb {

class JointReactions {
 public:
  /// Empty if reactions can be built for `problem`, else why not.
  static std::string CheckApplicable(const Problem& problem);
  /// reaction_<joint>_<component>_eq35, _eq37, _eq38 for every joint and component.
  static std::vector<std::string> SeriesNames(const Problem& problem);

  explicit JointReactions(const Problem& problem);
  ~JointReactions();

  /// Builds B at q and evaluates (35), (37), (38) with M, Q, xi of eq's last Rates call and
  /// the accelerations q''; writes the three sets into out (3 m: all of (35), then (37), then
  /// (38)) and returns the largest difference between them (N or N m; NaN-free formulas only).
  double Compute(PartitionedEquations& eq, const Partition& partition, const Vector& q,
                 const Vector& q_dot, const Vector& q_ddot, Eigen::Ref<Vector> out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mbb
