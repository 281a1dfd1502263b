// The joint-tree formulation's DAE (joint_tree.h; paper 004 s3.1-3.2, eqs (7)-(11)): its
// workspace, the forward recursion (7), (8) with the blocks of (9), and M(q), Q(q, q') by
// the projection Jp^T of (11). The planar joint map: joint_tree_planar.cc; force elements
// and invariants: joint_tree_forces.cc; spatial trees: joint_tree_spatial_dae.cc; loop
// closure: joint_tree_closure.cc; validation and formulation: joint_tree_formulation.cc.
#include "problems/model/joint_tree.h"

#include <cmath>
#include <stdexcept>

#include "problems/core/parameters.h"
#include "problems/model/body_motion.h"
#include "problems/model/joint_tree_internal.h"
#include "problems/model/model_compiler.h"

namespace mbb {

TreeWorkspace& TreeWorkspace::Of(DaeWorkspace& ws) { return MBB_DOWNCAST(TreeWorkspace, ws); }

JointTreeDae::JointTreeDae(std::vector<TreeBody> bodies, std::vector<TreeForce> forces,
                           BodyBlocks<BodyMatrix> mass_blocks, int num_absolute, double mass_scale,
                           int dimension, std::vector<Eigen::Matrix3d> inertia, TreeClosure closure)
    : MechanicalDae(
          [&] {
            int n = 0;
            for (const auto& b : bodies) n += b.n;
            return n;
          }(),
          static_cast<int>(closure.rows.size())),
      bodies_(std::move(bodies)),
      forces_(std::move(forces)),
      mass_blocks_(std::move(mass_blocks)),
      num_absolute_(num_absolute),
      mass_scale_(mass_scale),
      dimension_(dimension),
      inertia_(std::move(inertia)),
      closure_(std::move(closure)) {
  forces_in_state_layout_ = !spatial();
  for (const TreeBody& b : bodies_) {
    if (b.p_offset != num_velocities_) forces_in_state_layout_ = false;
    num_velocities_ += b.d;
  }
  force_bodies_.reserve(bodies_.size());
  for (size_t i = 0; i < bodies_.size(); ++i)
    force_bodies_.push_back({bodies_[i].p_offset, bodies_[i].d, mass_blocks_[i](0, 0)});
  force_elements_.reserve(forces_.size());
  for (size_t k = 0; k < forces_.size(); ++k) {
    const TreeForce& e = forces_[k];
    int points = -1;
    if (e.kind == ForceKind::kSpringDamper || e.kind == ForceKind::kForce) {
      points = static_cast<int>(force_points_.size());
      force_points_.push_back({e.sa, e.sb});
    }
    force_elements_.push_back(
        {e.kind, e.a, e.b, static_cast<int>(k), points, e.stiffness, e.damping, e.rest});
  }
  if (!spatial()) KeepOnlyReferencedForces();
}

void JointTreeDae::KeepOnlyReferencedForces() {
  // A planar spring or damper is all in its ForceElement; only gravity and the applied
  // forces and torques read their TreeForce (vector, law). A chain of 1e5 dampers then
  // holds 8 MB of elements instead of 8 + 19 MB.
  std::vector<TreeForce> kept;
  for (ForceElement& e : force_elements_) {
    if (e.kind == ForceKind::kSpringDamper || e.kind == ForceKind::kTorsionalSpring) continue;
    kept.push_back(std::move(forces_[e.source]));
    e.source = static_cast<int>(kept.size()) - 1;
  }
  forces_ = std::move(kept);
}

TreeState JointTreeDae::MakeState() const { return MakeStateWith(/*compact_planar=*/false); }

TreeState JointTreeDae::MakeCompactPlanarState() const {
  for (const TreeBody& b : bodies_)
    if (spatial() || b.d != 3)
      throw std::logic_error("JointTreeDae: a compact planar state needs planar rigid bodies");
  return MakeStateWith(/*compact_planar=*/true);
}

TreeState JointTreeDae::MakeStateWith(bool compact_planar) const {
  TreeState s;
  const int nb = num_bodies(), np = num_absolute();
  s.p.setZero(np);
  s.pv.setZero(np);
  if (spatial()) s.frames.resize(nb);
  int h = 0, j = 0, m = 0;
  for (const TreeBody& b : bodies_) {
    h += b.d * (b.parent < 0 ? 0 : bodies_[b.parent].d);
    j += b.d * b.n;
    m += b.d * b.d;
  }
  if (compact_planar)
    s.planar_arms.assign(2 * static_cast<size_t>(nb), 0.0);
  else
    s.H.Reserve(nb, h);
  s.J.Reserve(nb, j);
  s.M.Reserve(nb, m);
  s.k2.Reserve(nb, num_velocities_);
  s.f.Reserve(nb, num_velocities_);
  for (int i = 0; i < nb; ++i) {
    const TreeBody& b = bodies_[i];
    if (!compact_planar) s.H.Append(b.d, b.parent < 0 ? 0 : bodies_[b.parent].d);
    s.J.Append(b.d, b.n);
    s.M.Append(b.d, b.d);
    s.M[i] = mass_blocks_[i];  // constant in absolute coordinates
    s.k2.Append(b.d);
    s.f.Append(b.d);
  }
  return s;
}

std::unique_ptr<DaeWorkspace> JointTreeDae::MakeWorkspace() const {
  auto ws = std::make_unique<TreeWorkspace>();
  const int n = num_coordinates(), np = num_absolute(), nw = num_absolute_velocities();
  ws->state = MakeState();
  if (spatial()) {  // the spatial energy, power and momenta's frames
    ws->frames.resize(num_bodies());
    ws->absolute_frames.resize(num_bodies());
  }
  ws->body_forces.setZero(nw);
  ws->acc.setZero(nw);
  ws->forces_all.setZero(nw);
  ws->p.setZero(np);
  ws->pv.setZero(np);
  ws->q_plus.setZero(n);
  ws->q_minus.setZero(n);
  ws->col_plus.setZero(n);
  ws->col_minus.setZero(n);
  ws->zero_v.setZero(n);
  if (closure_.dae) {
    const int m_all = closure_.dae->num_constraints();
    ws->closure = closure_.dae->MakeWorkspace();
    ws->phi_all.setZero(m_all);
    ws->gamma_all.setZero(m_all);
    ws->lambda_all.setZero(m_all);
    ws->p_acc.setZero(np);
    ws->unit.setZero(n);
    ws->phi_q_all.setZero(m_all, np);
    ws->coordinate_jacobian.setZero(np, n);
    ws->twist_jacobian.setZero(num_absolute_velocities(), n);
    ws->phi_q_plus.setZero(num_constraints(), n);
    ws->phi_q_minus.setZero(num_constraints(), n);
  }
  return ws;
}

TreeStateScratch::TreeStateScratch() = default;
TreeStateScratch::TreeStateScratch(TreeStateScratch&&) noexcept = default;
TreeStateScratch& TreeStateScratch::operator=(TreeStateScratch&&) noexcept = default;
TreeStateScratch::~TreeStateScratch() = default;

TreeStateScratch JointTreeDae::MakeTreeStateScratch() const {
  TreeStateScratch scratch;
  scratch.ws_ = std::make_unique<TreeWorkspace>();
  // What f is summed into unless the state's own f is in the layout (CalcPlanarTreeState).
  if (!forces_in_state_layout_) scratch.ws_->forces_all.setZero(num_absolute_velocities());
  return scratch;
}

void JointTreeDae::CalcTreeState(TreeStateScratch& scratch, double t, ConstVectorRef q,
                                 ConstVectorRef v, TreeState& s) const {
  CalcTreeState(*scratch.ws_, t, q, v, s);
}

// Forward recursion (7), (8): p_i and p_i' from the predecessor's and q_i, q_i'; the
// blocks of (9) on the way; then f(t, p, p') of the planar force elements.
void JointTreeDae::CalcTreeState(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                 ConstVectorRef v, TreeState& s) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  // The workspace's own state is kept for (t, q, q'): a constrained method's right-hand
  // side asks for Phi_q, gamma, M and Q at the same point, each of which needs it.
  const bool own = &s == &ws.state;
  if (own && ws.cache.Holds(t, q, v)) return;
  if (own) ws.cache.Invalidate();
  if (spatial()) {
    CalcSpatialTreeState(ws_base, t, q, v, s);
  } else {
    CalcPlanarTreeState(ws, t, q, v, s);
  }
  if (own) ws.cache.Store(t, q, v);
}

void JointTreeDae::PositionState(TreeWorkspace& ws, ConstVectorRef q) const {
  if (ws.cache.HoldsPositions(q)) return;  // H, J, M and the poses depend on q only
  CalcTreeState(ws, 0.0, q, ws.zero_v, ws.state);
}

void JointTreeDae::StoreRigidRevolute(int i, double q, double qv, LastPlanarRotation& last,
                                      TreeState& s) const {
  const TreeBody& b = bodies_[i];
  RigidRevoluteMotion m;
  CalcRigidRevoluteMotion(bodies_, b, s.p.data(), s.pv.data(), q, qv, last, m);
  for (int k = 0; k < 3; ++k) {
    s.p[b.p_offset + k] = m.p[k];
    s.pv[b.p_offset + k] = m.pv[k];
  }
  double* j = s.J[i].data();
  j[0] = m.j[0];
  j[1] = m.j[1];
  j[2] = -1.0;
  double* k2 = s.k2[i].data();
  k2[0] = m.k[0];
  k2[1] = m.k[1];
  k2[2] = -0.0;              // -c with c_2 = 0
  if (b.parent < 0) return;  // H_i has no columns
  if (!s.planar_arms.empty()) {
    s.planar_arms[2 * i] = m.h[0];
    s.planar_arms[2 * i + 1] = m.h[1];
    return;
  }
  // -[1 0 dx; 0 1 dy; 0 0 1], column-major, every entry negated as -A is.
  const double h[9] = {-1.0, -0.0, -0.0, -0.0, -1.0, -0.0, m.h[0], m.h[1], -1.0};
  double* out = s.H[i].data();
  for (int k = 0; k < 9; ++k) out[k] = h[k];
}

void JointTreeDae::CalcPlanarTreeState(TreeWorkspace& ws, double t, ConstVectorRef q,
                                       ConstVectorRef v, TreeState& s) const {
  JointMotion& jm = ws.motion;
  LastPlanarRotation last;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    if (IsRigidRevolute(bodies_, b)) {
      StoreRigidRevolute(i, q[b.q_offset], v[b.q_offset], last, s);
      continue;
    }
    CalcPlanarJointMotion(bodies_, b, s.p.data(), s.pv.data(), q.data() + b.q_offset,
                          v.data() + b.q_offset, last, jm);
    s.p.segment(b.p_offset, b.d) = jm.p;
    s.pv.segment(b.p_offset, b.d) = jm.pv;
    if (s.planar_arms.empty()) {
      s.H[i] = -jm.A;  // (9): H_i = -dr_i/dp_{pi_i}
    } else if (b.parent >= 0) {
      s.planar_arms[2 * i] = -jm.A(0, 2);
      s.planar_arms[2 * i + 1] = -jm.A(1, 2);
    }
    s.J[i] = -jm.B;   //      J_i = -dr_i/dq_i
    s.k2[i] = -jm.c;  //      k_i^(II)
  }
  if (forces_in_state_layout_) {
    CalcAppliedForces(t, s.p, s.pv, s.f.flat());  // f_i of (11)
    return;
  }
  CalcAppliedForces(t, s.p, s.pv, ws.forces_all);
  for (int i = 0; i < num_bodies(); ++i)
    s.f[i] = ws.forces_all.segment(bodies_[i].p_offset, bodies_[i].d);
}

void JointTreeDae::CalcAbsolute(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, VectorRef p,
                                VectorRef pv) const {
  CalcAbsoluteWith(TreeWorkspace::Of(ws).absolute_frames, q, v, p, pv);
}

void JointTreeDae::CalcAbsolute(ConstVectorRef q, ConstVectorRef v, VectorRef p,
                                VectorRef pv) const {
  std::vector<SpatialFrame> frames(spatial() ? bodies_.size() : 0);
  CalcAbsoluteWith(frames, q, v, p, pv);
}

void JointTreeDae::CalcAbsoluteWith(std::vector<SpatialFrame>& frames, ConstVectorRef q,
                                    ConstVectorRef v, VectorRef p, VectorRef pv) const {
  if (spatial()) {
    CalcFrames(q, v, frames, nullptr);
    FramesToLayout(frames, p, pv);
    return;
  }
  JointMotion jm;
  LastPlanarRotation last;
  for (const TreeBody& b : bodies_) {
    CalcPlanarJointMotion(bodies_, b, p.data(), pv.data(), q.data() + b.q_offset,
                          v.data() + b.q_offset, last, jm);
    p.segment(b.p_offset, b.d) = jm.p;
    pv.segment(b.p_offset, b.d) = jm.pv;
  }
}

void JointTreeDae::CalcBodyMotions(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Vector& p,
                                   Vector& pv, std::vector<BodyMotion>& bodies) const {
  CalcBodyMotionsWith(TreeWorkspace::Of(ws).absolute_frames, q, v, p, pv, bodies);
}

void JointTreeDae::CalcBodyMotions(ConstVectorRef q, ConstVectorRef v, Vector& p, Vector& pv,
                                   std::vector<BodyMotion>& bodies) const {
  std::vector<SpatialFrame> frames(spatial() ? bodies_.size() : 0);
  CalcBodyMotionsWith(frames, q, v, p, pv, bodies);
}

void JointTreeDae::CalcBodyMotionsWith(std::vector<SpatialFrame>& frames, ConstVectorRef q,
                                       ConstVectorRef v, Vector& p, Vector& pv,
                                       std::vector<BodyMotion>& bodies) const {
  if (spatial()) {
    CalcFrames(q, v, frames, nullptr);
    for (size_t i = 0; i < bodies_.size(); ++i) {
      BodyMotion& m = bodies[bodies_[i].model_index];
      m.position = frames[i].x;
      m.velocity = frames[i].v;
      m.orientation = Eigen::Quaterniond(frames[i].R);
      m.angular_velocity = frames[i].w;
    }
    return;
  }
  CalcAbsoluteWith(frames, q, v, p, pv);
  for (const TreeBody& b : bodies_) {
    BodyMotion& m = bodies[b.model_index];
    m.position << p(b.p_offset), p(b.p_offset + 1), 0.0;
    m.velocity << pv(b.p_offset), pv(b.p_offset + 1), 0.0;
    m.angle = b.d == 3 ? p(b.p_offset + 2) : 0.0;
    m.angular_velocity << 0.0, 0.0, b.d == 3 ? pv(b.p_offset + 2) : 0.0;
    m.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(m.angle, Eigen::Vector3d::UnitZ()));
  }
}

// Jp^T F: F_hat_i = F_i + sum_{j in I_i} A_j^T F_hat_j from the leaves to the root, and
// the joint's share B_i^T F_hat_i (A = -H, B = -J).
void JointTreeDae::ProjectBodyForces(const TreeState& s, Vector& body_forces, VectorRef out) const {
  for (int i = num_bodies() - 1; i >= 0; --i) {
    const TreeBody& b = bodies_[i];
    const auto fi = body_forces.segment(b.w_offset, b.d);
    out.segment(b.q_offset, b.n).noalias() = -s.J[i].transpose() * fi;
    if (b.parent >= 0) {
      const TreeBody& a = bodies_[b.parent];
      body_forces.segment(a.w_offset, a.d).noalias() -= s.H[i].transpose() * fi;
    }
  }
}

// out = Jp^T (F - M p''), p'' = Jp a + (velocity terms if with_forces), F = f if with_forces
// else 0; uses the tree state in the workspace.
void JointTreeDae::Project(DaeWorkspace& ws_base, double, ConstVectorRef, ConstVectorRef,
                           ConstVectorRef a, bool with_forces, VectorRef out) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  const TreeState& s = ws.state;
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    auto acc = ws.acc.segment(b.w_offset, b.d);
    acc.noalias() = -s.J[i] * a.segment(b.q_offset, b.n);  // (9): p'' = -H p_pi'' - J q'' - k
    if (with_forces) acc -= s.k2[i];
    if (b.parent >= 0)
      acc.noalias() -= s.H[i] * ws.acc.segment(bodies_[b.parent].w_offset, bodies_[b.parent].d);
    auto force = ws.body_forces.segment(b.w_offset, b.d);
    force.noalias() = -s.M[i] * acc;
    if (with_forces) force += s.f[i];
  }
  ProjectBodyForces(s, ws.body_forces, out);
}

void JointTreeDae::CalcMassMatrix(DaeWorkspace& ws_base, ConstVectorRef q, MatrixRef mass) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  PositionState(ws, q);  // Project without forces reads H, J, M only
  const int n = num_coordinates();
  for (int k = 0; k < n; ++k) {
    ws.q_plus.setZero();
    ws.q_plus(k) = 1.0;
    Project(ws, 0.0, q, ws.zero_v, ws.q_plus, false, mass.col(k));  // -M e_k
    mass.col(k) *= -1.0;
  }
}

void JointTreeDae::CalcForces(DaeWorkspace& ws_base, double t, ConstVectorRef q, ConstVectorRef v,
                              VectorRef forces) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  CalcTreeState(ws, t, q, v, ws.state);
  Project(ws, t, q, v, ws.zero_v, true, forces);  // q'' = 0: the velocity terms only
}

namespace {
double FdStep(double x) { return 1e-6 * (1.0 + std::abs(x)); }
}  // namespace

// Central differences of CalcForces (the projected forces have no closed-form Jacobian
// here; the general methods using it only need it for Newton iterations).
void JointTreeDae::CalcForceJacobians(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                      ConstVectorRef v, MatrixRef dq, MatrixRef dv) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  const int n = num_coordinates();
  Vector& qq = ws.q_plus;
  Vector& vv = ws.q_minus;
  for (int k = 0; k < n; ++k) {
    qq = q;
    const double h = FdStep(q(k));
    qq(k) = q(k) + h;
    CalcForces(ws, t, qq, v, ws.col_plus);
    qq(k) = q(k) - h;
    CalcForces(ws, t, qq, v, ws.col_minus);
    dq.col(k) = (ws.col_plus - ws.col_minus) / (2.0 * h);
  }
  for (int k = 0; k < n; ++k) {
    vv = v;
    const double h = FdStep(v(k));
    vv(k) = v(k) + h;
    CalcForces(ws, t, q, vv, ws.col_plus);
    vv(k) = v(k) - h;
    CalcForces(ws, t, q, vv, ws.col_minus);
    dv.col(k) = (ws.col_plus - ws.col_minus) / (2.0 * h);
  }
}

void JointTreeDae::CalcMassTimesAccelerationJacobian(DaeWorkspace& ws_base, ConstVectorRef q,
                                                     ConstVectorRef a, MatrixRef out) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  const int n = num_coordinates();
  Vector& qq = ws.q_plus;
  for (int k = 0; k < n; ++k) {
    qq = q;
    const double h = FdStep(q(k));
    qq(k) = q(k) + h;
    CalcTreeState(ws, 0.0, qq, ws.zero_v, ws.state);
    Project(ws, 0.0, qq, ws.zero_v, a, false, ws.col_plus);
    qq(k) = q(k) - h;
    CalcTreeState(ws, 0.0, qq, ws.zero_v, ws.state);
    Project(ws, 0.0, qq, ws.zero_v, a, false, ws.col_minus);
    out.col(k) = -(ws.col_plus - ws.col_minus) / (2.0 * h);  // Project gives -M a
  }
}

}  // namespace mbb
