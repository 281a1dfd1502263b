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
// k_b and the fixed joint's frame vectors are taken from the stated initial pose. The
// joints are composed of primitive row groups once for every formulation
// (model_equations.h); this file is the Euler-parameter body-kinematics policy and its
// validation rules.
#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <set>

#include "problems/model/model_compiler.h"
#include "problems/parameters.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

struct BodyRef {
  int offset = -1;  // -1: ground
  bool rigid = false;
};

// E(e) and Ebar(e) of eq (62): entry (i, k) is kSignE[i][k] e[kIndexE[i][k]] (kSignEbar).
constexpr int kIndexE[3][4] = {{1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
constexpr double kSignE[3][4] = {{-1, 1, 1, -1}, {-1, -1, 1, 1}, {-1, 1, -1, 1}};
constexpr double kSignEbar[3][4] = {{-1, 1, -1, 1}, {-1, 1, 1, -1}, {-1, -1, 1, 1}};
template <class T>
T EntryE(const T* e, int i, int k) {
  return kSignE[i][k] * e[kIndexE[i][k]];
}
template <class T>
T EntryEbar(const T* e, int i, int k) {
  return kSignEbar[i][k] * e[kIndexE[i][k]];
}

// sum += sign * term (sign = +-1) as an addition or a subtraction: the value of the product
// with the sign, without its multiplications (4 for a Dual<Dual<double>>).
template <class T>
void AddSigned(T& sum, double sign, const T& term) {
  if (sign > 0.0) {
    sum += term;
  } else {
    sum -= term;
  }
}

// out = Ebar(a) E(b)^T s: bilinear in (a, b); A(e) s = Ebar(e) E(e)^T s. Every entry of E
// and Ebar is +-e_k (eq 62): each product is taken with e_k and its sign then applied by
// AddSigned, which gives the values of the products with the signed entries, since a
// change of sign is exact (the innermost loop of second-order automatic differentiation on
// Euler parameters).
template <class T, class S>
void Bilinear(const T* a, const S* b, const V3& s, T* out) {
  S w[4];
  for (int k = 0; k < 4; ++k) {
    w[k] = S(0.0);
    for (int i = 0; i < 3; ++i) AddSigned(w[k], kSignE[i][k], b[kIndexE[i][k]] * s[i]);
  }
  for (int i = 0; i < 3; ++i) {
    out[i] = T(0.0);
    for (int k = 0; k < 4; ++k) AddSigned(out[i], kSignEbar[i][k], a[kIndexE[i][k]] * w[k]);
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

// Second derivatives by hand (EulerParameterKinematics::kHasRowHessians). A(e) u =
// B_u(e, e) with B_u(x, y) = Ebar(x) E(y)^T u bilinear (Bilinear), so for a constant c,
// c . A(e) u = e^T M e with M_kl = c . B_u(unit_k, unit_l), whose Hessian in e is M + M^T,
// constant; and d(A(e) u)/de_k = B_u(unit_k, e) + B_u(e, unit_k).
Eigen::Matrix4d RotationQuadraticForm(const V3& c, const V3& u) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j)
        m(kIndexE[i][k], kIndexE[j][k]) += c[i] * kSignEbar[i][k] * kSignE[j][k] * u[j];
  return m;
}

// d(A(e) u)/de (3 x 4).
Eigen::Matrix<double, 3, 4> RotationJacobian(const double* e, const V3& u) {
  Eigen::Matrix<double, 3, 4> jacobian;
  for (int k = 0; k < 4; ++k) {
    double unit[4] = {0.0, 0.0, 0.0, 0.0};
    unit[k] = 1.0;
    double x[3], y[3];
    Bilinear(unit, e, u, x);
    Bilinear(e, unit, u, y);
    for (int i = 0; i < 3; ++i) jacobian(i, k) = x[i] + y[i];
  }
  return jacobian;
}

bool HasRotation(const BodyRef& b) { return b.offset >= 0 && b.rigid; }

// add(i, j, block(k, l)) over the 4 x 4 block of a's and b's Euler parameters.
template <class Add>
void AddEulerBlock(const BodyRef& a, const BodyRef& b, const Eigen::Matrix4d& block, Add&& add) {
  for (int l = 0; l < 4; ++l)
    for (int k = 0; k < 4; ++k) add(a.offset + 3 + k, b.offset + 3 + l, block(k, l));
}

// Hessian of sign * c . p for the body point p = r + A(e) s: positions enter linearly.
template <class Add>
void AddPointHessian(const BodyRef& b, const V3& s, const double* c, double sign, Add&& add) {
  if (!HasRotation(b)) return;
  const Eigen::Matrix4d m = RotationQuadraticForm(sign * V3(c[0], c[1], c[2]), s);
  AddEulerBlock(b, b, m + m.transpose(), add);
}

// Hessian of weight (A(e_a) u) . (A(e_b) w), a row of two rotated body vectors (axes
// parallel, axes perpendicular, frame locked): the (a, a) and (b, b) blocks as above
// with c the other vector, the (a, b) block J_u(e_a)^T J_w(e_b) and its transpose.
template <class Add>
void AddDotHessian(const BodyRef& a, const V3& u, const BodyRef& b, const V3& w, const double* q,
                   double weight, Add&& add) {
  V3 au, bw;
  Rotate(a, q, u, au.data());
  Rotate(b, q, w, bw.data());
  if (HasRotation(a)) {
    const Eigen::Matrix4d m = RotationQuadraticForm(weight * bw, u);
    AddEulerBlock(a, a, m + m.transpose(), add);
  }
  if (HasRotation(b)) {
    const Eigen::Matrix4d m = RotationQuadraticForm(weight * au, w);
    AddEulerBlock(b, b, m + m.transpose(), add);
  }
  if (HasRotation(a) && HasRotation(b)) {
    const Eigen::Matrix4d cross = weight * RotationJacobian(q + a.offset + 3, u).transpose() *
                                  RotationJacobian(q + b.offset + 3, w);
    AddEulerBlock(a, b, cross, add);
    AddEulerBlock(b, a, cross.transpose(), add);
  }
}

// Rotation of the stated initial pose (identity for ground and point masses).
Eigen::Matrix3d InitialRotation(const ModelDescription& model, int body) {
  if (body < 0 || model.bodies[body].kind == BodyKind::kPointMass)
    return Eigen::Matrix3d::Identity();
  const Eigen::Vector4d& e = model.bodies[body].orientation;
  return Eigen::Quaterniond(e[0], e[1], e[2], e[3]).normalized().toRotationMatrix();
}

// The body-kinematics policy (model_compiler.h, model_equations.h).
struct EulerParameterKinematics {
  using BodyRef = mbb::BodyRef;
  static constexpr int kDim = 3, kRigidSize = 7, kPointSize = 3;
  static constexpr int kRigidAngleSlot = -1;      // Euler parameters: bounded, no angle
  static constexpr int kRigidQuaternionSlot = 3;  // (x, y, z, e0, e1, e2, e3)
  static constexpr BodyLayout kRigidLayout = BodyLayout::kEulerParameters;
  static constexpr BodyLayout kPointLayout = BodyLayout::kSpatialPoint;
  static constexpr bool kAngleOutputsWrap = true;  // a rotation angle from the rotation matrix
  static constexpr int kAxesParallelRows = 2, kFrameLockedRows = 3;
  static constexpr bool kConstantMass = false;
  // Joint constants (header comment): u_a with its perpendiculars f_a, g_a, h_b, k_b, and
  // a's axes in b's frame at the stated pose (fixed joint).
  struct JointFrame {
    V3 ua = V3::UnitZ(), fa = V3::UnitX(), ga = V3::UnitY(), hb = V3::UnitZ(), kb = V3::UnitY();
    V3 frame_b[3] = {V3::UnitX(), V3::UnitY(), V3::UnitZ()};
  };
  static BodyRef Ref(int offset, bool rigid) { return {offset, rigid}; }
  static V3 InDimension(const V3& v) { return v; }
  static int CoordinateIndex(const std::string& c) { return c[0] - 'x'; }
  static std::vector<std::string> IntrinsicRowNames(const BodyDescription& b, bool rigid) {
    if (!rigid) return {};
    return {"Euler-parameter normalisation of body '" + b.name + "'"};
  }
  static JointFrame MakeJointFrame(const ModelDescription& model, const BodyIndex& index,
                                   const JointDescription& jd) {
    const std::string what = "joint '" + jd.name + "'";
    JointFrame f;
    f.ua = jd.axis_a.norm() > 0.0 ? V3(jd.axis_a.normalized()) : V3(V3::UnitZ());
    PerpendicularPair(f.ua, f.fa, f.ga);
    f.hb = jd.axis_b.norm() > 0.0 ? V3(jd.axis_b.normalized()) : V3(V3::UnitZ());
    const Eigen::Matrix3d ra = InitialRotation(model, index.Find(jd.body_a, what));
    const Eigen::Matrix3d rb = InitialRotation(model, index.Find(jd.body_b, what));
    f.kb = rb.transpose() * ra * f.ga;  // perpendicular to f_a at the initial pose
    for (int c = 0; c < 3; ++c) f.frame_b[c] = rb.transpose() * ra * V3::Unit(c);
    return f;
  }

  // Kinematics (model_equations.h).
  template <class T>
  static void Point(const BodyRef& b, const T* q, const V3& s, T* p) {
    PointOf(b, q, s, p);
  }
  template <class T>
  static void PointVelocity(const BodyRef& b, const T* q, const T* v, const V3& s, T* pv) {
    mbb::PointVelocity(b, q, v, s, pv);
  }
  template <class T>
  static void AddPointForce(const BodyRef& b, const T* q, const V3& s, const T* force, T* f) {
    mbb::AddPointForce(b, q, s, force, f);
  }
  // A global torque `torque` * scale: 2 Ebar^T t.
  template <class T>
  static void AddTorque(const BodyRef& b, const T* q, const V3& torque, const T& scale, T* f) {
    T vec[3];
    for (int i = 0; i < 3; ++i) vec[i] = scale * torque[i];
    mbb::AddTorque(b, q, vec, f);
  }
  template <class T>
  static T RelativeAngle(const BodyRef& a, const BodyRef& b, const T* q) {
    return RelativeAngleAboutZ(a, b, q);
  }
  // Rotation of b relative to a about a's z axis = law(t), as
  // 2 sin((angle - law) / 2) = 2 (z cos(law/2) - w sin(law/2)): smooth, no branch cut,
  // and angle - law to first order (the planar row's scale).
  template <class T>
  static T RelativeAngleRow(const BodyRef& a, const BodyRef& b, const T* q, const T& law) {
    using std::cos;
    using std::sin;
    T w, z;
    RelativeRotationWZ(a, b, q, w, z);
    const T half = 0.5 * law;
    return 2.0 * (z * cos(half) - w * sin(half));
  }
  template <class T>
  static void OnLine(const BodyRef& a, const JointFrame& j, const T* q, const T* d, T* phi,
                     int& row) {
    T f[3], g[3];
    Rotate(a, q, j.fa, f);
    Rotate(a, q, j.ga, g);
    phi[row++] = Dot(f, d);
    phi[row++] = Dot(g, d);
  }
  template <class T>
  static void AxesParallel(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                           T* phi, int& row) {
    T f[3], g[3], h[3];
    Rotate(a, q, j.fa, f);
    Rotate(a, q, j.ga, g);
    Rotate(b, q, j.hb, h);
    phi[row++] = Dot(f, h);
    phi[row++] = Dot(g, h);
  }
  template <class T>
  static void AxesPerpendicular(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                                T* phi, int& row) {
    T u[3], h[3];
    Rotate(a, q, j.ua, u);
    Rotate(b, q, j.hb, h);
    phi[row++] = Dot(u, h);
  }
  template <class T>
  static void InPlane(const BodyRef& a, const JointFrame& j, const T* q, const T* d, T* phi,
                      int& row) {
    T u[3];
    Rotate(a, q, j.ua, u);
    phi[row++] = Dot(u, d);
  }
  template <class T>
  static void NoTwist(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q, T* phi,
                      int& row) {
    T f[3], k[3];
    Rotate(a, q, j.fa, f);
    Rotate(b, q, j.kb, k);
    phi[row++] = Dot(f, k);
  }
  template <class T>
  static void FrameLocked(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                          T* phi, int& row) {
    for (int c = 0; c < 3; ++c) {
      T ax[3], bx[3];
      Rotate(a, q, V3(V3::Unit(c)), ax);
      Rotate(b, q, j.frame_b[(c + 1) % 3], bx);
      phi[row++] = Dot(ax, bx);
    }
  }
  // Torque -c (w_b - w_a) . z_a about a's z axis, on b, and its reaction on a.
  template <class T>
  static void TorsionalDamping(const BodyRef& a, const BodyRef& b, const T* q, const T* v,
                               double damping, T* out) {
    T wa[3], wb[3], axis[3];
    AngularVelocity(a, q, v, wa);
    AngularVelocity(b, q, v, wb);
    Rotate(a, q, V3(V3::UnitZ()), axis);
    T rate(0.0);
    for (int i = 0; i < 3; ++i) rate += (wb[i] - wa[i]) * axis[i];
    T torque[3];
    for (int i = 0; i < 3; ++i) torque[i] = -damping * rate * axis[i];
    mbb::AddTorque(b, q, torque, out);
    for (int i = 0; i < 3; ++i) torque[i] = -torque[i];
    mbb::AddTorque(a, q, torque, out);
  }
  // e^T e - 1 = 0, eq (61d).
  template <class T>
  static void IntrinsicRows(const BodyRef& b, const T* q, T* phi, int& row) {
    if (!b.rigid) return;
    const T* e = q + b.offset + 3;
    phi[row++] = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0;
  }

  // Second derivatives by hand of the rows built from body points and rotated body vectors
  // (model_equations.h, AddRowHessians): lambda the rows' multipliers, add(i, j, value).
  static constexpr bool kHasRowHessians = true;
  template <class Add>
  static void PointHessian(const BodyRef& b, const double* /*q*/, const V3& s, const double* lambda,
                           double sign, Add&& add) {
    AddPointHessian(b, s, lambda, sign, add);
  }
  template <class Add>
  static void AxesParallelHessian(const BodyRef& a, const BodyRef& b, const JointFrame& j,
                                  const double* q, const double* lambda, Add&& add) {
    AddDotHessian(a, j.fa, b, j.hb, q, lambda[0], add);
    AddDotHessian(a, j.ga, b, j.hb, q, lambda[1], add);
  }
  template <class Add>
  static void AxesPerpendicularHessian(const BodyRef& a, const BodyRef& b, const JointFrame& j,
                                       const double* q, const double* lambda, Add&& add) {
    AddDotHessian(a, j.ua, b, j.hb, q, lambda[0], add);
  }
  template <class Add>
  static void FrameLockedHessian(const BodyRef& a, const BodyRef& b, const JointFrame& j,
                                 const double* q, const double* lambda, Add&& add) {
    for (int c = 0; c < 3; ++c)
      AddDotHessian(a, V3(V3::Unit(c)), b, j.frame_b[(c + 1) % 3], q, lambda[c], add);
  }
  static int IntrinsicRowCount(const BodyRef& b) { return b.rigid ? 1 : 0; }
  template <class Add>
  static void IntrinsicHessian(const BodyRef& b, const double* lambda, Add&& add) {
    if (!b.rigid) return;
    AddEulerBlock(b, b, 2.0 * lambda[0] * Eigen::Matrix4d::Identity(), add);
  }
  // m I (eq 61a) and 4 E^T J E (eq 61b).
  template <class T>
  static void MassBlock(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia, const T* q,
                        T* m, int n) {
    const int o = b.offset;
    for (int i = 0; i < 3; ++i) m[(o + i) + (o + i) * n] = T(mass);
    if (!b.rigid) return;
    const T* e = q + o + 3;
    T je[3][4];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 4; ++k) {
        je[i][k] = inertia(i, 0) * EntryE(e, 0, k);
        for (int l = 1; l < 3; ++l) je[i][k] += inertia(i, l) * EntryE(e, l, k);
      }
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l) {
        T sum = EntryE(e, 0, k) * je[0][l];
        for (int i = 1; i < 3; ++i) sum += EntryE(e, i, k) * je[i][l];
        m[(o + 3 + k) + (o + 3 + l) * n] = 4.0 * sum;
      }
  }
  // -8 E(e')^T J E(e) e', eq (61b) moved to the right-hand side (E' = E(e')).
  template <class T>
  static void VelocityForces(const BodyRef& b, const Eigen::Matrix3d& inertia, const T* q,
                             const T* v, T* out) {
    if (!b.rigid) return;
    const int o = b.offset + 3;
    const T* e = q + o;
    const T* ed = v + o;
    T w[3];  // E e' = w'/2
    for (int i = 0; i < 3; ++i) {
      w[i] = EntryE(e, i, 0) * ed[0];
      for (int k = 1; k < 4; ++k) w[i] += EntryE(e, i, k) * ed[k];
    }
    T jw[3];
    for (int i = 0; i < 3; ++i)
      jw[i] = inertia(i, 0) * w[0] + inertia(i, 1) * w[1] + inertia(i, 2) * w[2];
    for (int k = 0; k < 4; ++k) {
      T sum = EntryE(ed, 0, k) * jw[0];
      for (int i = 1; i < 3; ++i) sum += EntryE(ed, i, k) * jw[i];
      out[o + k] -= 8.0 * sum;
    }
  }
  // Linear m r'; angular about the origin r x m r' + A J A^T w, with the global angular
  // velocity w = 2 Ebar(e) e' (eq 62) and A = Ebar E^T.
  static void AddMomenta(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia,
                         const double* q, const double* v, V3& linear, V3& angular) {
    const int o = b.offset;
    const V3 r(q[o], q[o + 1], q[o + 2]), rd(v[o], v[o + 1], v[o + 2]);
    linear += mass * rd;
    angular += r.cross(mass * rd);
    if (!b.rigid) return;
    V3 w;
    AngularVelocity(b, q, v, w.data());
    const Eigen::Matrix3d a = Rotation(b, q);
    angular += a * inertia * a.transpose() * w;
  }

  // The glue (model_compiler.h).
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
  static void OutputPoint(const BodyRef& b, const double* q, const V3& s, double p[3]) {
    PointOf(b, q, s, p);
  }
  static void OutputPointVelocity(const BodyRef& b, const double* q, const double* v, const V3& s,
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
  return CompileModel<EulerParameterKinematics>(model);
}

}  // namespace mbb
