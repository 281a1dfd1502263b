// Loop-closure constraints of the joint-tree formulation (joint_tree.h): a cut joint's
// equations are the body formulation's, evaluated at the absolute coordinates p(q) the
// forward recursion (7) gives, Phi(q) = Phi_cut(p(q)). With T = dp/dq (the absolute
// velocities of q' = e_k, one forward pass (8) per column) the chain rule gives
//   Phi_q = Phi_cut,p T,   Phi_q q' = Phi_cut,p p',
//   gamma = -(Phi_q q')_q q' = gamma_cut(p, p') - Phi_cut,p p''|_{q'' = 0},
// p''|_{q''=0} the velocity terms of (9) carried down the tree (Phi_cut,p p'' taken as a
// directional derivative). d(Phi_q)/dt and the
// reaction stiffness d(Phi_q^T lambda)/dq are central differences of Phi_q (the general
// implicit methods need them only in their Newton matrices).
#include "problems/core/jacobian_compression.h"
#include "problems/model/joint_tree.h"
#include "problems/model/joint_tree_internal.h"

namespace mbb {
namespace {

double FdStep(double x) { return 1e-6 * (1.0 + std::abs(x)); }

}  // namespace

// T = dp/dq and p(q) in one forward pass: the twists' Jacobian V_i = -H_i V_pi - J_i [own
// columns] of (8), then per rigid spatial body e' = 1/2 (0, w) e = G(e) w,
// G = [-e_v^T; e0 I - [e_v]x] (the planar layout is the velocity level itself).
void JointTreeDae::CalcCoordinateJacobian(TreeWorkspace& ws, ConstVectorRef q) const {
  PositionState(ws, q);
  const TreeState& s = ws.state;
  Matrix& V = ws.twist_jacobian;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    auto rows = V.middleRows(b.w_offset, b.d);
    if (b.parent >= 0)
      rows.noalias() = -s.H[i] * V.middleRows(bodies_[b.parent].w_offset, bodies_[b.parent].d);
    else
      rows.setZero();
    rows.middleCols(b.q_offset, b.n) -= s.J[i];
  }
  if (!spatial()) {
    ws.p = s.p;
    ws.coordinate_jacobian = V;
    return;
  }
  FramesToLayout(s.frames, ws.p, ws.pv);
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    ws.coordinate_jacobian.middleRows(b.p_offset, 3) = V.middleRows(b.w_offset, 3);
    if (!b.rigid) continue;
    const Eigen::Vector4d e = ws.p.segment<4>(b.p_offset + 3);
    Eigen::Matrix<double, 4, 3> g;
    g.row(0) = -e.tail<3>().transpose();
    g.bottomRows<3>() = e(0) * Eigen::Matrix3d::Identity() - Skew(e.tail<3>());
    ws.coordinate_jacobian.middleRows(b.p_offset + 3, 4).noalias() =
        0.5 * g * V.middleRows(b.w_offset + 3, 3);
  }
}

// p(q), p'(q, q') in the body formulation's layout and p'' at q'' = 0.
void JointTreeDae::AbsoluteAccelerationTerms(TreeWorkspace& ws, double t, ConstVectorRef q,
                                             ConstVectorRef v) const {
  TreeState& s = ws.state;
  CalcTreeState(ws, t, q, v, s);
  for (int i = 0; i < num_bodies(); ++i) {  // (9) with q'' = 0: p'' = -H p_pi'' - k
    const TreeBody& b = bodies_[i];
    auto acc = ws.acc.segment(b.w_offset, b.d);
    acc = -s.k2[i];
    if (b.parent >= 0)
      acc.noalias() -= s.H[i] * ws.acc.segment(bodies_[b.parent].w_offset, bodies_[b.parent].d);
  }
  if (!spatial()) {  // the planar layout is the velocity-level one
    ws.p = s.p;
    ws.pv = s.pv;
    ws.p_acc = ws.acc;
    return;
  }
  FramesToLayout(s.frames, ws.p, ws.pv);
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    ws.p_acc.segment<3>(b.p_offset) = ws.acc.segment<3>(b.w_offset);
    if (!b.rigid) continue;
    // e' = 1/2 (0, w) e  =>  e'' = 1/2 (0, w') e + 1/2 (0, w) e'.
    const Eigen::Vector4d e = ws.p.segment<4>(b.p_offset + 3);
    const Eigen::Vector4d ed = ws.pv.segment<4>(b.p_offset + 3);
    const Eigen::Vector3d w = s.frames[i].w, wd = ws.acc.segment<3>(b.w_offset + 3);
    const Eigen::Quaterniond qe(e(0), e(1), e(2), e(3)), qed(ed(0), ed(1), ed(2), ed(3));
    const Eigen::Quaterniond a = Eigen::Quaterniond(0.0, wd.x(), wd.y(), wd.z()) * qe;
    const Eigen::Quaterniond c = Eigen::Quaterniond(0.0, w.x(), w.y(), w.z()) * qed;
    ws.p_acc.segment<4>(b.p_offset + 3) << 0.5 * (a.w() + c.w()), 0.5 * (a.x() + c.x()),
        0.5 * (a.y() + c.y()), 0.5 * (a.z() + c.z());
  }
}

// The cut joints' rows of a vector of the body formulation's rows.
void JointTreeDae::SelectCutRows(const Vector& all, VectorRef out) const {
  for (int i = 0; i < num_constraints(); ++i) out(i) = all(closure_.rows[i]);
}

void JointTreeDae::CalcPhi(DaeWorkspace& ws_base, double t, ConstVectorRef q, VectorRef phi) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcAbsolute(ws, q, ws.zero_v, ws.p, ws.pv);
  closure_.dae->CalcPhi(*ws.closure, t, ws.p, ws.phi_all);
  SelectCutRows(ws.phi_all, phi);
}

void JointTreeDae::CalcPhiQ(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                            MatrixRef phi_q) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcCoordinateJacobian(ws, q);  // and p(q)
  // Few joint coordinates (a linkage's handful against its bodies' 7 each): Phi_cut,p T
  // column by column as directional derivatives (Phi_cut,p T_k + Phi_t, less Phi_t), one
  // pass each; else the body formulation's compressed Jacobian times T.
  const MechanicalDae& body_dae = *closure_.dae;
  if (body_dae.capabilities().constraint_pattern &&
      num_coordinates() >= body_dae.constraint_jacobian_pattern().num_groups()) {
    closure_.dae->CalcPhiQ(*ws.closure, t, ws.p, ws.phi_q_all);
    for (int i = 0; i < num_constraints(); ++i)
      phi_q.row(i).noalias() = ws.phi_q_all.row(closure_.rows[i]) * ws.coordinate_jacobian;
    return;
  }
  closure_.dae->CalcPhiT(*ws.closure, t, ws.p, ws.lambda_all);
  for (int k = 0; k < num_coordinates(); ++k) {
    closure_.dae->CalcVelocityResidual(*ws.closure, t, ws.p, ws.coordinate_jacobian.col(k),
                                       ws.phi_all);
    for (int i = 0; i < num_constraints(); ++i) {
      const int r = closure_.rows[i];
      phi_q(i, k) = ws.phi_all(r) - ws.lambda_all(r);
    }
  }
}

void JointTreeDae::CalcPhiT(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                            VectorRef phi_t) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcAbsolute(ws, q, ws.zero_v, ws.p, ws.pv);
  closure_.dae->CalcPhiT(*ws.closure, t, ws.p, ws.phi_all);
  SelectCutRows(ws.phi_all, phi_t);
}

void JointTreeDae::CalcVelocityResidual(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                        ConstVectorRef v, VectorRef out) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcAbsolute(ws, q, v, ws.p, ws.pv);  // Phi_q q' + Phi_t = Phi_cut,p p' + Phi_t
  closure_.dae->CalcVelocityResidual(*ws.closure, t, ws.p, ws.pv, ws.phi_all);
  SelectCutRows(ws.phi_all, out);
}

void JointTreeDae::CalcGamma(DaeWorkspace& ws_base, double t, ConstVectorRef q, ConstVectorRef v,
                             VectorRef gamma) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  AbsoluteAccelerationTerms(ws, t, q, v);
  closure_.dae->CalcGamma(*ws.closure, t, ws.p, ws.pv, ws.gamma_all);
  // Phi_cut,p p'' as a directional derivative (Phi_q x + Phi_t, less Phi_t): one pass
  // instead of the whole Phi_cut,p.
  closure_.dae->CalcVelocityResidual(*ws.closure, t, ws.p, ws.p_acc, ws.phi_all);
  closure_.dae->CalcPhiT(*ws.closure, t, ws.p, ws.lambda_all);
  for (int i = 0; i < num_constraints(); ++i) {
    const int r = closure_.rows[i];
    gamma(i) = ws.gamma_all(r) - (ws.phi_all(r) - ws.lambda_all(r));
  }
}

void JointTreeDae::CalcPhiQDot(DaeWorkspace& ws_base, double t, ConstVectorRef q, ConstVectorRef v,
                               MatrixRef out) const {
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  // d/dt Phi_q = directional derivative along q': central difference along v.
  const double h =
      1e-6 * (1.0 + q.lpNorm<Eigen::Infinity>()) / std::max(1.0, v.lpNorm<Eigen::Infinity>());
  ws.q_plus = q + h * v;
  CalcPhiQ(ws, t, ws.q_plus, ws.phi_q_plus);
  ws.q_plus = q - h * v;
  CalcPhiQ(ws, t, ws.q_plus, ws.phi_q_minus);
  out = (ws.phi_q_plus - ws.phi_q_minus) / (2.0 * h);
}

void JointTreeDae::CalcReactionStiffness(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                         ConstVectorRef lambda, MatrixRef k) const {
  k.setZero();
  if (!closure_.dae) return;
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  for (int j = 0; j < num_coordinates(); ++j) {
    const double h = FdStep(q(j));
    ws.q_plus = q;
    ws.q_plus(j) = q(j) + h;
    CalcPhiQ(ws, t, ws.q_plus, ws.phi_q_plus);
    ws.q_plus(j) = q(j) - h;
    CalcPhiQ(ws, t, ws.q_plus, ws.phi_q_minus);
    k.col(j).noalias() = (ws.phi_q_plus - ws.phi_q_minus).transpose() * lambda / (2.0 * h);
  }
}

}  // namespace mbb
