// The glue every formulation shares, written once against a body-kinematics policy K
// (planar_formulation.cc: PlanarKinematics, spatial_formulation.cc:
// EulerParameterKinematics): the coordinate blocks, the stated pose and twist as
// (q, v), the held rows, the constraint-row names and the outputs. A formulation only
// writes its equations and its policy:
//
//   struct K {
//     using BodyRef = ...;                          // offset (-1: ground) and rigid
//     static constexpr int kRigidSize, kPointSize;  // coordinates per rigid body / point mass
//     // How a rigid body's / point mass's block encodes its pose (model_structure.h): what
//     // body_motion.h reads; and whether an angle output wraps (an atan2, unwrapped by the
//     // harness) or is a coordinate (continuous).
//     static constexpr BodyLayout kRigidLayout, kPointLayout;
//     static constexpr bool kAngleOutputsWrap;
//     static BodyRef Ref(int offset, bool rigid);
//     // Stated pose and twist of `body` into q, v (its block, from `offset`).
//     static void Pose(const BodyDescription& body, bool rigid, int offset, Vector& q, Vector& v);
//     // Rows of a held value `hold` (ValidateModel checked the name): unit rows or, for
//     // an angular velocity, its linear map from v; `velocity` says which level.
//     static void HoldRows(const BodyDescription& body, const Vector& q, int offset,
//                          const std::string& hold, std::vector<Eigen::RowVectorXd>& rows,
//                          bool& velocity);
//     // A body point and its velocity as 3 components (z = 0 in the plane).
//     static void OutputPoint(const BodyRef&, const double* q, const Eigen::Vector3d& s,
//                             double p[3]);
//     static void OutputPointVelocity(const BodyRef&, const double* q, const double* v,
//                                     const Eigen::Vector3d& s, double pv[3]);
//     static Eigen::Matrix3d Rotation(const BodyRef&, const double* q);  // body -> global
//     // Angle output: body relative to reference (ground: offset -1) about `axis`.
//     static double Angle(const BodyRef& body, const BodyRef& reference,
//                         const Eigen::Vector3d& axis, const double* q);
//     // For CompileModel: a model vector in the policy's dimension, a driven coordinate's
//     // index in its body's block, the intrinsic rows of a body, a joint's constant data.
//     static Vec InDimension(const Eigen::Vector3d&);
//     static int CoordinateIndex(const std::string& coordinate);
//     static std::vector<std::string> IntrinsicRowNames(const BodyDescription&, bool rigid);
//     static JointFrame MakeJointFrame(const ModelDescription&, const JointDescription&);
//   };
// and the templated kinematics of model_equations.h.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "problems/core/equations_dae.h"
#include "problems/model/formulation.h"
#include "problems/model/model_equations.h"

namespace mbb {

/// The name of a joint kind as model files spell it ("revolute", "point_on_line", ...).
std::string JointKindName(JointKind kind);

/// "joint 'NAME' (KIND) row R" for R = 1..rows: the names of a joint's constraint rows.
std::vector<std::string> JointRowNames(const JointDescription& joint, int rows);

template <class K>
struct ModelCompiler {
  using BodyRef = typename K::BodyRef;

  /// Lays out the coordinate blocks in model order; returns each body's reference and
  /// fills out.body_coordinates; n is the number of coordinates.
  static std::vector<BodyRef> LayOutBodies(const ModelDescription& model, FormulatedModel& out,
                                           int& n) {
    std::vector<BodyRef> refs;
    n = 0;
    for (const auto& b : model.bodies) {
      const bool rigid = b.kind == BodyKind::kRigid;
      const int size = rigid ? K::kRigidSize : K::kPointSize;
      refs.push_back(K::Ref(n, rigid));
      out.body_coordinates.push_back({b.name, n, size, rigid ? K::kRigidLayout : K::kPointLayout});
      n += size;
    }
    out.angle_outputs_wrap = K::kAngleOutputsWrap;
    // The formulation names its angle slot (K::kRigidAngleSlot, -1: none, as for directors
    // and Euler parameters, which stay bounded).
    out.coordinate_periods.assign(n, 0.0);
    for (size_t i = 0; i < model.bodies.size(); ++i)
      if (K::kRigidAngleSlot >= 0 && model.bodies[i].kind == BodyKind::kRigid)
        out.coordinate_periods[out.body_coordinates[i].offset + K::kRigidAngleSlot] = 2.0 * M_PI;
    for (size_t i = 0; i < model.bodies.size(); ++i)
      if (K::kRigidQuaternionSlot >= 0 && model.bodies[i].kind == BodyKind::kRigid)
        out.unit_quaternion_offsets.push_back(out.body_coordinates[i].offset +
                                              K::kRigidQuaternionSlot);
    return refs;
  }

  /// The reference of body `name` ("ground": offset -1).
  static BodyRef Find(const BodyIndex& index, const std::vector<BodyRef>& refs,
                      const std::string& name, const std::string& referrer) {
    const int i = index.Find(name, referrer);
    return i < 0 ? K::Ref(-1, false) : refs[i];
  }

  /// The stated pose and twist as (q_guess, v_guess), what is stated (not an estimate),
  /// and the held rows.
  static void StateAndHolds(const ModelDescription& model, int n, FormulatedModel& out) {
    out.q_guess = Vector::Zero(n);
    out.v_guess = Vector::Zero(n);
    out.stated_q = Vector::Ones(n);
    out.stated_v = Vector::Ones(n);
    std::vector<Eigen::RowVectorXd> rows_q, rows_v;
    for (size_t i = 0; i < model.bodies.size(); ++i) {
      const auto& b = model.bodies[i];
      const BodyCoordinates& block = out.body_coordinates[i];
      K::Pose(b, b.kind == BodyKind::kRigid, block.offset, out.q_guess, out.v_guess);
      if (b.pose_is_estimate) out.stated_q.segment(block.offset, block.size).setZero();
      if (b.twist_is_estimate) out.stated_v.segment(block.offset, block.size).setZero();
      for (const auto& h : b.hold) {
        std::vector<Eigen::RowVectorXd> rows;
        bool velocity = false;
        K::HoldRows(b, out.q_guess, block.offset, h, rows, velocity);
        for (auto& row : rows) {
          (velocity ? rows_v : rows_q).push_back(row);
          (velocity ? out.hold_names_v : out.hold_names_q).push_back("body '" + b.name + "' " + h);
        }
      }
    }
    out.hold_q = Matrix::Zero(rows_q.size(), n);
    for (size_t r = 0; r < rows_q.size(); ++r) out.hold_q.row(r) = rows_q[r];
    out.hold_v = Matrix::Zero(rows_v.size(), n);
    for (size_t r = 0; r < rows_v.size(); ++r) out.hold_v.row(r) = rows_v[r];
  }

  /// The constraint names of every row, in row order, from out.rows.
  static void NameRows(FormulatedModel& out) {
    out.constraint_names.clear();
    for (const auto& rows : out.rows)
      out.constraint_names.insert(out.constraint_names.end(), rows.row_names.begin(),
                                  rows.row_names.end());
  }

  /// The outputs in ModelDescription::outputs order. A point relative to a reference body
  /// is measured from its centre of mass in its axes, R_ref^T (p - r_ref); ValidateModel
  /// refused relative velocities and point-mass references.
  static void Outputs(const ModelDescription& model, const std::vector<BodyRef>& refs,
                      FormulatedModel& out) {
    struct Out {
      OutputKind kind;
      BodyRef body, reference;
      Eigen::Vector3d point, axis;
      double offset, scale;
    };
    std::vector<Out> outs;
    const BodyIndex index(model);
    for (const auto& o : model.outputs) {
      const std::string what = "output '" + o.name + "'";
      const BodyRef reference =
          o.reference_body.empty() ? K::Ref(-1, false) : Find(index, refs, o.reference_body, what);
      const Eigen::Vector3d axis =
          o.axis.norm() > 0.0 ? Eigen::Vector3d(o.axis.normalized()) : Eigen::Vector3d::UnitZ();
      outs.push_back(
          {o.kind, Find(index, refs, o.body, what), reference, o.point, axis, o.offset, o.scale});
    }
    // Stateless (angles of a spatial formulation come in (-2 pi, 2 pi]; the harness
    // unwraps them), so the problem stays shareable across threads.
    out.calc_outputs = [outs](double, const Vector& q, const Vector& v, Vector& values) {
      for (size_t k = 0; k < outs.size(); ++k) {
        const Out& o = outs[k];
        double p[3], pv[3];
        K::OutputPoint(o.body, q.data(), o.point, p);
        K::OutputPointVelocity(o.body, q.data(), v.data(), o.point, pv);
        if (o.reference.offset >= 0) {
          double r[3];
          K::OutputPoint(o.reference, q.data(), Eigen::Vector3d::Zero(), r);
          const Eigen::Vector3d local = K::Rotation(o.reference, q.data()).transpose() *
                                        Eigen::Vector3d(p[0] - r[0], p[1] - r[1], p[2] - r[2]);
          for (int i = 0; i < 3; ++i) p[i] = local[i];
        }
        if (!PointComponent(o.kind, p, pv, values[k]))  // kAngle
          values[k] = K::Angle(o.body, o.reference, o.axis, q.data());
        values[k] = o.offset + o.scale * values[k];
      }
    };
  }
};

/// The model compiled in the coordinate set of policy K: its equations (model_equations.h),
/// row owners and names, stated state, held rows and outputs. Takes the model by value and
/// keeps it in `out.model`: a caller that moves it in makes no copy (at N = 1e5 bodies a
/// copy is some 70 MB).
template <class K>
FormulatedModel CompileModel(ModelDescription model) {
  using Compiler = ModelCompiler<K>;
  using Equations = ModelEquations<K>;
  Equations eq;
  FormulatedModel out;
  const auto refs = Compiler::LayOutBodies(model, out, eq.n);
  for (size_t i = 0; i < model.bodies.size(); ++i)
    eq.bodies.push_back({refs[i], model.bodies[i].mass, model.bodies[i].inertia});
  const BodyIndex index(model);
  auto ref = [&](const std::string& name, const std::string& what) {
    return Compiler::Find(index, refs, name, what);
  };
  for (const auto& jd : model.joints) {
    const std::string what = "joint '" + jd.name + "'";
    typename Equations::Joint j;
    j.kind = jd.kind;
    j.a = ref(jd.body_a, what);
    j.b = ref(jd.body_b, what);
    j.sa = K::InDimension(jd.point_a);
    j.sb = K::InDimension(jd.point_b);
    j.frame = K::MakeJointFrame(model, index, jd);
    j.length = jd.length > 0.0 ? jd.length : 1.0;
    const int rows = Equations::JointRowCount(jd.kind);
    AppendRows(out.rows, ConstraintRows::Owner::kJoint, static_cast<int>(eq.joints.size()), jd.name,
               JointRowNames(jd, rows));
    eq.m += rows;
    eq.joints.push_back(j);
  }
  for (const auto& dd : model.drivers) {
    const std::string what = "driver '" + dd.name + "'";
    typename Equations::Driver d;
    d.kind = dd.kind;
    d.law = dd.law;
    if (dd.kind == DriverKind::kRelativeAngle) {
      d.a = ref(dd.body_a, what);
      d.b = ref(dd.body_b, what);
    } else {
      d.index = ref(dd.body_a, what).offset + K::CoordinateIndex(dd.coordinate);
    }
    AppendRows(out.rows, ConstraintRows::Owner::kDriver, static_cast<int>(eq.drivers.size()),
               dd.name, {what});
    ++eq.m;
    eq.drivers.push_back(d);
  }
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const auto names =
        K::IntrinsicRowNames(model.bodies[i], model.bodies[i].kind == BodyKind::kRigid);
    if (names.empty()) continue;
    AppendRows(out.rows, ConstraintRows::Owner::kBody, static_cast<int>(i), model.bodies[i].name,
               names);
    eq.m += static_cast<int>(names.size());
  }
  for (const auto& fd : model.forces) {
    const std::string what = "force '" + fd.name + "'";
    if (fd.kind == ForceKind::kGravity) {
      eq.gravity += K::InDimension(fd.vector);
      continue;
    }
    typename Equations::Force f;
    f.kind = fd.kind;
    f.a = ref(fd.body_a, what);
    if (fd.kind == ForceKind::kSpringDamper || fd.kind == ForceKind::kTorsionalSpring)
      f.b = ref(fd.body_b, what);
    f.sa = K::InDimension(fd.point_a);
    f.sb = K::InDimension(fd.point_b);
    f.vector = K::InDimension(fd.vector);
    f.torque = fd.vector;
    f.stiffness = fd.stiffness;
    f.damping = fd.damping;
    f.rest = fd.rest_length;
    f.law = fd.law;
    eq.forces.push_back(f);
  }
  Compiler::StateAndHolds(model, eq.n, out);
  Compiler::Outputs(model, refs, out);
  Compiler::NameRows(out);
  out.dae = MakeDae(eq);
  out.model = std::move(model);  // last: `index` and the lambdas above read it
  return out;
}

}  // namespace mbb
