// The joint-tree formulation (paper 004 s3.1-3.2): a model whose joints form a tree
// rooted at the inertially fixed ground (loops closed by constraints, below), described by
// joint coordinates q_i (n_i per joint) and the absolute coordinates p_i of every body.
// Planar models: d_i = 3 for a rigid body (x, y, theta), 2 for a point mass (x, y), the
// layout of the planar formulation. Spatial models: d_i = 6 (v, w) and 3 at the velocity
// level, the pose kept as a position and a rotation (joint_tree_spatial.h has the spatial
// joints and charts).
//
// Every tree joint is written in the explicit form p_i = r_i(p_{pi_i}, q_i) of (7), so
// K_i = I, and its second time derivative (9) reads
//   0 = p_i'' + H_i p_{pi_i}'' + J_i q_i'' + k_i^(II),                               (9)
// H_i = -dr_i/dp_{pi_i} (d_i x d_{pi_i}), J_i = -dr_i/dq_i (d_i x n_i, full column rank),
// k_i^(II) the velocity terms. For a body on the ground (pi_i = 0) H_i is empty: (10).
// The equilibrium conditions (11) need the body mass matrices M_i (d_i x d_i, symmetric,
// positive semi-definite: zero and rank-deficient masses are allowed here) and the applied
// forces f_i(t, p, p') of the force elements, both taken from the planar formulation of
// the same bodies and forces.
//
// Joint kinds and their coordinates (s_a, s_b the joint points in body frames, u = R s):
//   revolute   (rigid child)        q = theta_b - theta_a (absolute if the parent has no
//                                   angle); x_b = x_a + u_a - u_b
//   prismatic  (rigid / point)      q = slide along w = R(theta_a) axis_a;
//                                   x_b = x_a + u_a + q w - u_b, theta_b = theta_a + c0
//   distance   (point child)        q = absolute angle phi of the link;
//                                   x_b = x_a + u_a + L (cos phi, sin phi)
//   planar     (free in the plane)  q = (x_b - x_a - u_a, theta_b - theta_a): the child
//                                   moves freely relative to the parent (Fig 3's q_i = p_i)
// A body no joint connects is free relative to the ground (as `planar` to the ground).
// Spatial joints (joint_tree_spatial.h): spherical (rigid child, 3 Euler angles), distance
// (2 link angles, and 3 Euler angles of a rigid child), revolute (1 angle about axis_a),
// prismatic (1 slide along axis_a), cylindrical (slide and angle), planar (2 slides normal
// to axis_a and the angle about it), a body no joint connects (3 offsets, and 3 Euler
// angles if rigid).
// Drivers are refused. A joint that closes a loop (a cut joint of the kinematic tree)
// becomes loop-closure constraints Phi(q) = Phi_cut(p(q)): the body formulation's equations
// of that joint at the absolute coordinates (joint_tree_closure.cc; the route Simbody
// takes). The recursive formalism is written for trees without constraints and refuses
// them; the general methods run them.
//
// As a MechanicalDae (for the general methods) the problem is M(q) q'' = Q(q, q') (an ODE,
// m = 0, for a tree; with Phi_q^T lambda and the closure constraints otherwise), with
// M(q) = sum_i Jp_i^T M_i Jp_i (Jp_i = dp_i/dq) and Q the projected forces; both are
// evaluated by O(N) passes over the tree (inverse dynamics), M column by column.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "problems/core/mechanical_dae.h"
#include "problems/model/formulation.h"
#include "problems/model/joint_tree_spatial.h"

namespace mbb {

enum class TreeJointKind { kFree, kRevolute, kPrismatic, kDistance };

/// A spatial joint on the heap, copied by value (a planar body holds none): keeps
/// TreeBody small for the passes that stream it.
class SpatialJointBox {
 public:
  SpatialJointBox() = default;
  SpatialJointBox(const SpatialJointBox& o) { *this = o; }
  SpatialJointBox(SpatialJointBox&&) noexcept = default;
  SpatialJointBox& operator=(SpatialJointBox&&) noexcept = default;
  SpatialJointBox& operator=(const SpatialJointBox& o) {
    if (this != &o) joint_ = o.joint_ ? std::make_unique<SpatialJoint>(*o.joint_) : nullptr;
    return *this;
  }
  SpatialJointBox& operator=(const SpatialJoint& g) {
    joint_ = std::make_unique<SpatialJoint>(g);
    return *this;
  }
  const SpatialJoint& operator*() const { return *joint_; }
  SpatialJoint& operator*() { return *joint_; }
  const SpatialJoint* operator->() const { return joint_.get(); }

 private:
  std::unique_ptr<SpatialJoint> joint_;
};

/// One body of the tree and the joint to its predecessor, 128 B: what every pass over the
/// tree reads (the recursions stream the bodies once per pass, docs/performance.md); the
/// spatial joint, with the names its messages give, boxed on the heap.
struct TreeBody {
  int model_index = 0;  // index in the model's bodies (the tree lists them parents first)
  int parent = -1;      // predecessor pi_i (body index), -1: the root (ground)
  int d = 0;            // absolute coordinates: 3 rigid, 2 point mass (spatial: 6, 3)
  int n = 0;            // joint coordinates n_i
  int p_offset = 0;     // block in the body-coordinate formulation's q (spatial: x, e)
  int w_offset = 0;     // block of d in the velocity-level vectors (planar: p_offset)
  int q_offset = 0;
  bool rigid = false;
  TreeJointKind joint = TreeJointKind::kFree;
  Eigen::Vector2d s_a, s_b;   // joint points in the parent's / child's frame
  Eigen::Vector2d axis_a;     // prismatic: unit axis in the parent's frame
  double length = 0.0;        // distance joint
  double angle_offset = 0.0;  // prismatic: theta_b - theta_a (locked)
  SpatialJointBox spatial;    // spatial models only (with the names its messages give)
};

/// A force element in absolute coordinates (the kinds of ForceKind): bodies as tree
/// indices (-1: the ground), points in body frames (a point mass: global offsets).
/// The planar force pass streams the compact ForceElement made from it, not this.
struct TreeForce {
  ForceKind kind = ForceKind::kGravity;
  int a = -1, b = -1;
  double stiffness = 0.0, damping = 0.0, rest = 0.0;
  Eigen::Vector2d sa = Eigen::Vector2d::Zero(), sb = Eigen::Vector2d::Zero();
  Eigen::Vector3d vector = Eigen::Vector3d::Zero();
  TimeLaw law;
  Eigen::Vector3d sa3 = Eigen::Vector3d::Zero(), sb3 = Eigen::Vector3d::Zero();  // spatial
};

/// A body as the planar force elements see it (JointTreeDae::force_bodies_).
struct ForceBody {
  int p_offset = 0;   // TreeBody::p_offset
  int d = 0;          // TreeBody::d (3: rigid, takes torques)
  double mass = 0.0;  // M_i(0, 0)
};

/// A force element as the planar force pass reads it (JointTreeDae::force_elements_): the
/// fields of TreeForce a torsional spring or damper needs, 48 B instead of 192; `source`
/// indexes the TreeForce for the rest (gravity's vector, an applied force's law), `points`
/// the joint points of an element acting at points (JointTreeDae::force_points_). A chain's
/// dampers are torsional: the pass over 1e5 of them streams 4.8 MB, not the 8 MB it did with
/// the points inline.
struct ForceElement {
  ForceKind kind = ForceKind::kGravity;
  int a = -1, b = -1, source = 0;
  int points = -1;  // index in force_points_ (spring-dampers and forces), -1: none
  double stiffness = 0.0, damping = 0.0, rest = 0.0;
};
/// Where a point element acts: in body a's and body b's frames (a point mass: offsets).
struct ForcePoints {
  Eigen::Vector2d sa = Eigen::Vector2d::Zero(), sb = Eigen::Vector2d::Zero();
};

/// Per-body blocks of one kind (Block: BodyMatrix or BodyVector) in one flat array in tree
/// order, each at its own size, read through maps with the 6 x 6 capacity of Block (so
/// products of them make no heap temporaries). A planar rigid body's H_i takes 9 doubles,
/// not the 36 (and 304 B) of a BodyMatrix: the recursions stream these arrays once per
/// evaluation, so their size is the per-body cost at large N (docs/performance.md).
template <class Block>
class BodyBlocks {
 public:
  using Map = Eigen::Map<Block>;
  using ConstMap = Eigen::Map<const Block>;
  /// Room for `count` blocks of `doubles` entries in all (no reallocation while appending).
  void Reserve(int count, int doubles) {
    slots_.reserve(count);
    data_.reserve(doubles);
  }
  /// A zero block of rows x cols after the last one.
  void Append(int rows, int cols = 1) {
    slots_.push_back({static_cast<int>(data_.size()), static_cast<std::uint8_t>(rows),
                      static_cast<std::uint8_t>(cols)});
    data_.resize(data_.size() + static_cast<size_t>(rows) * cols, 0.0);
  }
  int size() const { return static_cast<int>(slots_.size()); }
  /// Every block's entries, one after the other in tree order.
  const double* data() const { return data_.data(); }
  Eigen::Map<Eigen::VectorXd> flat() {
    return Eigen::Map<Eigen::VectorXd>(data_.data(), static_cast<Eigen::Index>(data_.size()));
  }
  Map operator[](int i) {
    const Slot& s = slots_[i];
    return Map(data_.data() + s.offset, s.rows, s.cols);
  }
  ConstMap operator[](int i) const {
    const Slot& s = slots_[i];
    return ConstMap(data_.data() + s.offset, s.rows, s.cols);
  }

 private:
  struct Slot {
    int offset;
    std::uint8_t rows, cols;  // at most 6
  };
  std::vector<double> data_;
  std::vector<Slot> slots_;
};

/// The quantities of paper 004 s3 at one (t, q, q'), per body i: p_i, p_i', H_i, J_i,
/// k_i^(II) of (9) (K_i = I), M_i and f_i of (11). Sized once by JointTreeDae::MakeState;
/// each kind of block flat in tree order (BodyBlocks).
struct TreeState {
  Vector p, pv;                      // planar: absolute coordinates and velocities, planar layout
  std::vector<SpatialFrame> frames;  // spatial: every body's pose and twist
  BodyBlocks<BodyMatrix> H, J, M;
  BodyBlocks<BodyVector> k2, f;
  /// The compact form of a planar tree of rigid bodies (JointTreeDae::MakeCompactPlanarState):
  /// H left empty, and per body the two entries of H_i that vary, H_i(0, 2) and H_i(1, 2).
  /// Every other entry is that of -[1 0 .; 0 1 .; 0 0 1] (zeros negated: -0.0), whatever the
  /// joint. At N = 1e5 the recursions stream 16 B a body for H instead of 72, three times.
  std::vector<double> planar_arms;
  // Spatial: the smallest chart margin (joint_tree_spatial.h) and its body (-1: none).
  double chart_margin = 1.0;
  int chart_body = -1;
};

struct TreeWorkspace;
struct LastPlanarRotation;

/// Scratch for JointTreeDae::CalcTreeState into a state the caller holds (MakeState), and
/// for nothing else: no tree state of its own, no closure blocks. The recursive formalism
/// keeps its state itself; a full workspace would hold a second one (26 MB at N = 1e5).
class TreeStateScratch {
 public:
  TreeStateScratch();
  TreeStateScratch(TreeStateScratch&&) noexcept;
  TreeStateScratch& operator=(TreeStateScratch&&) noexcept;
  ~TreeStateScratch();

 private:
  friend class JointTreeDae;
  std::unique_ptr<TreeWorkspace> ws_;
};

/// Loop-closure constraints of a joint tree: the body formulation (planar or Euler
/// parameters) of the same bodies with only the cut joints, and which of its rows are the
/// cut joints' (its Euler-parameter normalisations hold by construction here).
struct TreeClosure {
  std::shared_ptr<const MechanicalDae> dae;
  std::vector<int> rows;
};

class JointTreeDae final : public MechanicalDae {
 public:
  /// `bodies` in an order where every predecessor comes first; `num_absolute` the size of
  /// the absolute coordinates p, those of the same bodies without joints
  /// (FormulateFreeBodies); `inertia` the body-frame inertia of every spatial rigid body
  /// (planar: empty).
  JointTreeDae(std::vector<TreeBody> bodies, std::vector<TreeForce> forces,
               BodyBlocks<BodyMatrix> mass_blocks, int num_absolute, double mass_scale,
               int dimension = 2, std::vector<Eigen::Matrix3d> inertia = {},
               TreeClosure closure = {});

  bool spatial() const { return dimension_ == 3; }
  /// A message naming the joint whose chart the state came within kChartMargin of (the
  /// run stops there), empty if none.
  std::string ChartFailure(const TreeState& s) const;
  /// The tree state of the last evaluation in a workspace of this DAE.
  const TreeState& StateOf(DaeWorkspace& ws) const;
  /// f(t, p, p') of (11) in the planar layout, O(N) (force elements one by one); without
  /// gravity and the springs' stiffness when `with_potential` is false (what the applied
  /// power counts).
  void CalcAppliedForces(double t, const Vector& p, const Vector& pv, VectorRef f,
                         bool with_potential = true) const;
  /// The potential of gravity and the springs at absolute coordinates p, O(N).
  double PotentialEnergy(double t, const Vector& p) const;

  const std::vector<TreeBody>& bodies() const { return bodies_; }
  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  int num_absolute() const { return num_absolute_; }
  /// Size of the velocity-level absolute vectors (sum of d_i; planar: num_absolute()).
  int num_absolute_velocities() const { return num_velocities_; }
  /// The largest |entry| of any body mass matrix: the scale the recursion's rank
  /// decisions are relative to.
  double mass_scale() const { return mass_scale_; }

  TreeState MakeState() const;
  /// A state whose H is in the compact form (TreeState::planar_arms); throws
  /// std::logic_error unless the tree is planar and every body rigid.
  TreeState MakeCompactPlanarState() const;
  TreeStateScratch MakeTreeStateScratch() const;
  /// Forward recursion (7), (8) for p, p' and the blocks of (9), (11). Allocation-free.
  void CalcTreeState(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                     TreeState& s) const;
  void CalcTreeState(TreeStateScratch& scratch, double t, ConstVectorRef q, ConstVectorRef v,
                     TreeState& s) const;
  /// Absolute coordinates and velocities only (for outputs), with a workspace of this DAE
  /// for scratch (allocation-free) or without one (a spatial tree's frames are then
  /// allocated per call).
  void CalcAbsolute(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, VectorRef p,
                    VectorRef pv) const;
  void CalcAbsolute(ConstVectorRef q, ConstVectorRef v, VectorRef p, VectorRef pv) const;
  /// The motion of every body (aligned with the model's bodies, sized by the caller) at
  /// (q, q'); p, pv are scratch of size num_absolute(). With a workspace of this DAE
  /// allocation-free; without one as CalcAbsolute.
  void CalcBodyMotions(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Vector& p, Vector& pv,
                       std::vector<BodyMotion>& bodies) const;
  void CalcBodyMotions(ConstVectorRef q, ConstVectorRef v, Vector& p, Vector& pv,
                       std::vector<BodyMotion>& bodies) const;

  // MechanicalDae (m = 0 for a tree; the closure constraints: joint_tree_closure.cc).
  std::unique_ptr<DaeWorkspace> MakeWorkspace() const override;
  void CalcPhi(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi) const override;
  void CalcPhiQ(DaeWorkspace& ws, double t, ConstVectorRef q, MatrixRef phi_q) const override;
  void CalcPhiT(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi_t) const override;
  void CalcVelocityResidual(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                            VectorRef out) const override;
  void CalcGamma(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                 VectorRef gamma) const override;
  void CalcPhiQDot(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                   MatrixRef out) const override;
  void CalcReactionStiffness(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef lambda,
                             MatrixRef k) const override;
  void CalcMassMatrix(DaeWorkspace& ws, ConstVectorRef q, MatrixRef mass) const override;
  void CalcForces(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                  VectorRef forces) const override;
  void CalcForceJacobians(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                          MatrixRef dq, MatrixRef dv) const override;
  void CalcMassTimesAccelerationJacobian(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef a,
                                         MatrixRef out) const override;
  double CalcEnergy(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v) const override;
  double CalcAppliedPower(DaeWorkspace& ws, double t, ConstVectorRef q,
                          ConstVectorRef v) const override;
  void CalcMomenta(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Eigen::Vector3d& linear,
                   Eigen::Vector3d& angular) const override;
  /// A mass matrix that depends on q and momenta; no patterns (the recursion is O(N)).
  Capabilities capabilities() const override {
    Capabilities c;
    c.momenta = true;
    return c;
  }

  /// Generalized forces Jp^T F of body forces F (planar layout) given the tree state's
  /// H and J (backward accumulation; the transpose of the forward recursion).
  void ProjectBodyForces(const TreeState& s, Vector& body_forces, VectorRef out) const;

 private:
  void Project(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a,
               bool with_forces, VectorRef out) const;
  // Spatial models (joint_tree_spatial_dae.cc).
  void CalcFrames(ConstVectorRef q, ConstVectorRef v, std::vector<SpatialFrame>& frames,
                  TreeState* s) const;
  void CalcPlanarTreeState(TreeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                           TreeState& s) const;
  // CalcAbsolute and CalcBodyMotions with `frames` (num_bodies()) as a spatial tree's scratch.
  void CalcAbsoluteWith(std::vector<SpatialFrame>& frames, ConstVectorRef q, ConstVectorRef v,
                        VectorRef p, VectorRef pv) const;
  void CalcBodyMotionsWith(std::vector<SpatialFrame>& frames, ConstVectorRef q, ConstVectorRef v,
                           Vector& p, Vector& pv, std::vector<BodyMotion>& bodies) const;
  // The workspace's state at q (its positional blocks), reusing the one held if it is at q.
  void PositionState(TreeWorkspace& ws, ConstVectorRef q) const;
  void CalcSpatialTreeState(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                            TreeState& s) const;
  void CalcSpatialForces(double t, const std::vector<SpatialFrame>& frames, Vector& f,
                         bool with_potential) const;
  double SpatialPotential(const std::vector<SpatialFrame>& frames) const;
  double SpatialEnergy(TreeWorkspace& ws, ConstVectorRef q, ConstVectorRef v) const;
  double SpatialAppliedPower(TreeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v) const;
  void SpatialMomenta(TreeWorkspace& ws, ConstVectorRef q, ConstVectorRef v,
                      Eigen::Vector3d& linear, Eigen::Vector3d& angular) const;
  Eigen::Matrix3d GlobalInertia(int i, const Eigen::Matrix3d& R) const;
  void FramesToLayout(const std::vector<SpatialFrame>& frames, VectorRef p, VectorRef pv) const;
  TreeState MakeStateWith(bool compact_planar) const;
  // CalcPlanarTreeState's body i when IsRigidRevolute (joint_tree_internal.h).
  void StoreRigidRevolute(int i, double q, double qv, LastPlanarRotation& last, TreeState& s) const;
  // Planar: drops the TreeForce of every spring and damper (its ForceElement has it all)
  // and points the elements' `source` at the ones kept.
  void KeepOnlyReferencedForces();

  std::vector<TreeBody> bodies_;
  std::vector<TreeForce> forces_;       // planar: only those a ForceElement's `source` names
  BodyBlocks<BodyMatrix> mass_blocks_;  // M_i per tree body: diag(m, m, J) or m I
  // What the planar force pass streams, compact and in order: every body once for gravity
  // and two per damper, and every element. Read from the TreeBody (then 192 B), the mass
  // blocks and the 192 B TreeForce, that pass was the part of an evaluation that grew most
  // from N = 1e3 to 1e5 in a sampling profile (docs/performance.md, "O(N)").
  std::vector<ForceBody> force_bodies_;
  std::vector<ForceElement> force_elements_;
  std::vector<ForcePoints> force_points_;
  int num_absolute_;
  double mass_scale_;
  int dimension_;
  std::vector<Eigen::Matrix3d> inertia_;  // spatial rigid bodies: body-frame inertia
  int num_velocities_ = 0;
  // Planar, every body's p_offset where TreeState::f holds its block: the force pass then
  // sums into f itself, without a vector of its own and a pass copying it over.
  bool forces_in_state_layout_ = false;
  TreeClosure closure_;
  // Closure constraints (joint_tree_closure.cc).
  void CalcCoordinateJacobian(TreeWorkspace& ws, ConstVectorRef q) const;
  void SelectCutRows(const Vector& all, VectorRef out) const;
  void AbsoluteAccelerationTerms(TreeWorkspace& ws, double t, ConstVectorRef q,
                                 ConstVectorRef v) const;
};

/// The joint-tree formulation's rules: the joints form a tree with every
/// joint's body_a the predecessor, supported joint/child kinds, no drivers; masses >= 0;
/// assumption (23) of paper 004 (no body with rank-deficient mass follows another one),
/// refused with a message naming both bodies.
void ValidateJointTreeModel(const ModelDescription& model);
FormulatedModel FormulateJointTree(ModelDescription model);

/// The body formulation of the model's bodies and force elements without joints, drivers
/// or held values (planar; Euler parameters for dimension 3): its q is the tree's absolute
/// p. The joint tree takes its layout, stated pose and outputs from it and keeps none of
/// its equations (at N = 1e5 bodies some 26 MB); its forces, energy and momenta (O(N^2):
/// a dense mass matrix, a potential gradient one coordinate at a time) are the cross-check
/// of the O(N) ones of JointTreeDae.
FormulatedModel FormulateFreeBodies(const ModelDescription& model);

}  // namespace mbb
