// Forward-mode automatic differentiation with one derivative direction.
//
// A Dual<T> carries a value and its derivative along one direction. Nesting gives higher
// derivatives: Dual<Dual<double>> evaluated along a curve x(s) with x.v.d = x.d.v = x'(0)
// and x.d.d = x''(0) yields f(x(0)), f'(0) twice and f''(0) in x.d.d. This is how the DAE
// adapter (equations_dae.h) derives Phi_q, Phi_t, gamma, the force Jacobians and the
// reaction stiffness from one templated source per problem. Everything lives on the stack:
// no allocation, so derivatives are safe inside step loops.
#pragma once

#include <cmath>
#include <type_traits>

namespace mbb {

template <class T>
struct Dual {
  T v{};  // value
  T d{};  // derivative along the seeded direction

  Dual() = default;
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
  Dual(S value) : v(static_cast<double>(value)), d(0.0) {}  // NOLINT: implicit by design
  Dual(const T& value, const T& derivative) : v(value), d(derivative) {}

  Dual& operator+=(const Dual& o) {
    v += o.v;
    d += o.d;
    return *this;
  }
  Dual& operator-=(const Dual& o) {
    v -= o.v;
    d -= o.d;
    return *this;
  }
  Dual& operator*=(const Dual& o) {
    d = d * o.v + v * o.d;
    v *= o.v;
    return *this;
  }
  Dual& operator/=(const Dual& o) {
    *this = *this / o;
    return *this;
  }
};

template <class T>
struct IsDual : std::false_type {};
template <class T>
struct IsDual<Dual<T>> : std::true_type {};

/// The double value at the bottom of any nesting.
inline double Value(double x) { return x; }
template <class T>
double Value(const Dual<T>& x) {
  return Value(x.v);
}

template <class T>
Dual<T> operator+(const Dual<T>& a) {
  return a;
}
template <class T>
Dual<T> operator-(const Dual<T>& a) {
  return {-a.v, -a.d};
}
template <class T>
Dual<T> operator+(const Dual<T>& a, const Dual<T>& b) {
  return {a.v + b.v, a.d + b.d};
}
template <class T>
Dual<T> operator-(const Dual<T>& a, const Dual<T>& b) {
  return {a.v - b.v, a.d - b.d};
}
template <class T>
Dual<T> operator*(const Dual<T>& a, const Dual<T>& b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d};
}
template <class T>
Dual<T> operator/(const Dual<T>& a, const Dual<T>& b) {
  const T inv = T(1.0) / b.v;
  const T q = a.v * inv;
  return {q, (a.d - q * b.d) * inv};
}

// Mixed operations with plain numbers (double, int) at any nesting depth. A number has no
// derivative, so +, - and * meet only what it multiplies or shifts: the values of promoting
// it to a Dual with zero derivative (up to the sign of a zero result and an inf * 0), without
// the operations on that zero (a Dual<Dual<double>> times a number: 4 multiplications
// instead of 9 and 5 additions; model code is full of such products with constants).
template <class S>
using EnableIfNumber = std::enable_if_t<std::is_arithmetic_v<S>>;
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator+(const Dual<T>& a, S b) {
  return {a.v + b, a.d};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator+(S a, const Dual<T>& b) {
  return {a + b.v, b.d};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator-(const Dual<T>& a, S b) {
  return {a.v - b, a.d};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator-(S a, const Dual<T>& b) {
  return {a - b.v, -b.d};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator*(const Dual<T>& a, S b) {
  return {a.v * b, a.d * b};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator*(S a, const Dual<T>& b) {
  return {a * b.v, a * b.d};
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator/(const Dual<T>& a, S b) {
  return a / Dual<T>(b);
}
template <class T, class S, class = EnableIfNumber<S>>
Dual<T> operator/(S a, const Dual<T>& b) {
  return Dual<T>(a) / b;
}

// Comparisons act on the value, so branches in model code follow the double evaluation.
#define MBB_DUAL_COMPARE(OP)                                                     \
  template <class T>                                                             \
  bool operator OP(const Dual<T>& a, const Dual<T>& b) {                         \
    return Value(a) OP Value(b);                                                 \
  }                                                                              \
  template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  bool operator OP(const Dual<T>& a, S b) {                                      \
    return Value(a) OP static_cast<double>(b);                                   \
  }                                                                              \
  template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>> \
  bool operator OP(S a, const Dual<T>& b) {                                      \
    return static_cast<double>(a) OP Value(b);                                   \
  }
MBB_DUAL_COMPARE(<)
MBB_DUAL_COMPARE(>)
MBB_DUAL_COMPARE(<=)
MBB_DUAL_COMPARE(>=)
MBB_DUAL_COMPARE(==)
MBB_DUAL_COMPARE(!=)
#undef MBB_DUAL_COMPARE

// Elementary functions; each applies the chain rule once and recurses through nesting.
using std::abs;
using std::atan2;
using std::cos;
using std::exp;
using std::log;
using std::sin;
using std::sqrt;
using std::tan;

template <class T>
Dual<T> sin(const Dual<T>& a) {
  return {sin(a.v), a.d * cos(a.v)};
}
template <class T>
Dual<T> cos(const Dual<T>& a) {
  return {cos(a.v), -(a.d * sin(a.v))};
}
template <class T>
Dual<T> tan(const Dual<T>& a) {
  const T t = tan(a.v);
  return {t, a.d * (T(1.0) + t * t)};
}
template <class T>
Dual<T> exp(const Dual<T>& a) {
  const T e = exp(a.v);
  return {e, a.d * e};
}
template <class T>
Dual<T> log(const Dual<T>& a) {
  return {log(a.v), a.d / a.v};
}
template <class T>
Dual<T> sqrt(const Dual<T>& a) {
  const T s = sqrt(a.v);
  return {s, a.d / (2.0 * s)};
}
template <class T>
Dual<T> abs(const Dual<T>& a) {
  return a.v < 0.0 ? -a : a;
}
template <class T>
Dual<T> atan2(const Dual<T>& y, const Dual<T>& x) {
  const T r2 = x.v * x.v + y.v * y.v;
  return {atan2(y.v, x.v), (x.v * y.d - y.v * x.d) / r2};
}
template <class T>
Dual<T> Square(const Dual<T>& a) {
  return a * a;
}
inline double Square(double a) { return a * a; }

/// Value and derivative seeded for one coordinate: {x, 1} or {x, 0}.
template <class T>
Dual<T> Seed(const T& x, bool active) {
  return {x, T(active ? 1.0 : 0.0)};
}

}  // namespace mbb
