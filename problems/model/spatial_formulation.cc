// Spatial formulation of a model in Cartesian position + Euler parameters: each rigid body
// has q_i = (r, e), r the centre of mass (3) and e = (e0, e1, e2, e3) (4) with the
// normalisation constraint e^T e - 1 = 0 (paper 000 eq 61d); point masses have q_i = r.
// Equations of motion as paper 000 eqs (61a, 61b) (Haug 1989, ch. 11):
//   m r'' + ... = f                                                      (61a)
//   4 E^T J E e'' + 8 E'^T J E e' + ... = 2 E^T t'                       (61b)
// with E(e), Ebar(e) of eq (62) (E: body-frame angular velocity w' = 2 E e'; Ebar: global
// w = 2 Ebar e') and the rotation matrix A = Ebar E^T (text after eq 61). The paper prints
// the quadratic-velocity term as 8 E'^T J E w; dimensionally and by Lagrange's equations
// (T = 1/2 w'^T J w' = 2 e'^T E^T J E e') it is 8 E'^T J E e', which we implement.
// The mass matrix 4 E^T J E is singular along e; the normalisation constraint removes that
// direction (the methods' null-space solves handle it). Applied torques t (global) enter as
// 2 Ebar^T t; a force F at body point s enters as (d(A s)/de)^T F.
//
// Joint equations (f_a, g_a complete the axis u_a of body a to an orthonormal frame; h_b is
// the axis of body b; d = p_b - p_a, p = r + A s), Haug 1989 ch. 9 in dot-product form:
//   spherical      d = 0                                                   3 rows
//   revolute       d = 0, f_a . h_b = 0, g_a . h_b = 0                       5
//   universal      d = 0, u_a . h_b = 0   (axes perpendicular)               4
//   cylindrical    f_a . d = 0, g_a . d = 0, f_a . h_b = 0, g_a . h_b = 0     4
//   prismatic      cylindrical + f_a . k_b = 0 (no rotation about the axis)   5
//   planar         f_a . h_b = 0, g_a . h_b = 0, u_a . d = 0                  3
//   fixed          d = 0 and three frame dot products                        6
//   point-on-line  f_a . d = 0, g_a . d = 0                                  2
//   distance       (d . d - L^2) / (2 L) = 0                                 1
// Angles about an axis (the relative-angle driver, torsional spring-dampers; they come
// from planar models lifted into 3-D, lift_planar.cc) are the rotation of b relative to a
// about a's z axis: with e_rel = conj(e_a) e_b, angle = 2 atan2(e_rel.z, e_rel.w); the
// driver row is 2 sin((angle - law) / 2) = 2 (e_rel.z cos(law/2) - e_rel.w sin(law/2)).
// k_b and the fixed joint's frame vectors are taken from the stated initial pose.
#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <set>

#include "problems/equations_dae.h"
#include "problems/model/model_compiler.h"
#include "problems/parameters.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

struct BodyRef {
  int offset = -1;  // -1: ground
  bool rigid = false;
};

// E(e) of eq (62): row i, column k.
template <class T>
T EntryE(const T* e, int i, int k) {
  static constexpr int kIndex[3][4] = {{1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  static constexpr double kSign[3][4] = {{-1, 1, 1, -1}, {-1, -1, 1, 1}, {-1, 1, -1, 1}};
  return kSign[i][k] * e[kIndex[i][k]];
}
// Ebar(e) of eq (62).
template <class T>
T EntryEbar(const T* e, int i, int k) {
  static constexpr int kIndex[3][4] = {{1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  static constexpr double kSign[3][4] = {{-1, 1, -1, 1}, {-1, 1, 1, -1}, {-1, -1, 1, 1}};
  return kSign[i][k] * e[kIndex[i][k]];
}

// out = Ebar(a) E(b)^T s: bilinear in (a, b); A(e) s = Ebar(e) E(e)^T s.
template <class T, class S>
void Bilinear(const T* a, const S* b, const V3& s, T* out) {
  S w[4];
  for (int k = 0; k < 4; ++k)
    w[k] = EntryE(b, 0, k) * s.x() + EntryE(b, 1, k) * s.y() + EntryE(b, 2, k) * s.z();
  for (int i = 0; i < 3; ++i) {
    out[i] = EntryEbar(a, i, 0) * w[0];
    for (int k = 1; k < 4; ++k) out[i] += EntryEbar(a, i, k) * w[k];
  }
}

// Global vector of body-fixed u (A u), or u itself for ground and point masses.
template <class T>
void Rotate(const BodyRef& b, const T* q, const V3& u, T* out) {
  if (b.offset < 0 || !b.rigid) {
    for (int i = 0; i < 3; ++i) out[i] = T(u[i]);
    return;
  }
  const T* e = q + b.offset + 3;
  Bilinear(e, e, u, out);
}

template <class T>
void PointOf(const BodyRef& b, const T* q, const V3& s, T* p) {
  Rotate(b, q, s, p);
  if (b.offset >= 0)
    for (int i = 0; i < 3; ++i) p[i] += q[b.offset + i];
}

// p' = r' + d(A s)/de e' = r' + Ebar(e) E(e')^T s + Ebar(e') E(e)^T s.
template <class T>
void PointVelocity(const BodyRef& b, const T* q, const T* v, const V3& s, T* pv) {
  if (b.offset < 0) {
    for (int i = 0; i < 3; ++i) pv[i] = T(0.0);
    return;
  }
  for (int i = 0; i < 3; ++i) pv[i] = v[b.offset + i];
  if (!b.rigid) return;
  const T* e = q + b.offset + 3;
  const T* ed = v + b.offset + 3;
  T x[3], y[3];
  Bilinear(e, ed, s, x);
  Bilinear(ed, e, s, y);
  for (int i = 0; i < 3; ++i) pv[i] += x[i] + y[i];
}

// f += J^T F for a force F (global) at body point s.
template <class T>
void AddPointForce(const BodyRef& b, const T* q, const V3& s, const T* force, T* f) {
  if (b.offset < 0) return;
  for (int i = 0; i < 3; ++i) f[b.offset + i] += force[i];
  if (!b.rigid) return;
  const T* e = q + b.offset + 3;
  for (int k = 0; k < 4; ++k) {
    double unit[4] = {0.0, 0.0, 0.0, 0.0};
    unit[k] = 1.0;
    T x[3], y[3];
    Bilinear(e, unit, s, x);
    T ue[4] = {T(unit[0]), T(unit[1]), T(unit[2]), T(unit[3])};
    Bilinear(ue, e, s, y);
    for (int i = 0; i < 3; ++i) f[b.offset + 3 + k] += force[i] * (x[i] + y[i]);
  }
}

// f_e += 2 Ebar(e)^T t for a global torque t.
template <class T>
void AddTorque(const BodyRef& b, const T* q, const T* torque, T* f) {
  if (b.offset < 0 || !b.rigid) return;
  const T* e = q + b.offset + 3;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 3; ++i) f[b.offset + 3 + k] += 2.0 * EntryEbar(e, i, k) * torque[i];
}

template <class T>
T Dot(const T* a, const T* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

struct Joint {
  JointKind kind;
  BodyRef a, b;
  V3 sa, sb, ua, fa, ga, hb, kb;  // see the header comment
  V3 frame_b[3];                  // fixed joint: a's axes in b's frame at the initial pose
  double length = 1.0;
};

struct Force {
  ForceKind kind;
  BodyRef a, b;
  V3 sa, sb, vector;
  double stiffness = 0.0, damping = 0.0, rest = 0.0;
  TimeLaw law;
};

struct Driver {
  DriverKind kind = DriverKind::kCoordinate;
  BodyRef a, b;   // kRelativeAngle
  int index = 0;  // kCoordinate
  TimeLaw law;
};

// The relative rotation e_rel = conj(e_a) e_b of body b in body a's frame (w and z
// components; a ground or point-mass end has e = (1, 0, 0, 0)).
template <class T>
void RelativeRotationWZ(const BodyRef& a, const BodyRef& b, const T* q, T& w, T& z) {
  const T one(1.0), zero(0.0);
  const T* ea = a.offset >= 0 && a.rigid ? q + a.offset + 3 : nullptr;
  const T* eb = b.offset >= 0 && b.rigid ? q + b.offset + 3 : nullptr;
  const T aw = ea ? ea[0] : one, ax = ea ? ea[1] : zero, ay = ea ? ea[2] : zero,
          az = ea ? ea[3] : zero;
  const T bw = eb ? eb[0] : one, bx = eb ? eb[1] : zero, by = eb ? eb[2] : zero,
          bz = eb ? eb[3] : zero;
  w = aw * bw + ax * bx + ay * by + az * bz;
  z = aw * bz - bw * az - (ax * by - ay * bx);
}

// Rotation angle of b relative to a about a's z axis (the twist of e_rel about z),
// 2 atan2(e_rel.z, e_rel.w): continuous while |angle| < 2 pi.
template <class T>
T RelativeAngleAboutZ(const BodyRef& a, const BodyRef& b, const T* q) {
  using std::atan2;
  T w, z;
  RelativeRotationWZ(a, b, q, w, z);
  return 2.0 * atan2(z, w);
}

// Global angular velocity w = 2 Ebar(e) e' (eq 62); zero for ground and point masses.
template <class T>
void AngularVelocity(const BodyRef& b, const T* q, const T* v, T* w) {
  for (int i = 0; i < 3; ++i) w[i] = T(0.0);
  if (b.offset < 0 || !b.rigid) return;
  const T* e = q + b.offset + 3;
  const T* ed = v + b.offset + 3;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 4; ++k) w[i] += 2.0 * EntryEbar(e, i, k) * ed[k];
}

struct BodyData {
  BodyRef ref;
  double mass;
  Eigen::Matrix3d inertia;
};

struct SpatialEulerEquations {
  static constexpr bool kConstantMass = false;
  int n = 0, m = 0;
  std::vector<BodyData> bodies;
  std::vector<Joint> joints;
  std::vector<Force> forces;
  std::vector<Driver> drivers;
  V3 gravity = V3::Zero();

  int num_coordinates() const { return n; }
  int num_constraints() const { return m; }

  template <class T>
  void Constraints(const T& t, const T* q, T* phi) const {
    int row = 0;
    for (const Joint& j : joints) {
      T pa[3], pb[3], d[3];
      PointOf(j.a, q, j.sa, pa);
      PointOf(j.b, q, j.sb, pb);
      for (int i = 0; i < 3; ++i) d[i] = pb[i] - pa[i];
      T f[3], g[3], u[3], h[3];
      Rotate(j.a, q, j.fa, f);
      Rotate(j.a, q, j.ga, g);
      Rotate(j.a, q, j.ua, u);
      Rotate(j.b, q, j.hb, h);
      switch (j.kind) {
        case JointKind::kSpherical:
          for (int i = 0; i < 3; ++i) phi[row++] = d[i];
          break;
        case JointKind::kRevolute:
          for (int i = 0; i < 3; ++i) phi[row++] = d[i];
          phi[row++] = Dot(f, h);
          phi[row++] = Dot(g, h);
          break;
        case JointKind::kUniversal:
          for (int i = 0; i < 3; ++i) phi[row++] = d[i];
          phi[row++] = Dot(u, h);
          break;
        case JointKind::kCylindrical:
        case JointKind::kPrismatic:
          phi[row++] = Dot(f, d);
          phi[row++] = Dot(g, d);
          phi[row++] = Dot(f, h);
          phi[row++] = Dot(g, h);
          if (j.kind == JointKind::kPrismatic) {
            T k[3];
            Rotate(j.b, q, j.kb, k);
            phi[row++] = Dot(f, k);
          }
          break;
        case JointKind::kPlanar:
          phi[row++] = Dot(f, h);
          phi[row++] = Dot(g, h);
          phi[row++] = Dot(u, d);
          break;
        case JointKind::kFixed: {
          for (int i = 0; i < 3; ++i) phi[row++] = d[i];
          for (int c = 0; c < 3; ++c) {
            T ax[3], bx[3];
            Rotate(j.a, q, V3(V3::Unit(c)), ax);
            Rotate(j.b, q, j.frame_b[(c + 1) % 3], bx);
            phi[row++] = Dot(ax, bx);
          }
          break;
        }
        case JointKind::kPointOnLine:
          phi[row++] = Dot(f, d);
          phi[row++] = Dot(g, d);
          break;
        case JointKind::kDistance:
          phi[row++] = (Dot(d, d) - j.length * j.length) / (2.0 * j.length);
          break;
      }
    }
    for (const Driver& d : drivers) {
      if (d.kind == DriverKind::kCoordinate) {
        phi[row++] = q[d.index] - d.law.Eval(t);
      } else {
        // Rotation of b relative to a about a's z axis = law(t), as
        // 2 sin((angle - law) / 2) = 2 (z cos(law/2) - w sin(law/2)): smooth, no branch cut,
        // and angle - law to first order (the planar row's scale).
        using std::cos;
        using std::sin;
        T w, z;
        RelativeRotationWZ(d.a, d.b, q, w, z);
        const T half = 0.5 * d.law.Eval(t);
        phi[row++] = 2.0 * (z * cos(half) - w * sin(half));
      }
    }
    for (const BodyData& b : bodies) {  // eq (61d)
      if (!b.ref.rigid) continue;
      const T* e = q + b.ref.offset + 3;
      phi[row++] = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0;
    }
  }

  template <class T>
  void MassMatrix(const T* q, T* mass) const {
    for (const BodyData& b : bodies) {
      const int o = b.ref.offset;
      for (int i = 0; i < 3; ++i) mass[(o + i) + (o + i) * n] = T(b.mass);  // eq (61a)
      if (!b.ref.rigid) continue;
      const T* e = q + o + 3;
      // 4 E^T J E, eq (61b).
      T je[3][4];
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 4; ++k) {
          je[i][k] = b.inertia(i, 0) * EntryE(e, 0, k);
          for (int l = 1; l < 3; ++l) je[i][k] += b.inertia(i, l) * EntryE(e, l, k);
        }
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 4; ++l) {
          T sum = EntryE(e, 0, k) * je[0][l];
          for (int i = 1; i < 3; ++i) sum += EntryE(e, i, k) * je[i][l];
          mass[(o + 3 + k) + (o + 3 + l) * n] = 4.0 * sum;
        }
    }
  }

  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    using std::sqrt;
    T energy(0.0);
    for (const BodyData& b : bodies)  // uniform gravity: V = -m g . r
      for (int i = 0; i < 3; ++i) energy -= b.mass * gravity[i] * q[b.ref.offset + i];
    for (const Force& f : forces) {
      if (f.kind == ForceKind::kTorsionalSpring && f.stiffness != 0.0)
        energy += 0.5 * f.stiffness * Square(RelativeAngleAboutZ(f.a, f.b, q) - f.rest);
      if (f.kind != ForceKind::kSpringDamper || f.stiffness == 0.0) continue;
      T pa[3], pb[3], d[3];
      PointOf(f.a, q, f.sa, pa);
      PointOf(f.b, q, f.sb, pb);
      for (int i = 0; i < 3; ++i) d[i] = pb[i] - pa[i];
      energy += 0.5 * f.stiffness * Square(sqrt(Dot(d, d)) - f.rest);
    }
    return energy;
  }

  template <class T>
  void AppliedForces(const T& t, const T* q, const T* v, T* out) const {
    using std::sqrt;
    for (const Force& f : forces) {
      if (f.kind == ForceKind::kSpringDamper && f.damping != 0.0) {
        T pa[3], pb[3], va[3], vb[3], u[3];
        PointOf(f.a, q, f.sa, pa);
        PointOf(f.b, q, f.sb, pb);
        PointVelocity(f.a, q, v, f.sa, va);
        PointVelocity(f.b, q, v, f.sb, vb);
        for (int i = 0; i < 3; ++i) u[i] = pb[i] - pa[i];
        const T length = sqrt(Dot(u, u));
        T rate(0.0);
        for (int i = 0; i < 3; ++i) {
          u[i] = u[i] / length;
          rate += u[i] * (vb[i] - va[i]);
        }
        T force[3];
        for (int i = 0; i < 3; ++i) force[i] = -f.damping * rate * u[i];
        AddPointForce(f.b, q, f.sb, force, out);
        for (int i = 0; i < 3; ++i) force[i] = -force[i];
        AddPointForce(f.a, q, f.sa, force, out);
      } else if (f.kind == ForceKind::kTorsionalSpring && f.damping != 0.0) {
        // Torque -c (w_b - w_a) . z_a about a's z axis, on b, and its reaction on a.
        T wa[3], wb[3], axis[3];
        AngularVelocity(f.a, q, v, wa);
        AngularVelocity(f.b, q, v, wb);
        Rotate(f.a, q, V3(V3::UnitZ()), axis);
        T rate(0.0);
        for (int i = 0; i < 3; ++i) rate += (wb[i] - wa[i]) * axis[i];
        T torque[3];
        for (int i = 0; i < 3; ++i) torque[i] = -f.damping * rate * axis[i];
        AddTorque(f.b, q, torque, out);
        for (int i = 0; i < 3; ++i) torque[i] = -torque[i];
        AddTorque(f.a, q, torque, out);
      } else if (f.kind == ForceKind::kForce || f.kind == ForceKind::kTorque) {
        const T s = f.law.Eval(t);
        T vec[3];
        for (int i = 0; i < 3; ++i) vec[i] = s * f.vector[i];
        if (f.kind == ForceKind::kForce)
          AddPointForce(f.a, q, f.sa, vec, out);
        else
          AddTorque(f.a, q, vec, out);
      }
    }
  }

  // -8 E(e')^T J E(e) e', eq (61b) moved to the right-hand side (E' = E(e')).
  template <class T>
  void VelocityForces(const T* q, const T* v, T* out) const {
    for (const BodyData& b : bodies) {
      if (!b.ref.rigid) continue;
      const int o = b.ref.offset + 3;
      const T* e = q + o;
      const T* ed = v + o;
      T w[3];  // E e' = w'/2
      for (int i = 0; i < 3; ++i) {
        w[i] = EntryE(e, i, 0) * ed[0];
        for (int k = 1; k < 4; ++k) w[i] += EntryE(e, i, k) * ed[k];
      }
      T jw[3];
      for (int i = 0; i < 3; ++i)
        jw[i] = b.inertia(i, 0) * w[0] + b.inertia(i, 1) * w[1] + b.inertia(i, 2) * w[2];
      for (int k = 0; k < 4; ++k) {
        T sum = EntryE(ed, 0, k) * jw[0];
        for (int i = 1; i < 3; ++i) sum += EntryE(ed, i, k) * jw[i];
        out[o + k] -= 8.0 * sum;
      }
    }
  }

  // Linear momentum sum m r' and angular momentum about the origin
  // sum (r x m r' + A J A^T w), with the global angular velocity w = 2 Ebar(e) e' (eq 62)
  // and A = Ebar E^T.
  void Momenta(const double* q, const double* v, Eigen::Vector3d& linear,
               Eigen::Vector3d& angular) const {
    linear.setZero();
    angular.setZero();
    for (const BodyData& b : bodies) {
      const int o = b.ref.offset;
      const V3 r(q[o], q[o + 1], q[o + 2]), rd(v[o], v[o + 1], v[o + 2]);
      linear += b.mass * rd;
      angular += r.cross(b.mass * rd);
      if (!b.ref.rigid) continue;
      const double* e = q + o + 3;
      const double* ed = v + o + 3;
      V3 w = V3::Zero();
      Eigen::Matrix3d a;
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 4; ++k) w[i] += 2.0 * EntryEbar(e, i, k) * ed[k];
        Bilinear(e, e, V3(V3::Unit(i)), a.col(i).data());
      }
      angular += a * b.inertia * a.transpose() * w;
    }
  }
};

int JointRows(JointKind kind) {
  switch (kind) {
    case JointKind::kSpherical:
      return 3;
    case JointKind::kRevolute:
      return 5;
    case JointKind::kUniversal:
      return 4;
    case JointKind::kCylindrical:
      return 4;
    case JointKind::kPrismatic:
      return 5;
    case JointKind::kPlanar:
      return 3;
    case JointKind::kFixed:
      return 6;
    case JointKind::kPointOnLine:
      return 2;
    case JointKind::kDistance:
      return 1;
  }
  return 0;
}

// Rotation of the stated initial pose (identity for ground and point masses).
Eigen::Matrix3d InitialRotation(const ModelDescription& model, int body) {
  if (body < 0 || model.bodies[body].kind == BodyKind::kPointMass)
    return Eigen::Matrix3d::Identity();
  const Eigen::Vector4d& e = model.bodies[body].orientation;
  return Eigen::Quaterniond(e[0], e[1], e[2], e[3]).normalized().toRotationMatrix();
}

// The body-kinematics policy of the shared glue (model_compiler.h).
struct EulerParameterKinematics {
  using BodyRef = mbb::BodyRef;
  static constexpr int kRigidSize = 7, kPointSize = 3;
  static BodyRef Ref(int offset, bool rigid) { return {offset, rigid}; }
  // Ebar(e) of eq (62) as a matrix.
  static Eigen::Matrix<double, 3, 4> EbarOf(const double* e) {
    Eigen::Matrix<double, 3, 4> ebar;
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 4; ++k) ebar(r, k) = EntryEbar(e, r, k);
    return ebar;
  }
  static void Pose(const BodyDescription& b, bool rigid, int o, Vector& q, Vector& v) {
    q.segment(o, 3) = b.position;
    v.segment(o, 3) = b.velocity;
    if (!rigid) return;
    const Eigen::Vector4d e = b.orientation.normalized();
    q.segment(o + 3, 4) = e;
    v.segment(o + 3, 4) = 0.5 * EbarOf(e.data()).transpose() * b.angular_velocity;  // w = 2 Ebar e'
  }
  static void HoldRows(const BodyDescription&, const Vector& q, int o, const std::string& h,
                       std::vector<Eigen::RowVectorXd>& rows, bool& velocity) {
    const int n = static_cast<int>(q.size());
    velocity = h[0] == 'v' || h[0] == 'w';
    if (h == "x" || h == "y" || h == "z")
      rows.push_back(Eigen::RowVectorXd::Unit(n, o + h[0] - 'x'));
    if (h == "orientation")
      for (int k = 0; k < 4; ++k) rows.push_back(Eigen::RowVectorXd::Unit(n, o + 3 + k));
    if (h == "vx" || h == "vy" || h == "vz")
      rows.push_back(Eigen::RowVectorXd::Unit(n, o + h[1] - 'x'));
    if (h == "wx" || h == "wy" || h == "wz") {
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
      row.segment(o + 3, 4) = 2.0 * EbarOf(q.data() + o + 3).row(h[1] - 'x');
      rows.push_back(row);
    }
  }
  static void Point(const BodyRef& b, const double* q, const V3& s, double p[3]) {
    PointOf(b, q, s, p);
  }
  static void PointVelocity(const BodyRef& b, const double* q, const double* v, const V3& s,
                            double pv[3]) {
    mbb::PointVelocity(b, q, v, s, pv);
  }
  static Eigen::Matrix3d Rotation(const BodyRef& b, const double* q) {
    Eigen::Matrix3d a;
    for (int i = 0; i < 3; ++i) Rotate(b, q, V3(V3::Unit(i)), a.col(i).data());
    return a;
  }
  // Rotation angle about `axis` of a rotation about that axis: 2 atan2(e . axis, e0), with
  // e = conj(e_ref) e_body relative to a reference body (axis in its frame).
  static double Angle(const BodyRef& body, const BodyRef& reference, const V3& axis,
                      const double* q) {
    const double* eb = q + body.offset + 3;
    Eigen::Quaterniond e(eb[0], eb[1], eb[2], eb[3]);
    if (reference.offset >= 0) {
      const double* er = q + reference.offset + 3;
      e = Eigen::Quaterniond(er[0], er[1], er[2], er[3]).conjugate() * e;
    }
    return 2.0 * std::atan2(axis.dot(e.vec()), e.w());
  }
};

}  // namespace

void ValidateEulerParameterModel(const ModelDescription& model) {
  const std::string& w = model.Where();
  if (model.dimension != 3)
    throw InputError(w + ": the Euler-parameter equations need a model of dimension 3");
  static const std::set<std::string> kHold = {"x",  "y",  "z",  "orientation", "vx",
                                              "vy", "vz", "wx", "wy",          "wz"};
  for (const auto& b : model.bodies) {
    const std::string what = "body '" + b.name + "'";
    if (b.kind == BodyKind::kRigid) {
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(b.inertia);
      if (!(eig.eigenvalues().minCoeff() > 0.0) || (b.inertia - b.inertia.transpose()).norm() > 0)
        throw InputError(w + ": " + what + " inertia must be symmetric positive definite");
      if (!(b.orientation.norm() > 0.0))
        throw InputError(w + ": " + what + " orientation must be a non-zero quaternion");
    }
    for (const auto& h : b.hold)
      if (!kHold.count(h)) throw InputError(w + ": " + what + " hold: unknown value '" + h + "'");
  }
  for (const auto& j : model.joints) {
    const std::string what = "joint '" + j.name + "'";
    const bool uses_axis = j.kind != JointKind::kSpherical && j.kind != JointKind::kDistance &&
                           j.kind != JointKind::kFixed;
    if (uses_axis && !(j.axis_a.norm() > 0.0))
      throw InputError(w + ": " + what + " axis_a must be non-zero");
    if (uses_axis && j.kind != JointKind::kPointOnLine && !(j.axis_b.norm() > 0.0))
      throw InputError(w + ": " + what + " axis_b must be non-zero");
  }
  for (const auto& d : model.drivers) {
    const std::string what = "driver '" + d.name + "'";
    if (d.kind == DriverKind::kCoordinate && d.coordinate != "x" && d.coordinate != "y" &&
        d.coordinate != "z")
      throw InputError(w + ": " + what + " coordinate '" + d.coordinate + "' is not valid");
  }
  for (const auto& o : model.outputs)
    if (o.kind == OutputKind::kAngle && !(o.axis.norm() > 0.0))
      throw InputError(w + ": output '" + o.name + "' axis must be non-zero");
}

FormulatedModel FormulateSpatialEuler(const ModelDescription& model) {
  using Compiler = ModelCompiler<EulerParameterKinematics>;
  SpatialEulerEquations eq;
  FormulatedModel out;
  out.model = model;
  const std::vector<BodyRef> refs = Compiler::LayOutBodies(model, out, eq.n);
  for (size_t i = 0; i < model.bodies.size(); ++i)
    eq.bodies.push_back({refs[i], model.bodies[i].mass, model.bodies[i].inertia});
  auto ref = [&](const std::string& name, const std::string& what) {
    return Compiler::Find(model, refs, name, what);
  };
  for (const auto& jd : model.joints) {
    const std::string what = "joint '" + jd.name + "'";
    Joint j;
    j.kind = jd.kind;
    j.a = ref(jd.body_a, what);
    j.b = ref(jd.body_b, what);
    j.sa = jd.point_a;
    j.sb = jd.point_b;
    j.ua = jd.axis_a.norm() > 0.0 ? V3(jd.axis_a.normalized()) : V3(V3::UnitZ());
    PerpendicularPair(j.ua, j.fa, j.ga);
    j.hb = jd.axis_b.norm() > 0.0 ? V3(jd.axis_b.normalized()) : V3(V3::UnitZ());
    j.length = jd.length > 0.0 ? jd.length : 1.0;
    const Eigen::Matrix3d ra = InitialRotation(model, FindBodyIndex(model, jd.body_a, what));
    const Eigen::Matrix3d rb = InitialRotation(model, FindBodyIndex(model, jd.body_b, what));
    j.kb = rb.transpose() * ra * j.ga;  // perpendicular to f_a at the initial pose
    for (int c = 0; c < 3; ++c) j.frame_b[c] = rb.transpose() * ra * V3::Unit(c);
    const int rows = JointRows(jd.kind);
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
    if (dd.kind == DriverKind::kRelativeAngle) {
      d.a = ref(dd.body_a, what);
      d.b = ref(dd.body_b, what);
    } else {
      d.index = ref(dd.body_a, what).offset + (dd.coordinate[0] - 'x');
    }
    AppendRows(out.rows, ConstraintRows::Owner::kDriver, static_cast<int>(eq.drivers.size()),
               dd.name, {what});
    eq.drivers.push_back(d);
    ++eq.m;
  }
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    if (!refs[i].rigid) continue;
    AppendRows(out.rows, ConstraintRows::Owner::kBody, static_cast<int>(i), model.bodies[i].name,
               {"Euler-parameter normalisation of body '" + model.bodies[i].name + "'"});
    ++eq.m;
  }
  for (const auto& fd : model.forces) {
    const std::string what = "force '" + fd.name + "'";
    if (fd.kind == ForceKind::kGravity) {
      eq.gravity += fd.vector;
      continue;
    }
    Force f;
    f.kind = fd.kind;
    f.a = ref(fd.body_a, what);
    if (fd.kind == ForceKind::kSpringDamper || fd.kind == ForceKind::kTorsionalSpring)
      f.b = ref(fd.body_b, what);
    f.sa = fd.point_a;
    f.sb = fd.point_b;
    f.vector = fd.vector;
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
