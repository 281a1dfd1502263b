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
#include <cmath>
#include <set>

#include "problems/equations_dae.h"
#include "problems/model/formulation.h"
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

BodyRef Ref(const ModelDescription& model, const std::vector<int>& offsets, const std::string& name,
            const std::string& referrer) {
  const int i = FindBodyIndex(model, name, referrer);
  if (i < 0) return {};
  return {offsets[i], model.bodies[i].kind == BodyKind::kRigid};
}

double InitialAngle(const ModelDescription& model, const std::string& name) {
  const int i = FindBodyIndex(model, name, "");
  return i < 0 || model.bodies[i].kind == BodyKind::kPointMass ? 0.0 : model.bodies[i].angle;
}

Eigen::Vector2d Xy(const Eigen::Vector3d& v) { return v.head<2>(); }

std::string JointName(const JointKind kind) {
  switch (kind) {
    case JointKind::kRevolute:
      return "revolute";
    case JointKind::kPrismatic:
      return "prismatic";
    case JointKind::kFixed:
      return "fixed";
    case JointKind::kDistance:
      return "distance";
    case JointKind::kPointOnLine:
      return "point_on_line";
    default:
      return "spatial";
  }
}

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
  PlanarEquations eq;
  std::vector<int> offsets;
  FormulatedModel out;
  out.model = model;
  for (const auto& b : model.bodies) {
    offsets.push_back(eq.n);
    const bool rigid = b.kind == BodyKind::kRigid;
    eq.bodies.push_back({{eq.n, rigid}, b.mass, rigid ? b.inertia(0, 0) : 0.0});
    out.body_coordinates.push_back({b.name, eq.n, rigid ? 3 : 2});
    eq.n += rigid ? 3 : 2;
  }
  for (const auto& jd : model.joints) {
    const std::string what = "joint '" + jd.name + "'";
    Joint j;
    j.kind = jd.kind;
    j.a = Ref(model, offsets, jd.body_a, what);
    j.b = Ref(model, offsets, jd.body_b, what);
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
    std::vector<std::string> names;
    for (int r = 0; r < rows; ++r)
      names.push_back(what + " (" + JointName(jd.kind) + ") row " + std::to_string(r + 1));
    AppendRows(out.rows, ConstraintRows::Owner::kJoint, static_cast<int>(eq.joints.size()), jd.name,
               names);
    eq.m += rows;
    eq.joints.push_back(j);
  }
  for (const auto& dd : model.drivers) {
    const std::string what = "driver '" + dd.name + "'";
    Driver d;
    d.kind = dd.kind;
    d.law = dd.law;
    d.a = Ref(model, offsets, dd.body_a, what);
    if (dd.kind == DriverKind::kRelativeAngle) {
      d.b = Ref(model, offsets, dd.body_b, what);
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
    f.a = Ref(model, offsets, fd.body_a, what);
    if (fd.kind == ForceKind::kSpringDamper || fd.kind == ForceKind::kTorsionalSpring)
      f.b = Ref(model, offsets, fd.body_b, what);
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

  // Initial guess and held rows.
  const int n = eq.n;
  out.q_guess = Vector::Zero(n);
  out.v_guess = Vector::Zero(n);
  out.stated_q = Vector::Ones(n);
  out.stated_v = Vector::Ones(n);
  std::vector<int> hq, hv;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const auto& b = model.bodies[i];
    const int o = offsets[i];
    out.q_guess.segment(o, 2) = b.position.head<2>();
    out.v_guess.segment(o, 2) = b.velocity.head<2>();
    const int size = b.kind == BodyKind::kRigid ? 3 : 2;
    if (b.kind == BodyKind::kRigid) {
      out.q_guess[o + 2] = b.angle;
      out.v_guess[o + 2] = b.angular_velocity.z();
    }
    if (b.pose_is_estimate) out.stated_q.segment(o, size).setZero();
    if (b.twist_is_estimate) out.stated_v.segment(o, size).setZero();
    for (const auto& h : b.hold) {
      const std::string label = "body '" + b.name + "' " + h;
      if (h == "x") hq.push_back(o), out.hold_names_q.push_back(label);
      if (h == "y") hq.push_back(o + 1), out.hold_names_q.push_back(label);
      if (h == "angle") hq.push_back(o + 2), out.hold_names_q.push_back(label);
      if (h == "vx") hv.push_back(o), out.hold_names_v.push_back(label);
      if (h == "vy") hv.push_back(o + 1), out.hold_names_v.push_back(label);
      if (h == "omega") hv.push_back(o + 2), out.hold_names_v.push_back(label);
    }
  }
  out.hold_q = Matrix::Zero(hq.size(), n);
  for (size_t r = 0; r < hq.size(); ++r) out.hold_q(r, hq[r]) = 1.0;
  out.hold_v = Matrix::Zero(hv.size(), n);
  for (size_t r = 0; r < hv.size(); ++r) out.hold_v(r, hv[r]) = 1.0;

  // Outputs.
  struct Out {
    OutputKind kind;
    BodyRef body, reference;
    Eigen::Vector2d point;
    double offset, scale;
  };
  std::vector<Out> outs;
  for (const auto& o : model.outputs) {
    const std::string what = "output '" + o.name + "'";
    outs.push_back(
        {o.kind, Ref(model, offsets, o.body, what),
         o.reference_body.empty() ? BodyRef{} : Ref(model, offsets, o.reference_body, what),
         Xy(o.point), o.offset, o.scale});
  }
  out.calc_outputs = [outs](double, const Vector& q, const Vector& v, Vector& values) {
    for (size_t k = 0; k < outs.size(); ++k) {
      const Out& o = outs[k];
      double p[3] = {0.0, 0.0, 0.0}, pv[3] = {0.0, 0.0, 0.0};  // z stays 0 in the plane
      PointOf(o.body, q.data(), o.point, p);
      PointVelocity(o.body, q.data(), v.data(), o.point, pv);
      if (o.reference.offset >= 0) {
        // Relative to a reference body: the point from the reference body's centre of mass
        // in its axes, R(theta_ref)^T (p - r_ref), as the spatial formulation reports it.
        const double* r = q.data() + o.reference.offset;
        const double c = std::cos(r[2]), sn = std::sin(r[2]);
        const double dx = p[0] - r[0], dy = p[1] - r[1];
        p[0] = c * dx + sn * dy;
        p[1] = -sn * dx + c * dy;
      }
      if (!PointComponent(o.kind, p, pv, values[k]))
        values[k] = AngleOf(o.body, q.data()) - AngleOf(o.reference, q.data());  // kAngle
      values[k] = o.offset + o.scale * values[k];
    }
  };
  for (const auto& rows : out.rows)
    out.constraint_names.insert(out.constraint_names.end(), rows.row_names.begin(),
                                rows.row_names.end());
  out.dae = MakeDae(eq);
  return out;
}

}  // namespace mbb
