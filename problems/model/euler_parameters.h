// Euler-parameter algebra of the spatial formulation (spatial_formulation.cc; paper 000
// eqs (61), (62), Haug 1989 ch. 11): E(e) and Ebar(e) of eq (62), a body vector rotated
// by A = Ebar E^T, a body point and its velocity, the generalised force of a point force
// and of a torque, relative rotations about z, and the second derivatives of points and of
// dot products of rotated vectors in e, by hand. Templated on the scalar for automatic
// differentiation; a body is its coordinate offset (-1: the ground) and whether it is rigid.
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace mbb {
namespace euler_parameters {

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
inline Eigen::Matrix4d RotationQuadraticForm(const V3& c, const V3& u) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j)
        m(kIndexE[i][k], kIndexE[j][k]) += c[i] * kSignEbar[i][k] * kSignE[j][k] * u[j];
  return m;
}

// d(A(e) u)/de (3 x 4).
inline Eigen::Matrix<double, 3, 4> RotationJacobian(const double* e, const V3& u) {
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

inline bool HasRotation(const BodyRef& b) { return b.offset >= 0 && b.rigid; }

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

}  // namespace euler_parameters
}  // namespace mbb
