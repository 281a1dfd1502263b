// Translation of a ModelStructure into a Simbody 3.7 system (Sherman, Seth, Delp, "Simbody:
// multibody dynamics for biomedical research", Procedia IUTAM 2, 2011: mobilizers on a tree
// plus constraints). Conventions:
//  - Each model body is one Simbody body whose frame is the model's body frame (origin at the
//    centre of mass), so body poses and twists read directly. A planar model (dimension 2)
//    is built in Simbody's X-Y plane: planar axes are Simbody's X, Y and rotations are about Z.
//  - Tree joints (ModelStructure::tree) become mobilizers between joint frames F (on the
//    parent) and M (on the child) that coincide at the initial state: revolute -> Pin (about
//    Z of the joint frame: global z in a planar model, the joint axis in a spatial one),
//    prismatic -> Slider (along X = the axis), spherical -> Ball, universal -> Universal
//    (X = the parent's axis, Y = the child's), cylindrical -> Cylinder (Z = the axis),
//    planar -> Planar (Z = the normal), fixed -> Weld. A body without a tree joint is Free
//    (Planar in a planar model).
//  - A point mass has no rotational inertia, so it gets a Translation mobilizer from the
//    ground and every joint touching it becomes a constraint (a rotating mobilizer on it
//    would make the mass matrix singular), except a planar distance joint to its centre:
//    a Pin at the joint's other end with the mass a rod's length away (inertia m l^2 about
//    the pin, as a pendulum in joint coordinates). Other distance and point-on-line joints have no
//    mobilizer either: their child gets a free mobilizer from the ground and the joint a
//    constraint.
//  - Cut joints (and the joints above) become constraints with the model's own equations:
//    revolute planar -> PointOnLine along Z (2 eqs), spatial -> Ball + two ConstantAngle
//    (the joint axis of b stays perpendicular to the two normals of a's axis; 5 eqs);
//    spherical -> Ball; universal -> Ball + ConstantAngle(u_a, h_b, pi/2); distance -> Rod;
//    point-on-line -> PointInPlane (planar) or PointOnLine (spatial). Other cut joints are
//    refused.
//  - Forces: gravity -> UniformGravity; spring-damper -> TwoPointLinearSpring/Damper;
//    planar torsional spring-damper -> MobilityLinearSpring/Damper on the tree Pin between
//    its two bodies; applied forces and torques with their time law -> a Force::Custom.
//    Drivers (prescribed motions) are refused.
#include "methods/simbody/simbody_model.h"

#include <Eigen/Geometry>
#include <cmath>

#include "problems/model/body_motion.h"
#include "problems/model/formulation.h"
#include "problems/model/model_compiler.h"  // JointKindName

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

SimTK::Vec3 ToVec3(const V3& v) { return SimTK::Vec3(v.x(), v.y(), v.z()); }
V3 ToEigen(const SimTK::Vec3& v) { return V3(v[0], v[1], v[2]); }

SimTK::Rotation ToRotation(const Eigen::Matrix3d& r) {
  SimTK::Mat33 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = r(i, j);
  return SimTK::Rotation(m);  // re-orthonormalised by Simbody
}

SimTK::Transform PoseOf(const BodyMotion& b) {
  return SimTK::Transform(ToRotation(b.orientation.toRotationMatrix()), ToVec3(b.position));
}

bool HasMobilizer(JointKind kind) {
  return kind != JointKind::kDistance && kind != JointKind::kPointOnLine;
}

// Applied force law(t) * vector at a body point, or torque law(t) * vector (global).
class AppliedLoad : public SimTK::Force::Custom::Implementation {
 public:
  AppliedLoad(SimTK::MobilizedBody body, const ForceDescription& f, bool torque)
      : body_(body),
        station_(ToVec3(f.point_a)),
        vector_(ToVec3(f.vector)),
        law_(f.law),
        torque_(torque) {}
  void calcForce(const SimTK::State& s, SimTK::Vector_<SimTK::SpatialVec>& body_forces,
                 SimTK::Vector_<SimTK::Vec3>&, SimTK::Vector&) const override {
    const SimTK::Vec3 load = law_.Eval(s.getTime()) * vector_;
    if (torque_)
      body_.applyBodyTorque(s, load, body_forces);
    else
      body_.applyForceToBodyPoint(s, station_, load, body_forces);
  }
  SimTK::Real calcPotentialEnergy(const SimTK::State&) const override { return 0; }

 private:
  SimTK::MobilizedBody body_;
  SimTK::Vec3 station_, vector_;
  TimeLaw law_;
  bool torque_;
};

// Everything the initial state and the mapping back need, kept alive by the closures.
struct ModelData {
  const ModelStructure* structure = nullptr;  // owned by the problem
  std::shared_ptr<const ModelStructure> keep;
  bool planar = true;
  std::vector<BodyMotion> start;   // every body at t0 (from q0, v0)
  std::vector<BodyMotion> motion;  // buffer for the mapping, also the previous values
  std::vector<SimTK::MobilizedBody> mobods;
  std::vector<int> mobilizer_parent;  // -1: ground
  std::vector<SimTK::Transform> x_pf, x_bm;
};

class Builder {
 public:
  Builder(const Problem& problem, SimbodyModel& model, ModelData& data)
      : problem_(problem), model_(model), data_(data), s_(*problem.structure), m_(s_.model) {}

  std::string Build() {
    data_.planar = m_.dimension == 2;
    if (!m_.drivers.empty())
      return "driver '" + m_.drivers[0].name + "': prescribed motions are not translated";
    const std::string layout = BodyCoordinatesUnsupported(s_, problem_.n());
    if (!layout.empty()) return layout;
    const size_t nb = m_.bodies.size();
    if (s_.tree.parent.size() != nb || s_.tree.parent_joint.size() != nb ||
        s_.tree.topological_order.size() != nb || s_.joint_ends.size() != m_.joints.size())
      return "the structure's kinematic tree does not cover the model's bodies";
    BodiesFromCoordinates(s_, problem_.q0, problem_.v0, data_.start);
    data_.motion = data_.start;
    data_.mobods.resize(nb);
    data_.mobilizer_parent.assign(nb, -1);
    data_.x_pf.resize(nb);
    data_.x_bm.resize(nb);
    std::vector<bool> is_cut(m_.joints.size(), false);
    for (int j : s_.tree.cut_joints) is_cut[j] = true;
    for (int b : s_.tree.topological_order) {
      const int j = s_.tree.parent_joint[b];
      const bool mobilized =
          j >= 0 && (PointMass(b) ? PlanarRod(j, b) : HasMobilizer(m_.joints[j].kind));
      if (j >= 0 && !mobilized) is_cut[j] = true;
      const std::string error = mobilized ? AddJointMobilizer(b, j) : AddFreeMobilizer(b);
      if (!error.empty()) return error;
    }
    for (size_t j = 0; j < m_.joints.size(); ++j)
      if (is_cut[j]) {
        const std::string error = AddConstraint(m_.joints[j]);
        if (!error.empty()) return error;
      }
    V3 gravity = V3::Zero();
    for (const ForceDescription& f : m_.forces)
      if (f.kind == ForceKind::kGravity) gravity += f.vector;
    if (gravity.norm() > 0.0)
      SimTK::Force::UniformGravity(model_.forces, model_.matter, ToVec3(gravity));
    for (const ForceDescription& f : m_.forces) {
      const std::string error = AddForce(f);
      if (!error.empty()) return error;
    }
    return {};
  }

 private:
  // A planar distance joint ending at the centre of a point mass: a Pin at the other end,
  // the mass a rod's length from it (its inertia about the pin, m l^2, is not singular).
  bool PlanarRod(int j, int child) const {
    const JointDescription& jd = m_.joints[j];
    return data_.planar && jd.kind == JointKind::kDistance && s_.joint_ends[j].body_b == child &&
           jd.point_b.norm() == 0.0;
  }
  bool PointMass(int b) const { return b >= 0 && m_.bodies[b].kind == BodyKind::kPointMass; }
  int Index(const std::string& name) const {
    return name == "ground" ? -1 : FindBodyIndex(m_, name, "the Simbody peer");
  }
  SimTK::MobilizedBody& Mobod(int b) { return b < 0 ? model_.matter.updGround() : data_.mobods[b]; }
  SimTK::Transform StartPose(int b) const {
    return b < 0 ? SimTK::Transform() : PoseOf(data_.start[b]);
  }
  Eigen::Matrix3d StartRotation(int b) const {
    return b < 0 ? Eigen::Matrix3d::Identity() : data_.start[b].orientation.toRotationMatrix();
  }
  V3 StartPoint(int b, const V3& s) const {
    return b < 0 ? s : V3(data_.start[b].position + StartRotation(b) * s);
  }

  SimTK::Body::Rigid BodyOf(int b) const {
    const BodyDescription& d = m_.bodies[b];
    SimTK::Inertia inertia(0.0);
    if (d.kind == BodyKind::kRigid) {
      if (data_.planar) {
        const double j = d.inertia(0, 0);  // planar: J about z; only Izz ever acts
        inertia = SimTK::Inertia(j, j, j);
      } else {
        inertia = SimTK::Inertia(d.inertia(0, 0), d.inertia(1, 1), d.inertia(2, 2), d.inertia(0, 1),
                                 d.inertia(0, 2), d.inertia(1, 2));
      }
    }
    return SimTK::Body::Rigid(SimTK::MassProperties(d.mass, SimTK::Vec3(0), inertia));
  }

  // A body moving freely relative to the ground (its joint, if any, becomes a constraint).
  std::string AddFreeMobilizer(int b) {
    SimTK::MobilizedBody& ground = model_.matter.updGround();
    const SimTK::Transform identity;
    if (PointMass(b))
      data_.mobods[b] = SimTK::MobilizedBody::Translation(ground, identity, BodyOf(b), identity);
    else if (data_.planar)
      data_.mobods[b] = SimTK::MobilizedBody::Planar(ground, identity, BodyOf(b), identity);
    else
      data_.mobods[b] = SimTK::MobilizedBody::Free(ground, identity, BodyOf(b), identity);
    data_.mobilizer_parent[b] = -1;
    data_.x_pf[b] = identity;
    data_.x_bm[b] = identity;
    return {};
  }

  std::string AddJointMobilizer(int b, int j) {
    const JointDescription& jd = m_.joints[j];
    const int a_index = s_.joint_ends[j].body_a, b_index = s_.joint_ends[j].body_b;
    const int parent = s_.tree.parent[b];
    if (!((a_index == parent && b_index == b) || (b_index == parent && a_index == b)))
      return "tree joint '" + jd.name + "' does not join body '" + m_.bodies[b].name +
             "' to its tree parent";
    const bool parent_is_a = a_index == parent;
    const V3 parent_point = parent_is_a ? jd.point_a : jd.point_b;
    const V3 child_point = parent_is_a ? jd.point_b : jd.point_a;
    const V3 axis_parent = parent_is_a ? jd.axis_a : jd.axis_b;
    const V3 axis_child = parent_is_a ? jd.axis_b : jd.axis_a;
    // The joint frame at t0 (global): its axes as the mobilizer expects them.
    Eigen::Matrix3d frame = Eigen::Matrix3d::Identity();
    const Eigen::Matrix3d r_parent = StartRotation(parent), r_child = StartRotation(b);
    auto frame_with_z = [&](const V3& z_global) {
      V3 x, y;
      PerpendicularPair(z_global, x, y);
      frame.col(0) = x;
      frame.col(1) = y;
      frame.col(2) = z_global.normalized();
    };
    switch (jd.kind) {
      case JointKind::kRevolute:
      case JointKind::kCylindrical:
      case JointKind::kPlanar:
        if (!data_.planar) frame_with_z(r_parent * axis_parent);
        break;
      case JointKind::kPrismatic: {
        V3 along = r_parent * axis_parent;
        if (data_.planar) {  // the slide direction in the plane (planar_formulation.cc)
          along.z() = 0.0;
          if (along.norm() == 0.0) along = V3::UnitX();
        }
        frame_with_z(along);  // then X = along: rotate the columns
        const Eigen::Matrix3d z_frame = frame;
        frame.col(0) = z_frame.col(2);
        frame.col(1) = z_frame.col(0);
        frame.col(2) = z_frame.col(1);
        break;
      }
      case JointKind::kUniversal: {
        const V3 x = (r_parent * axis_parent).normalized();
        const V3 y = (r_child * axis_child).normalized();
        if (std::abs(x.dot(y)) > 1e-9)
          return "universal joint '" + jd.name + "': axes not perpendicular at the start";
        frame.col(0) = x;
        frame.col(1) = y;
        frame.col(2) = x.cross(y);
        break;
      }
      default:
        break;  // spherical, fixed: any frame
    }
    const SimTK::Rotation r_joint = ToRotation(frame);
    const SimTK::Transform x_gf(r_joint, ToVec3(StartPoint(parent, parent_point)));
    // A rod (PlanarRod) pivots at the parent's point: M is there too.
    const V3 m_point = jd.kind == JointKind::kDistance ? StartPoint(parent, parent_point)
                                                       : StartPoint(b, child_point);
    const SimTK::Transform x_gm(r_joint, ToVec3(m_point));
    const SimTK::Transform x_pf = ~StartPose(parent) * x_gf;
    const SimTK::Transform x_bm = ~StartPose(b) * x_gm;
    SimTK::MobilizedBody& p = Mobod(parent);
    const SimTK::Body::Rigid body = BodyOf(b);
    switch (jd.kind) {
      case JointKind::kRevolute:
      case JointKind::kDistance:  // PlanarRod only
        data_.mobods[b] = SimTK::MobilizedBody::Pin(p, x_pf, body, x_bm);
        break;
      case JointKind::kPrismatic:
        data_.mobods[b] = SimTK::MobilizedBody::Slider(p, x_pf, body, x_bm);
        break;
      case JointKind::kSpherical:
        data_.mobods[b] = SimTK::MobilizedBody::Ball(p, x_pf, body, x_bm);
        break;
      case JointKind::kUniversal:
        data_.mobods[b] = SimTK::MobilizedBody::Universal(p, x_pf, body, x_bm);
        break;
      case JointKind::kCylindrical:
        data_.mobods[b] = SimTK::MobilizedBody::Cylinder(p, x_pf, body, x_bm);
        break;
      case JointKind::kPlanar:
        data_.mobods[b] = SimTK::MobilizedBody::Planar(p, x_pf, body, x_bm);
        break;
      case JointKind::kFixed:
        data_.mobods[b] = SimTK::MobilizedBody::Weld(p, x_pf, body, x_bm);
        break;
      default:
        return "joint '" + jd.name + "' (" + JointKindName(jd.kind) + ") has no mobilizer";
    }
    data_.mobilizer_parent[b] = parent;
    data_.x_pf[b] = x_pf;
    data_.x_bm[b] = x_bm;
    pins_.push_back({parent, b, jd.kind == JointKind::kRevolute});
    return {};
  }

  std::string AddConstraint(const JointDescription& jd) {
    const int ia = Index(jd.body_a), ib = Index(jd.body_b);
    SimTK::MobilizedBody& a = Mobod(ia);
    SimTK::MobilizedBody& b = Mobod(ib);
    const SimTK::Vec3 sa = ToVec3(jd.point_a), sb = ToVec3(jd.point_b);
    const std::string what = "joint '" + jd.name + "' (" + JointKindName(jd.kind) + ")";
    const bool point_mass = PointMass(ia) || PointMass(ib);
    V3 ua = jd.axis_a.norm() > 0.0 ? V3(jd.axis_a.normalized()) : V3(V3::UnitZ());
    const V3 hb = jd.axis_b.norm() > 0.0 ? V3(jd.axis_b.normalized()) : V3(V3::UnitZ());
    V3 fa, ga;
    PerpendicularPair(ua, fa, ga);
    auto perpendicular = [&](const V3& on_a, const V3& on_b) {
      SimTK::Constraint::ConstantAngle(a, SimTK::UnitVec3(ToVec3(on_a)), b,
                                       SimTK::UnitVec3(ToVec3(on_b)), SimTK::Pi / 2);
    };
    switch (jd.kind) {
      case JointKind::kRevolute:
        if (data_.planar) {
          SimTK::Constraint::PointOnLine(a, SimTK::UnitVec3(0, 0, 1), sa, b, sb);
          return {};
        }
        if (point_mass) return what + " on a point mass: no rotation to constrain";
        SimTK::Constraint::Ball(a, sa, b, sb);
        perpendicular(fa, hb);
        perpendicular(ga, hb);
        return {};
      case JointKind::kSpherical:
        SimTK::Constraint::Ball(a, sa, b, sb);
        return {};
      case JointKind::kUniversal:
        if (point_mass) return what + " on a point mass: no rotation to constrain";
        SimTK::Constraint::Ball(a, sa, b, sb);
        perpendicular(ua, hb);
        return {};
      case JointKind::kDistance:
        SimTK::Constraint::Rod(a, sa, b, sb, jd.length > 0.0 ? jd.length : 1.0);
        return {};
      case JointKind::kPointOnLine:
        if (data_.planar) {
          V3 along = jd.axis_a;
          along.z() = 0.0;
          // The line's normal in a's frame, as planar_formulation.cc takes it.
          const V3 normal = along.norm() > 0.0 ? V3(V3(-along.y(), along.x(), 0.0).normalized())
                                               : V3(V3::UnitY());
          SimTK::Constraint::PointInPlane(a, SimTK::UnitVec3(ToVec3(normal)),
                                          normal.dot(jd.point_a), b, sb);
        } else {
          SimTK::Constraint::PointOnLine(a, SimTK::UnitVec3(ToVec3(ua)), sa, b, sb);
        }
        return {};
      default:
        return what +
               " closes a loop or ends at a point mass: no Simbody constraint for it in "
               "the peer";
    }
  }

  std::string AddForce(const ForceDescription& f) {
    const std::string what = "force '" + f.name + "'";
    switch (f.kind) {
      case ForceKind::kGravity:
        return {};  // summed into one UniformGravity by Build
      case ForceKind::kSpringDamper: {
        SimTK::MobilizedBody& a = Mobod(Index(f.body_a));
        SimTK::MobilizedBody& b = Mobod(Index(f.body_b));
        if (f.stiffness != 0.0)
          SimTK::Force::TwoPointLinearSpring(model_.forces, a, ToVec3(f.point_a), b,
                                             ToVec3(f.point_b), f.stiffness, f.rest_length);
        if (f.damping != 0.0)
          SimTK::Force::TwoPointLinearDamper(model_.forces, a, ToVec3(f.point_a), b,
                                             ToVec3(f.point_b), f.damping);
        return {};
      }
      case ForceKind::kTorsionalSpring: {
        const int ia = Index(f.body_a), ib = Index(f.body_b);
        for (const Pin& pin : pins_) {
          if (!pin.revolute) continue;
          const bool child_is_b = pin.parent == ia && pin.child == ib;
          if (!child_is_b && !(pin.parent == ib && pin.child == ia)) continue;
          // Pin q = (theta_child - theta_parent) - (its value at t0): the spring's
          // theta_b - theta_a - rest = +-(q - q_zero).
          const double d0 =
              (ib < 0 ? 0.0 : data_.start[ib].angle) - (ia < 0 ? 0.0 : data_.start[ia].angle);
          const double q_zero = child_is_b ? f.rest_length - d0 : d0 - f.rest_length;
          if (f.stiffness != 0.0)
            SimTK::Force::MobilityLinearSpring(model_.forces, data_.mobods[pin.child], 0,
                                               f.stiffness, q_zero);
          if (f.damping != 0.0)
            SimTK::Force::MobilityLinearDamper(model_.forces, data_.mobods[pin.child], 0,
                                               f.damping);
          return {};
        }
        return what + ": a torsional spring between bodies not joined by a tree revolute joint";
      }
      case ForceKind::kForce:
      case ForceKind::kTorque: {
        const int ia = Index(f.body_a);
        if (ia < 0) return {};  // on the ground: no effect
        ForceDescription load = f;
        if (data_.planar && f.kind == ForceKind::kTorque) load.vector = V3(0, 0, f.vector.z());
        if (data_.planar && f.kind == ForceKind::kForce) load.vector.z() = 0.0;
        SimTK::Force::Custom(model_.forces,
                             new AppliedLoad(data_.mobods[ia], load, f.kind == ForceKind::kTorque));
        return {};
      }
    }
    return what + ": unknown kind";
  }

  struct Pin {
    int parent, child;
    bool revolute;
  };

  const Problem& problem_;
  SimbodyModel& model_;
  ModelData& data_;
  const ModelStructure& s_;
  const ModelDescription& m_;
  std::vector<Pin> pins_;
};

// q and u of every mobilizer from the start motions: X_FM = (X_GP X_PF)^-1 X_GB X_BM and the
// relative spatial velocity of M in F, in F.
void SetInitialState(const ModelData& d, SimTK::State& state) {
  for (int b : d.structure->tree.topological_order) {
    const int p = d.mobilizer_parent[b];
    const BodyMotion none;
    const BodyMotion& parent = p < 0 ? none : d.start[p];
    const BodyMotion& child = d.start[b];
    const SimTK::Transform x_gf = (p < 0 ? SimTK::Transform() : PoseOf(parent)) * d.x_pf[b];
    const SimTK::Transform x_gm = PoseOf(child) * d.x_bm[b];
    d.mobods[b].setQToFitTransform(state, ~x_gf * x_gm);
    const V3 pf = ToEigen(x_gf.p()), pm = ToEigen(x_gm.p());
    const V3 wp = parent.angular_velocity, wb = child.angular_velocity;
    const V3 vf = parent.velocity + wp.cross(pf - parent.position);
    const V3 vm = child.velocity + wb.cross(pm - child.position);
    const SimTK::Rotation& r_gf = x_gf.R();
    const SimTK::Vec3 w_fm = ~r_gf * ToVec3(wb - wp);
    const SimTK::Vec3 v_fm = ~r_gf * ToVec3(vm - vf - wp.cross(pm - pf));
    d.mobods[b].setUToFitVelocity(state, SimTK::SpatialVec(w_fm, v_fm));
  }
}

void MapToProblem(ModelData& d, const SimTK::State& s, Vector& q, Vector& v) {
  for (size_t b = 0; b < d.mobods.size(); ++b) {
    BodyMotion& m = d.motion[b];
    const SimTK::Transform& x = d.mobods[b].getBodyTransform(s);
    const SimTK::SpatialVec& vel = d.mobods[b].getBodyVelocity(s);
    m.position = ToEigen(x.p());
    m.velocity = ToEigen(vel[1]);
    m.angular_velocity = ToEigen(vel[0]);
    Eigen::Matrix3d r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r(i, j) = x.R().asMat33()(i, j);
    // Continuous along the run: the angle within pi of the previous one, the Euler
    // parameters on the previous ones' side (e and -e are the same rotation).
    const double raw = std::atan2(r(1, 0), r(0, 0));
    m.angle += std::remainder(raw - m.angle, 2.0 * M_PI);
    Eigen::Quaterniond e(r);
    if (e.coeffs().dot(m.orientation.coeffs()) < 0.0) e.coeffs() = -e.coeffs();
    m.orientation = e;
  }
  CoordinatesFromBodies(*d.structure, d.motion, q, v);
}

}  // namespace

std::unique_ptr<SimbodyModel> BuildSimbodyModel(const Problem& problem, std::string& why_not) {
  if (!problem.structure) {
    why_not = "the problem has no model structure (a hand-written problem without one)";
    return nullptr;
  }
  auto model = std::make_unique<SimbodyModel>();
  auto data = std::make_shared<ModelData>();
  data->keep = problem.structure;
  data->structure = problem.structure.get();
  try {
    Builder builder(problem, *model, *data);
    why_not = builder.Build();
    if (!why_not.empty()) return nullptr;
    model->system.realizeTopology();
    model->set_initial = [data](SimTK::State& state) {
      data->motion = data->start;  // the previous values for continuity
      SetInitialState(*data, state);
    };
    model->to_problem = [data](const SimTK::State& s, Vector& q, Vector& v) {
      MapToProblem(*data, s, q, v);
    };
    // Self-check: the model must reproduce the problem's initial state.
    SimTK::State state = model->system.getDefaultState();
    model->set_initial(state);
    model->system.realize(state, SimTK::Stage::Velocity);
    Vector q = problem.q0, v(problem.n());  // q0: the continuity hint of wrapped angles
    model->to_problem(state, q, v);
    const double dq = (q - problem.q0).lpNorm<Eigen::Infinity>();
    const double dv = (v - problem.v0).lpNorm<Eigen::Infinity>();
    // The assembled q0 satisfies the joints to about 1e-10 or better; a wrong frame or
    // mapping is off by O(1).
    if (dq > 1e-8 * (1.0 + problem.q0.lpNorm<Eigen::Infinity>()) ||
        dv > 1e-8 * (1.0 + problem.v0.lpNorm<Eigen::Infinity>())) {
      why_not =
          "the Simbody model does not reproduce the initial state (|dq| = " + std::to_string(dq) +
          ", |dv| = " + std::to_string(dv) + ")";
      return nullptr;
    }
  } catch (const std::exception& e) {
    why_not = std::string("Simbody refused the model: ") + e.what();
    return nullptr;
  }
  return model;
}

}  // namespace mbb
