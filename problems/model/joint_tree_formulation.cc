// Validation and formulation of the joint-tree formulation (joint_tree.h; paper 004
// s3.1-3.2): the model's tree oriented from the ground, its bodies, joints and force
// elements as TreeBody / TreeForce, the joint coordinates of the stated pose, the cut joints
// as loop-closure constraints, and the maps to and from body motions.
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "problems/core/parameters.h"
#include "problems/model/body_motion.h"
#include "problems/model/joint_tree.h"
#include "problems/model/joint_tree_internal.h"
#include "problems/model/model_compiler.h"

namespace mbb {

namespace {

bool RankDeficientMass(const BodyDescription& b, int dimension) {
  if (!(b.mass > 0.0)) return true;
  if (b.kind != BodyKind::kRigid) return false;
  if (dimension == 2) return !(b.inertia(0, 0) > 0.0);
  return !(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia, Eigen::EigenvaluesOnly)
               .eigenvalues()
               .minCoeff() > 0.0);
}

// The spatial joints the formulation writes explicitly (joint_tree_spatial.h).
void ValidateSpatialJoint(const std::string& w, const JointDescription& j,
                          const BodyDescription& body) {
  const bool rigid = body.kind == BodyKind::kRigid;
  const std::string what = ": joint '" + j.name + "' (" + JointKindName(j.kind) + ")";
  switch (j.kind) {
    case JointKind::kSpherical:
    case JointKind::kRevolute:
    case JointKind::kCylindrical:
    case JointKind::kPlanar:
      if (!rigid)
        throw InputError(w + what + ": the successor '" + body.name +
                         "' must be a rigid body (a point mass has no orientation)");
      break;
    case JointKind::kDistance:
      if (!(j.length > 0.0)) throw InputError(w + what + ": length must be > 0");
      return;
    case JointKind::kPrismatic:
      break;
    default:
      throw InputError(w + what +
                       ": formulation 'joint-tree' writes spatial models with spherical, "
                       "distance, revolute, prismatic, cylindrical and planar joints (and "
                       "bodies no joint connects) only");
  }
  if (j.kind != JointKind::kSpherical && !(j.axis_a.norm() > 0.0))
    throw InputError(w + what + ": axis_a must be nonzero");
}

// Every tree joint written from its predecessor (body_a) to its successor (body_b): a joint
// stated the other way round has its ends swapped (points and axes; a planar prismatic's
// axis, given in body_a's frame only, turned into the other body's frame at the stated
// pose). Cut joints stay as stated: the body formulation writes them.
ModelDescription OrientTreeJoints(const ModelDescription& model, const KinematicTree& tree) {
  ModelDescription out = model;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const int ji = tree.parent_joint[i];
    if (ji < 0 || out.joints[ji].body_b == model.bodies[i].name) continue;
    JointDescription& j = out.joints[ji];
    Eigen::Vector3d axis_in_b = j.axis_b;
    if (model.dimension == 2) {
      auto angle = [&](const std::string& name) {
        for (const BodyDescription& b : model.bodies)
          if (b.name == name) return b.kind == BodyKind::kRigid ? b.angle : 0.0;
        return 0.0;  // the ground
      };
      axis_in_b =
          Eigen::AngleAxisd(angle(j.body_a) - angle(j.body_b), Eigen::Vector3d::UnitZ()) * j.axis_a;
    }
    std::swap(j.body_a, j.body_b);
    std::swap(j.point_a, j.point_b);
    j.axis_b = j.axis_a;
    j.axis_a = axis_in_b;
  }
  return out;
}

// The model with its tree joints oriented: `stated` itself when every tree joint already
// runs from predecessor to successor (no copy of a large model), else a copy in `storage`.
const ModelDescription& OrientedModel(const ModelDescription& stated,
                                      std::optional<ModelDescription>& storage) {
  const KinematicTree tree = BuildKinematicTree(stated);
  for (size_t i = 0; i < stated.bodies.size(); ++i) {
    const int ji = tree.parent_joint[i];
    if (ji >= 0 && stated.joints[ji].body_b != stated.bodies[i].name) {
      storage = OrientTreeJoints(stated, tree);
      return *storage;
    }
  }
  return stated;
}

// The spatial joint of a body (joint_tree_spatial.h); null: no joint connects it.
SpatialJoint SpatialJointOf(const JointDescription* j, bool rigid) {
  SpatialJoint g;
  g.rotation = rigid ? SpatialJoint::Rotation::kEuler : SpatialJoint::Rotation::kNone;
  if (!j) {
    g.translation = SpatialJoint::Translation::kWorld;
    return g;
  }
  g.s_a = j->point_a;
  g.s_b = j->point_b;
  const Eigen::Vector3d axis = j->axis_a.normalized();
  g.axis_a = axis;
  switch (j->kind) {
    case JointKind::kDistance:
      g.translation = SpatialJoint::Translation::kDistance;
      g.length = j->length;
      break;
    case JointKind::kRevolute:
      g.rotation = SpatialJoint::Rotation::kAxis;
      break;
    case JointKind::kPrismatic:
    case JointKind::kCylindrical:
      g.translation = SpatialJoint::Translation::kParentAxes;
      g.num_axes = 1;
      g.axes.col(0) = axis;
      if (rigid)
        g.rotation = j->kind == JointKind::kPrismatic ? SpatialJoint::Rotation::kLocked
                                                      : SpatialJoint::Rotation::kAxis;
      break;
    case JointKind::kPlanar: {  // slides in the plane normal to axis_a, turns about it
      Eigen::Index k = 0;
      axis.cwiseAbs().minCoeff(&k);
      const Eigen::Vector3d f = axis.cross(Eigen::Vector3d::Unit(k)).normalized();
      g.translation = SpatialJoint::Translation::kParentAxes;
      g.num_axes = 2;
      g.axes.col(0) = f;
      g.axes.col(1) = axis.cross(f);
      g.rotation = SpatialJoint::Rotation::kAxis;
      break;
    }
    default:
      break;  // kSpherical: the Euler angles (ValidateJointTreeModel refuses the rest)
  }
  return g;
}

TreeJointKind TreeKind(JointKind kind) {
  switch (kind) {
    case JointKind::kRevolute:
      return TreeJointKind::kRevolute;
    case JointKind::kPrismatic:
      return TreeJointKind::kPrismatic;
    case JointKind::kDistance:
      return TreeJointKind::kDistance;
    default:
      return TreeJointKind::kFree;  // kPlanar: free relative motion in the plane
  }
}

}  // namespace

void ValidateJointTreeModel(const ModelDescription& stated) {
  const std::string w = stated.Where();
  std::optional<ModelDescription> oriented;
  const ModelDescription& model = OrientedModel(stated, oriented);
  if (model.dimension != 2 && model.dimension != 3)
    throw InputError(w + ": formulation 'joint-tree' needs dimension 2 or 3");
  const bool spatial = model.dimension == 3;
  if (!model.drivers.empty())
    throw InputError(w + ": driver '" + model.drivers[0].name +
                     "': formulation 'joint-tree' has no constraints (drivers are refused)");
  for (const auto& b : model.bodies)
    if (b.kind == BodyKind::kRigid && !(b.inertia.diagonal().minCoeff() >= 0.0))
      throw InputError(w + ": body '" + b.name + "' inertia must be >= 0");
  if (spatial)
    for (const auto& f : model.forces)
      if (f.kind == ForceKind::kTorsionalSpring)
        throw InputError(w + ": force '" + f.name +
                         "' (torsional spring) is planar: refused in a spatial joint tree");
  const KinematicTree tree = BuildKinematicTree(model);
  if (!tree.cut_joints.empty()) {
    // Loop-closure constraints: the cut joints as the body formulation writes them.
    ModelDescription cut = model;
    cut.joints.clear();
    for (int ji : tree.cut_joints) cut.joints.push_back(model.joints[ji]);
    if (spatial)
      ValidateEulerParameterModel(cut);
    else
      ValidatePlanarModel(cut);
  }
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const BodyDescription& body = model.bodies[i];
    const int ji = tree.parent_joint[i];
    if (ji >= 0) {
      const JointDescription& j = model.joints[ji];
      const bool rigid = body.kind == BodyKind::kRigid;
      if (spatial) {
        ValidateSpatialJoint(w, j, body);
      } else {
        if (j.kind != JointKind::kRevolute && j.kind != JointKind::kPrismatic &&
            j.kind != JointKind::kDistance && j.kind != JointKind::kPlanar)
          throw InputError(w + ": joint '" + j.name + "' (" + JointKindName(j.kind) +
                           "): formulation 'joint-tree' writes planar trees with revolute, "
                           "prismatic, distance and planar joints only (any kind may close a "
                           "loop)");
        if (j.kind == JointKind::kRevolute && !rigid)
          throw InputError(w + ": joint '" + j.name + "' (revolute): the successor '" + body.name +
                           "' must be a rigid body (a point mass has no angle)");
        if (j.kind == JointKind::kDistance && rigid)
          throw InputError(w + ": joint '" + j.name + "' (distance): the successor '" + body.name +
                           "' must be a point mass");
        if (j.kind == JointKind::kDistance && !(j.length > 0.0))
          throw InputError(w + ": joint '" + j.name + "' (distance): length must be > 0");
        if (j.kind == JointKind::kPrismatic && !(j.axis_a.head<2>().norm() > 0.0))
          throw InputError(w + ": joint '" + j.name + "' (prismatic): axis_a must be nonzero");
      }
    }
    // Assumption (23): rank M_i < d => pi_i = 0 or rank M_{pi_i} = d.
    const int parent = tree.parent[i];
    if (parent >= 0 && RankDeficientMass(body, model.dimension) &&
        RankDeficientMass(model.bodies[parent], model.dimension))
      throw InputError(w + ": bodies '" + model.bodies[parent].name + "' and '" + body.name +
                       "' both have rank-deficient mass and one follows the other: assumption "
                       "(23) of paper 004 (isolated zero-mass bodies) is violated");
  }
}

namespace {

// The same bodies and force elements without joints, drivers and held values. The joints'
// copy is released at once (clear() would keep its capacity, a quarter of a large model).
ModelDescription FreeBodiesOf(const ModelDescription& model) {
  ModelDescription free_bodies = model;
  std::vector<JointDescription>().swap(free_bodies.joints);
  std::vector<DriverDescription>().swap(free_bodies.drivers);
  for (auto& b : free_bodies.bodies) b.hold.clear();
  return free_bodies;
}

// The model's held pose and twist components (BodyDescription::hold) as rows on the joint
// coordinates: the body formulation's rows times T = dp/dq at the stated pose (exact for
// velocities, the linearisation for positions, which a consistent stated pose never moves).
void HeldRows(const ModelDescription& model, const JointTreeDae& dae, const Vector& q,
              FormulatedModel& out) {
  ModelDescription bodies = model;
  bodies.joints.clear();
  bodies.drivers.clear();
  const FormulatedModel held =
      model.dimension == 3 ? FormulateSpatialEuler(bodies) : FormulatePlanar(bodies);
  const int n = dae.num_coordinates(), np = dae.num_absolute();
  Matrix coordinate_jacobian(np, n);
  Vector unit(n), p(np), pv(np);
  for (int k = 0; k < n; ++k) {
    unit.setZero();
    unit(k) = 1.0;
    dae.CalcAbsolute(q, unit, p, pv);
    coordinate_jacobian.col(k) = pv;
  }
  out.hold_q = held.hold_q * coordinate_jacobian;
  out.hold_v = held.hold_v * coordinate_jacobian;
  out.hold_names_q = held.hold_names_q;
  out.hold_names_v = held.hold_names_v;
}

// The cut joints' equations (joint_tree_closure.cc): the body formulation of the same
// bodies with those joints only, its joint rows (the Euler-parameter normalisations hold by
// construction in the tree), their owners renumbered and named as in `model`.
TreeClosure LoopClosure(const ModelDescription& model, const KinematicTree& tree,
                        std::vector<ConstraintRows>& rows, std::vector<std::string>& names) {
  TreeClosure closure;
  if (tree.cut_joints.empty()) return closure;
  ModelDescription cut = FreeBodiesOf(model);
  for (int ji : tree.cut_joints) cut.joints.push_back(model.joints[ji]);
  const FormulatedModel body_form =
      model.dimension == 3 ? FormulateSpatialEuler(cut) : FormulatePlanar(cut);
  closure.dae = body_form.dae;
  for (const ConstraintRows& r : body_form.rows) {
    if (r.owner != ConstraintRows::Owner::kJoint) continue;
    ConstraintRows kept = r;
    kept.index = tree.cut_joints[r.index];
    kept.first_row = static_cast<int>(closure.rows.size());
    for (int k = 0; k < r.num_rows; ++k) {
      closure.rows.push_back(r.first_row + k);
      names.push_back(body_form.constraint_names[r.first_row + k]);
    }
    rows.push_back(kept);
  }
  return closure;
}

// 2 pi for the joint coordinates that are angles able to turn without bound: a planar
// revolute joint's relative angle, a distance joint's rod direction and a free planar
// body's theta. Spatial charts are local
// (they change chart before they wrap), so none is periodic there.
std::vector<double> JointAnglePeriods(const std::vector<TreeBody>& bodies, bool spatial, int n) {
  std::vector<double> periods(n, 0.0);
  if (spatial) return periods;
  for (const TreeBody& b : bodies) {
    // A distance joint's coordinate is the rod's direction angle (e = (cos q, sin q)).
    if (b.joint == TreeJointKind::kRevolute || b.joint == TreeJointKind::kDistance)
      periods[b.q_offset] = 2.0 * M_PI;
    if (b.joint == TreeJointKind::kFree && b.rigid && b.n == 3)
      periods[b.q_offset + 2] = 2.0 * M_PI;
  }
  return periods;
}

// The tree's bodies in topological order (parents first) with their joints, offsets and
// joint coordinate counts; `position` maps a model index to a tree index. Returns the
// number of joint coordinates; `mass_scale` the largest mass or inertia entry.
int TreeBodies(const ModelDescription& model, const KinematicTree& tree,
               const FormulatedModel& planar, const std::vector<int>& position,
               std::vector<TreeBody>& bodies, double& mass_scale) {
  const bool spatial = model.dimension == 3;
  mass_scale = 0.0;
  int q_offset = 0, w_offset = 0;
  bodies.reserve(tree.topological_order.size());
  for (int mi : tree.topological_order) {
    const BodyDescription& desc = model.bodies[mi];
    TreeBody b;
    b.model_index = mi;
    b.parent = tree.parent[mi] < 0 ? -1 : position[tree.parent[mi]];
    b.rigid = desc.kind == BodyKind::kRigid;
    b.d = spatial ? (b.rigid ? 6 : 3) : planar.body_coordinates[mi].size;
    b.p_offset = planar.body_coordinates[mi].offset;
    // Planar: the velocity level is the planar layout itself (the force elements write
    // there); spatial: blocks of d in tree order.
    b.w_offset = spatial ? w_offset : b.p_offset;
    w_offset += b.d;
    b.s_a.setZero();
    b.s_b.setZero();
    b.axis_a = Eigen::Vector2d::UnitX();
    const int ji = tree.parent_joint[mi];
    if (ji >= 0) {
      const JointDescription& j = model.joints[ji];
      b.joint = TreeKind(j.kind);
      b.s_a = j.point_a.head<2>();
      b.s_b = j.point_b.head<2>();
      b.axis_a = j.axis_a.head<2>().normalized();
      b.length = j.length;
      if (b.joint == TreeJointKind::kPrismatic && b.d == 3) {
        const double theta_a = tree.parent[mi] < 0 ? 0.0 : model.bodies[tree.parent[mi]].angle;
        b.angle_offset = desc.angle - theta_a;
      }
    }
    b.n = b.joint == TreeJointKind::kFree ? b.d : 1;
    if (spatial) {
      b.spatial = SpatialJointOf(ji < 0 ? nullptr : &model.joints[ji], b.rigid);
      (*b.spatial).where = ji < 0
                               ? "body '" + desc.name + "' (free, no joint)"
                               : "joint '" + model.joints[ji].name + "' (body '" + desc.name + "')";
      b.n = b.spatial->translation_count() + b.spatial->rotation_count();
    }
    b.q_offset = q_offset;
    q_offset += b.n;
    mass_scale = std::max({mass_scale, desc.mass, desc.inertia.diagonal().maxCoeff()});
    bodies.push_back(b);
  }
  return q_offset;
}

// Joint coordinates of the stated pose and twist (spatial: the charts first, chosen at the
// stated pose with the model's gravity).
void StatedJointCoordinates(const ModelDescription& model, const FormulatedModel& planar,
                            const ModelStructure& planar_blocks, std::vector<TreeBody>& bodies,
                            Vector& q, Vector& v) {
  if (model.dimension != 3) {
    PlanarJointCoordinatesFromAbsolute(bodies, planar.q_guess, planar.v_guess, q, v);
    return;
  }
  std::vector<BodyMotion> motion;
  BodiesFromCoordinates(planar_blocks, planar.q_guess, planar.v_guess, motion);
  const std::vector<SpatialFrame> frames = FramesOfBodies(bodies, motion);
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  for (const ForceDescription& f : model.forces)
    if (f.kind == ForceKind::kGravity) gravity += f.vector;
  for (TreeBody& b : bodies) {
    const SpatialFrame* parent = b.parent < 0 ? nullptr : &frames[b.parent];
    ChooseSpatialCharts(*b.spatial, parent, b.parent >= 0 && bodies[b.parent].rigid,
                        frames[&b - bodies.data()], gravity);
  }
  SpatialJointCoordinatesOf(bodies, frames, q, v);
}

// The model's force elements with their bodies as tree indices (-1: the ground).
std::vector<TreeForce> TreeForces(const ModelDescription& model, const std::vector<int>& position) {
  std::vector<TreeForce> forces;
  forces.reserve(model.forces.size());
  const BodyIndex index(model);
  auto tree_index = [&](const std::string& name) {
    const int mi = name.empty() ? -1 : index.Find(name, "force element");
    return mi < 0 ? -1 : position[mi];
  };
  for (const ForceDescription& d : model.forces) {
    TreeForce e;
    e.kind = d.kind;
    e.a = tree_index(d.body_a);
    e.b = tree_index(d.body_b);
    e.sa = d.point_a.head<2>();
    e.sb = d.point_b.head<2>();
    e.sa3 = d.point_a;
    e.sb3 = d.point_b;
    e.vector = d.vector;
    e.stiffness = d.stiffness;
    e.damping = d.damping;
    e.rest = d.rest_length;
    e.law = d.law;
    forces.push_back(e);
  }
  return forces;
}

// The body mass matrices M_i of (11) in tree order: diag(m, m, J); spatial diag(m I, R J R^T),
// the rotation block set per state from the body-frame `inertia`.
void MassBlocks(const ModelDescription& model, const std::vector<TreeBody>& bodies,
                BodyBlocks<BodyMatrix>& mass_blocks, std::vector<Eigen::Matrix3d>& inertia) {
  int doubles = 0;
  for (const TreeBody& tb : bodies) doubles += tb.d * tb.d;
  mass_blocks.Reserve(static_cast<int>(bodies.size()), doubles);
  for (const TreeBody& tb : bodies) {
    const BodyDescription& b = model.bodies[tb.model_index];
    BodyMatrix m = BodyMatrix::Zero(tb.d, tb.d);
    m.topLeftCorner(model.dimension, model.dimension).diagonal().setConstant(b.mass);
    if (tb.rigid && model.dimension == 2) m(2, 2) = b.inertia(0, 0);
    mass_blocks.Append(tb.d, tb.d);
    mass_blocks[mass_blocks.size() - 1] = m;
    if (model.dimension == 3) inertia.push_back(tb.rigid ? b.inertia : Eigen::Matrix3d::Zero());
  }
}

// References and peers hand back body motions: joint coordinates straight from them
// (spatial: through the frames), the inverse of (7), (8); and the forward maps to body
// motions and to the outputs of `planar`, whose outputs the tree's are.
void SetBodyMaps(const std::shared_ptr<const JointTreeDae>& dae, const FormulatedModel& planar,
                 FormulatedModel& out) {
  out.coordinates_from_bodies = [dae](const std::vector<BodyMotion>& motion, Vector& qq,
                                      Vector& vv) {
    if (qq.size() != dae->num_coordinates() || !qq.allFinite()) qq.setZero(dae->num_coordinates());
    vv.resize(dae->num_coordinates());
    if (dae->spatial()) {
      SpatialJointCoordinatesOf(dae->bodies(), FramesOfBodies(dae->bodies(), motion), qq, vv);
      return;
    }
    // Straight from the motions (no absolute vector in between): a peer engine maps every
    // step through here (the MuJoCo peer's allocation check), and nothing is kept.
    PlanarJointCoordinatesFromMotions(dae->bodies(), motion, qq, vv);
  };
  out.bodies_from_coordinates = [dae](const Vector& qq, const Vector& vv,
                                      std::vector<BodyMotion>& motion) {
    Vector pp(dae->num_absolute()), ppv(dae->num_absolute());
    dae->CalcBodyMotions(qq, vv, pp, ppv, motion);
  };
  auto planar_outputs = planar.calc_outputs;
  const int np = dae->num_absolute();
  out.calc_outputs = [dae, planar_outputs, np](double t, const Vector& qq, const Vector& vv,
                                               Vector& values) {
    Vector pp(np), ppv(np);
    dae->CalcAbsolute(qq, vv, pp, ppv);
    planar_outputs(t, pp, ppv, values);
  };
}

}  // namespace

FormulatedModel FormulateFreeBodies(const ModelDescription& model) {
  ModelDescription free_bodies = FreeBodiesOf(model);
  // Moved in: the formulation keeps free_bodies as its model without a copy.
  return model.dimension == 3 ? FormulateSpatialEuler(std::move(free_bodies))
                              : FormulatePlanar(std::move(free_bodies));
}

FormulatedModel FormulateJointTree(ModelDescription stated) {
  std::optional<ModelDescription> oriented;
  const ModelDescription& model = OrientedModel(stated, oriented);
  const bool spatial = model.dimension == 3;
  const KinematicTree tree = BuildKinematicTree(model);
  std::vector<ConstraintRows> closure_rows;
  std::vector<std::string> closure_names;
  const TreeClosure closure = LoopClosure(model, tree, closure_rows, closure_names);
  // M_i, f_i and outputs in absolute coordinates p; the tree keeps none of its equations.
  FormulatedModel planar = FormulateFreeBodies(model);
  // The body blocks of that formulation: body motions to and from its coordinates (what
  // the spatial charts are chosen from; a planar tree reads its coordinates directly).
  // Nothing else reads planar.model: a planar tree drops it here.
  ModelStructure planar_blocks;
  if (spatial) {
    planar_blocks.model = std::move(planar.model);
    planar_blocks.formulation = "euler-parameters";
    planar_blocks.bodies = planar.body_coordinates;
  }
  planar.model = ModelDescription();
  std::vector<int> position(model.bodies.size());  // model index -> tree index
  for (size_t k = 0; k < tree.topological_order.size(); ++k)
    position[tree.topological_order[k]] = static_cast<int>(k);
  std::vector<TreeBody> bodies;
  double mass_scale = 0.0;
  const int n = TreeBodies(model, tree, planar, position, bodies, mass_scale);
  Vector q = Vector::Zero(n), v = Vector::Zero(n);
  StatedJointCoordinates(model, planar, planar_blocks, bodies, q, v);
  BodyBlocks<BodyMatrix> mass_blocks;
  std::vector<Eigen::Matrix3d> inertia;
  MassBlocks(model, bodies, mass_blocks, inertia);
  auto dae = std::make_shared<JointTreeDae>(
      std::move(bodies), TreeForces(model, position), std::move(mass_blocks),
      planar.dae->num_coordinates(), mass_scale, model.dimension, std::move(inertia), closure);
  FormulatedModel out;
  out.dae = dae;
  out.q_guess = q;
  out.v_guess = v;
  out.hold_q.resize(0, n);
  out.hold_v.resize(0, n);
  // Holds matter only to the assembly of loop-closure constraints (a tree needs none).
  bool holds = false;
  for (const BodyDescription& b : model.bodies) holds = holds || !b.hold.empty();
  if (dae->num_constraints() > 0 && holds) HeldRows(model, *dae, q, out);
  out.stated_q = Vector::Zero(n);
  out.stated_v = Vector::Zero(n);
  out.rows = closure_rows;
  out.constraint_names = closure_names;
  out.coordinate_periods = JointAnglePeriods(dae->bodies(), spatial, n);
  out.angle_outputs_wrap = planar.angle_outputs_wrap;  // its outputs are those of `planar`
  SetBodyMaps(dae, planar, out);
  out.model = std::move(stated);  // last: `model` may be `stated` itself
  return out;
}

}  // namespace mbb
