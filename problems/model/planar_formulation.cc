// Planar formulation of a model: each rigid body in (x, y, theta) of its centre of mass,
// each point mass in (x, y); constant diagonal mass matrix diag(m, m, J) (Nikravesh,
// "Computer-Aided Analysis of Mechanical Systems", 1988, ch. 6). Constraints, forces and
// energy are written once, templated on the scalar, and differentiated by EquationsDae.
//
//   body point        p = r + R(theta) s,   R = [c -s; s c]
//   revolute          p_b - p_a = 0                                   (2 rows)
//   prismatic         n_a . (p_b - p_a) = 0, theta_b - theta_a - theta_ab0 = 0  (2)
//   fixed             p_b - p_a = 0, theta_b - theta_a - theta_ab0 = 0          (3)
//   distance          (|p_b - p_a|^2 - L^2) / (2 L) = 0                         (1)
//   point-on-line     n_a . (p_b - p_a) = 0                                     (1)
//   driver            theta_b - theta_a - law(t) = 0, or q_k - law(t) = 0       (1)
// theta_ab0 is the relative angle of the stated initial pose. Gravity, spring potentials
// enter V; dampers, applied forces and torques enter the applied forces as J^T F.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <set>

#include "problems/equations_dae.h"
#include "problems/model/model_compiler.h"
#include "problems/parameters.h"

namespace mbb {
namespace {

struct BodyRef {
  int offset = -1;  // -1: ground
  bool has_angle = false;
};

struct Joint {
  JointKind kind;
  BodyRef a, b;
  Eigen::Vector2d sa, sb, normal_a;  // normal_a: the line normal in a's frame
  double angle0 = 0.0, length = 1.0;
};

struct Force {
  ForceKind kind;
  BodyRef a, b;
  Eigen::Vector2d sa, sb, vector;
  double torque = 0.0, stiffness = 0.0, damping = 0.0, rest = 0.0;
  TimeLaw law;
};

struct Driver {
  DriverKind kind;
  BodyRef a, b;
  int index = 0;  // kCoordinate: coordinate index
  TimeLaw law;
};

struct BodyData {
  BodyRef ref;
  double mass, inertia;
};

template <class T>
void PointOf(const BodyRef& b, const T* q, const Eigen::Vector2d& s, T* p) {
  using std::cos;
  using std::sin;
  if (b.offset < 0) {
    p[0] = T(s.x());
    p[1] = T(s.y());
    return;
  }
  if (!b.has_angle) {
    p[0] = q[b.offset] + s.x();
    p[1] = q[b.offset + 1] + s.y();
    return;
  }
  const T& th = q[b.offset + 2];
  const T c = cos(th), sn = sin(th);
  p[0] = q[b.offset] + c * s.x() - sn * s.y();
  p[1] = q[b.offset + 1] + sn * s.x() + c * s.y();
}

// dp/dtheta = R'(theta) s (zero for ground and point masses).
template <class T>
void PointAngleDerivative(const BodyRef& b, const T* q, const Eigen::Vector2d& s, T* dp) {
  using std::cos;
  using std::sin;
  if (b.offset < 0 || !b.has_angle) {
    dp[0] = T(0.0);
    dp[1] = T(0.0);
    return;
  }
  const T& th = q[b.offset + 2];
  const T c = cos(th), sn = sin(th);
  dp[0] = -sn * s.x() - c * s.y();
  dp[1] = c * s.x() - sn * s.y();
}

template <class T>
T AngleOf(const BodyRef& b, const T* q) {
  return b.offset < 0 || !b.has_angle ? T(0.0) : q[b.offset + 2];
}

template <class T>
void PointVelocity(const BodyRef& b, const T* q, const T* v, const Eigen::Vector2d& s, T* pv) {
  if (b.offset < 0) {
    pv[0] = T(0.0);
    pv[1] = T(0.0);
    return;
  }
  T dp[2];
  PointAngleDerivative(b, q, s, dp);
  const T w = b.has_angle ? v[b.offset + 2] : T(0.0);
  pv[0] = v[b.offset] + w * dp[0];
  pv[1] = v[b.offset + 1] + w * dp[1];
}

// f += J^T F for the force F applied at body point s.
template <class T>
void AddPointForce(const BodyRef& b, const T* q, const Eigen::Vector2d& s, const T* force, T* f) {
  if (b.offset < 0) return;
  f[b.offset] += force[0];
  f[b.offset + 1] += force[1];
  if (b.has_angle) {
    T dp[2];
    PointAngleDerivative(b, q, s, dp);
    f[b.offset + 2] += dp[0] * force[0] + dp[1] * force[1];
  }
}

struct PlanarEquations {
  static constexpr bool kConstantMass = true;
  int n = 0, m = 0;
  std::vector<BodyData> bodies;
  std::vector<Joint> joints;
  std::vector<Force> forces;
  std::vector<Driver> drivers;
  Eigen::Vector2d gravity = Eigen::Vector2d::Zero();

  int num_coordinates() const { return n; }
  int num_constraints() const { return m; }

  template <class T>
  void Constraints(const T& t, const T* q, T* phi) const {
    int row = 0;
    for (const Joint& j : joints) {
      T pa[2], pb[2];
      PointOf(j.a, q, j.sa, pa);
      PointOf(j.b, q, j.sb, pb);
      const T dx = pb[0] - pa[0], dy = pb[1] - pa[1];
      switch (j.kind) {
        case JointKind::kRevolute:
          phi[row++] = dx;
          phi[row++] = dy;
          break;
        case JointKind::kFixed:
          phi[row++] = dx;
          phi[row++] = dy;
          phi[row++] = AngleOf(j.b, q) - AngleOf(j.a, q) - j.angle0;
          break;
        case JointKind::kPrismatic:
        case JointKind::kPointOnLine: {
          T nrm[2];
          // The normal rotates with body a: R(theta_a) n_a.
          const T th = AngleOf(j.a, q);
          using std::cos;
          using std::sin;
          const T c = cos(th), sn = sin(th);
          nrm[0] = c * j.normal_a.x() - sn * j.normal_a.y();
          nrm[1] = sn * j.normal_a.x() + c * j.normal_a.y();
          phi[row++] = nrm[0] * dx + nrm[1] * dy;
          if (j.kind == JointKind::kPrismatic)
            phi[row++] = AngleOf(j.b, q) - AngleOf(j.a, q) - j.angle0;
          break;
        }
        case JointKind::kDistance:
          phi[row++] = (dx * dx + dy * dy - j.length * j.length) / (2.0 * j.length);
          break;
        default:
          break;  // spatial joints are refused by ValidateModel
      }
    }
    for (const Driver& d : drivers) {
      if (d.kind == DriverKind::kRelativeAngle)
        phi[row++] = AngleOf(d.b, q) - AngleOf(d.a, q) - d.law.Eval(t);
      else
        phi[row++] = q[d.index] - d.law.Eval(t);
    }
  }

  template <class T>
  void MassMatrix(const T* /*q*/, T* mass) const {
    for (const BodyData& b : bodies) {
      const int o = b.ref.offset;
      mass[o + o * n] = T(b.mass);
      mass[(o + 1) + (o + 1) * n] = T(b.mass);
      if (b.ref.has_angle) mass[(o + 2) + (o + 2) * n] = T(b.inertia);
    }
  }

  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    using std::sqrt;
    T energy(0.0);
    for (const BodyData& b : bodies)  // uniform gravity: V = -m g . r
      energy -= b.mass * (gravity.x() * q[b.ref.offset] + gravity.y() * q[b.ref.offset + 1]);
    for (const Force& f : forces) {
      if (f.kind == ForceKind::kSpringDamper && f.stiffness != 0.0) {
        T pa[2], pb[2];
        PointOf(f.a, q, f.sa, pa);
        PointOf(f.b, q, f.sb, pb);
        const T length = sqrt(Square(pb[0] - pa[0]) + Square(pb[1] - pa[1]));
        energy += 0.5 * f.stiffness * Square(length - f.rest);
      } else if (f.kind == ForceKind::kTorsionalSpring && f.stiffness != 0.0) {
        energy += 0.5 * f.stiffness * Square(AngleOf(f.b, q) - AngleOf(f.a, q) - f.rest);
      }
    }
    return energy;
  }

  template <class T>
  void AppliedForces(const T& t, const T* q, const T* v, T* out) const {
    using std::sqrt;
    for (const Force& f : forces) {
      switch (f.kind) {
        case ForceKind::kSpringDamper: {
          if (f.damping == 0.0) break;
          T pa[2], pb[2], va[2], vb[2];
          PointOf(f.a, q, f.sa, pa);
          PointOf(f.b, q, f.sb, pb);
          PointVelocity(f.a, q, v, f.sa, va);
          PointVelocity(f.b, q, v, f.sb, vb);
          const T dx = pb[0] - pa[0], dy = pb[1] - pa[1];
          const T length = sqrt(dx * dx + dy * dy);
          const T ux = dx / length, uy = dy / length;
          const T rate = ux * (vb[0] - va[0]) + uy * (vb[1] - va[1]);
          T force[2] = {-f.damping * rate * ux, -f.damping * rate * uy};  // on b
          AddPointForce(f.b, q, f.sb, force, out);
          force[0] = -force[0];
          force[1] = -force[1];
          AddPointForce(f.a, q, f.sa, force, out);
          break;
        }
        case ForceKind::kTorsionalSpring: {
          if (f.damping == 0.0) break;
          const T wa = f.a.offset < 0 ? T(0.0) : v[f.a.offset + 2];
          const T wb = f.b.offset < 0 ? T(0.0) : v[f.b.offset + 2];
          const T torque = -f.damping * (wb - wa);
          if (f.b.offset >= 0) out[f.b.offset + 2] += torque;
          if (f.a.offset >= 0) out[f.a.offset + 2] -= torque;
          break;
        }
        case ForceKind::kForce: {
          const T s = f.law.Eval(t);
          const T force[2] = {s * f.vector.x(), s * f.vector.y()};
          AddPointForce(f.a, q, f.sa, force, out);
          break;
        }
        case ForceKind::kTorque:
          if (f.a.offset >= 0 && f.a.has_angle) out[f.a.offset + 2] += f.torque * f.law.Eval(t);
          break;
        default:
          break;
      }
    }
  }

  template <class T>
  void VelocityForces(const T* /*q*/, const T* /*v*/, T* /*f*/) const {}

  // Linear momentum (sum m r', 0) and angular momentum about the origin, z only:
  // sum (x m y' - y m x' + J theta').
  void Momenta(const double* q, const double* v, Eigen::Vector3d& linear,
               Eigen::Vector3d& angular) const {
    linear.setZero();
    angular.setZero();
    for (const BodyData& b : bodies) {
      const int o = b.ref.offset;
      linear.x() += b.mass * v[o];
      linear.y() += b.mass * v[o + 1];
      angular.z() += b.mass * (q[o] * v[o + 1] - q[o + 1] * v[o]);
      if (b.ref.has_angle) angular.z() += b.inertia * v[o + 2];
    }
  }
};

double InitialAngle(const ModelDescription& model, const std::string& name) {
  const int i = FindBodyIndex(model, name, "");
  return i < 0 || model.bodies[i].kind == BodyKind::kPointMass ? 0.0 : model.bodies[i].angle;
}

Eigen::Vector2d Xy(const Eigen::Vector3d& v) { return v.head<2>(); }

// The body-kinematics policy of the shared glue (model_compiler.h).
struct PlanarKinematics {
  using BodyRef = mbb::BodyRef;
  static constexpr int kRigidSize = 3, kPointSize = 2;
  static BodyRef Ref(int offset, bool rigid) { return {offset, rigid}; }
  static void Pose(const BodyDescription& b, bool rigid, int o, Vector& q, Vector& v) {
    q.segment(o, 2) = b.position.head<2>();
    v.segment(o, 2) = b.velocity.head<2>();
    if (!rigid) return;
    q[o + 2] = b.angle;
    v[o + 2] = b.angular_velocity.z();
  }
  static void HoldRows(const BodyDescription&, const Vector& q, int o, const std::string& h,
                       std::vector<Eigen::RowVectorXd>& rows, bool& velocity) {
    static const std::vector<std::string> kNames = {"x", "y", "angle", "vx", "vy", "omega"};
    const int k = static_cast<int>(std::find(kNames.begin(), kNames.end(), h) - kNames.begin());
    velocity = k >= 3;
    rows.push_back(Eigen::RowVectorXd::Unit(q.size(), o + k % 3));
  }
  static void Point(const BodyRef& b, const double* q, const Eigen::Vector3d& s, double p[3]) {
    PointOf(b, q, Xy(s), p);
    p[2] = 0.0;  // the plane
  }
  static void PointVelocity(const BodyRef& b, const double* q, const double* v,
                            const Eigen::Vector3d& s, double pv[3]) {
    mbb::PointVelocity(b, q, v, Xy(s), pv);
    pv[2] = 0.0;
  }
  static Eigen::Matrix3d Rotation(const BodyRef& b, const double* q) {
    return Eigen::AngleAxisd(AngleOf(b, q), Eigen::Vector3d::UnitZ()).toRotationMatrix();
  }
  // The continuous relative angle theta_body - theta_reference (the axis is z).
  static double Angle(const BodyRef& body, const BodyRef& reference, const Eigen::Vector3d&,
                      const double* q) {
    return AngleOf(body, q) - AngleOf(reference, q);
  }
};

}  // namespace

void ValidatePlanarModel(const ModelDescription& model) {
  const std::string& w = model.Where();
  if (model.dimension != 2)
    throw InputError(w + ": the planar formulation needs a model of dimension 2");
  static const std::set<std::string> kHold = {"x", "y", "angle", "vx", "vy", "omega"};
  for (const auto& b : model.bodies) {
    const std::string what = "body '" + b.name + "'";
    if (b.kind == BodyKind::kRigid && !(b.inertia(0, 0) > 0.0))
      throw InputError(w + ": " + what + " inertia must be > 0");
    for (const auto& h : b.hold)
      if (!kHold.count(h)) throw InputError(w + ": " + what + " hold: unknown value '" + h + "'");
  }
  for (const auto& j : model.joints) {
    const std::string what = "joint '" + j.name + "'";
    if (j.kind == JointKind::kSpherical || j.kind == JointKind::kUniversal ||
        j.kind == JointKind::kCylindrical || j.kind == JointKind::kPlanar)
      throw InputError(w + ": " + what + " is a spatial joint in a planar model");
    const bool uses_axis = j.kind == JointKind::kPrismatic || j.kind == JointKind::kPointOnLine;
    if (uses_axis && !(j.axis_a.norm() > 0.0))
      throw InputError(w + ": " + what + " axis_a must be non-zero");
  }
  for (const auto& f : model.forces) {
    const std::string what = "force '" + f.name + "'";
    if (f.kind == ForceKind::kTorsionalSpring &&
        (FindBodyIndex(model, f.body_a, what) >= 0 &&
         model.bodies[FindBodyIndex(model, f.body_a, what)].kind == BodyKind::kPointMass))
      throw InputError(w + ": " + what + ": a point mass has no angle");
  }
  for (const auto& d : model.drivers) {
    const std::string what = "driver '" + d.name + "'";
    if (d.kind == DriverKind::kCoordinate && d.coordinate != "x" && d.coordinate != "y" &&
        d.coordinate != "angle")
      throw InputError(w + ": " + what + " coordinate '" + d.coordinate + "' is not valid");
  }
  for (const auto& o : model.outputs)
    if (o.kind == OutputKind::kPointZ || o.kind == OutputKind::kPointVZ)
      throw InputError(w + ": output '" + o.name + "' has no z component in a planar model");
}

FormulatedModel FormulatePlanar(const ModelDescription& model) {
  using Compiler = ModelCompiler<PlanarKinematics>;
  PlanarEquations eq;
  FormulatedModel out;
  out.model = model;
  const std::vector<BodyRef> refs = Compiler::LayOutBodies(model, out, eq.n);
  for (size_t i = 0; i < model.bodies.size(); ++i)
    eq.bodies.push_back(
        {refs[i], model.bodies[i].mass, refs[i].has_angle ? model.bodies[i].inertia(0, 0) : 0.0});
  auto ref = [&](const std::string& name, const std::string& what) {
    return Compiler::Find(model, refs, name, what);
  };
  for (const auto& jd : model.joints) {
    const std::string what = "joint '" + jd.name + "'";
    Joint j;
    j.kind = jd.kind;
    j.a = ref(jd.body_a, what);
    j.b = ref(jd.body_b, what);
    j.sa = Xy(jd.point_a);
    j.sb = Xy(jd.point_b);
    const Eigen::Vector2d axis = Xy(jd.axis_a);
    j.normal_a = axis.norm() > 0.0 ? Eigen::Vector2d(-axis.y(), axis.x()).normalized()
                                   : Eigen::Vector2d::UnitY();
    j.angle0 = InitialAngle(model, jd.body_b) - InitialAngle(model, jd.body_a);
    j.length = jd.length > 0.0 ? jd.length : 1.0;
    const int rows = jd.kind == JointKind::kFixed                                          ? 3
                     : jd.kind == JointKind::kRevolute || jd.kind == JointKind::kPrismatic ? 2
                                                                                           : 1;
    AppendRows(out.rows, ConstraintRows::Owner::kJoint, static_cast<int>(eq.joints.size()), jd.name,
               JointRowNames(jd, rows));
    eq.m += rows;
    eq.joints.push_back(j);
  }
  for (const auto& dd : model.drivers) {
    const std::string what = "driver '" + dd.name + "'";
    Driver d;
    d.kind = dd.kind;
    d.law = dd.law;
    d.a = ref(dd.body_a, what);
    if (dd.kind == DriverKind::kRelativeAngle) {
      d.b = ref(dd.body_b, what);
    } else {
      const int k = dd.coordinate == "x" ? 0 : dd.coordinate == "y" ? 1 : 2;
      d.index = d.a.offset + k;
    }
    AppendRows(out.rows, ConstraintRows::Owner::kDriver, static_cast<int>(eq.drivers.size()),
               dd.name, {what});
    ++eq.m;
    eq.drivers.push_back(d);
  }
  for (const auto& fd : model.forces) {
    const std::string what = "force '" + fd.name + "'";
    if (fd.kind == ForceKind::kGravity) {
      eq.gravity += Xy(fd.vector);
      continue;
    }
    Force f;
    f.kind = fd.kind;
    f.a = ref(fd.body_a, what);
    if (fd.kind == ForceKind::kSpringDamper || fd.kind == ForceKind::kTorsionalSpring)
      f.b = ref(fd.body_b, what);
    f.sa = Xy(fd.point_a);
    f.sb = Xy(fd.point_b);
    f.vector = Xy(fd.vector);
    f.torque = fd.vector.z();
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
  return out;
}

}  // namespace mbb
