// Planar formulation of a model: each rigid body in (x, y, theta) of its centre of mass,
// each point mass in (x, y); constant diagonal mass matrix diag(m, m, J) (Nikravesh,
// "Computer-Aided Analysis of Mechanical Systems", 1988, ch. 6). The equations are the
// shared ones (model_equations.h, model_compiler.h); this file is the planar
// body-kinematics policy and its validation rules:
//
//   body point        p = r + R(theta) s,   R = [c -s; s c]
//   on line           n_a . (p_b - p_a) = 0, n_a = R(theta_a) n (the line's normal)   (1)
//   axes parallel     none (every axis is z)                                          (0)
//   no twist, frame locked   theta_b - theta_a - theta_ab0 = 0                        (1)
//   relative angle    theta_b - theta_a; its driver row theta_b - theta_a - law(t)
// so that revolute = 2 rows, prismatic 2, fixed 3, distance 1, point-on-line 1.
// theta_ab0 is the relative angle of the stated initial pose.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

#include "problems/core/parameters.h"
#include "problems/model/model_compiler.h"

namespace mbb {
namespace {

struct BodyRef {
  int offset = -1;  // -1: ground
  bool has_angle = false;
};

// cos and sin of an angle in doubles, remembered for the angles last asked for: one pass of
// a method evaluates Phi, Phi_q, gamma and their derivatives at the same q, each visiting
// every joint point (two per joint) where a body has one angle, so most calls repeat one
// (double four-bar: about 150 evaluations a step, 5 bodies). A pure function of the bits of
// theta, so the results are the same as computing them; per thread, so no sharing. Dual
// numbers (automatic differentiation) take their own cos and sin. It stays outside the
// workspace contract (docs/style.md) on purpose: it holds nothing a result can depend on
// (a miss recomputes the same bits), and the body-kinematics policy that calls it
// (model_equations.h) is handed q alone, no workspace.
struct CosSin {
  double c, s;
};
inline CosSin CosSinOf(double theta) {
  struct Entry {
    double theta = std::numeric_limits<double>::quiet_NaN();  // never equal: empty
    CosSin value{1.0, 0.0};
  };
  static thread_local Entry table[64];
  std::uint64_t bits;
  std::memcpy(&bits, &theta, sizeof bits);
  Entry& e = table[(bits ^ (bits >> 29) ^ (bits >> 47)) & 63];
  if (!(e.theta == theta) || std::signbit(e.theta) != std::signbit(theta)) {
    e.theta = theta;
    e.value = {std::cos(theta), std::sin(theta)};
  }
  return e.value;
}
template <class T>
void CosSinOf(const T& theta, T& c, T& s) {
  using std::cos;
  using std::sin;
  c = cos(theta);
  s = sin(theta);
}
inline void CosSinOf(double theta, double& c, double& s) {
  const CosSin v = CosSinOf(theta);
  c = v.c;
  s = v.s;
}

template <class T>
void PointOf(const BodyRef& b, const T* q, const Eigen::Vector2d& s, T* p) {
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
  T c, sn;
  CosSinOf(q[b.offset + 2], c, sn);
  p[0] = q[b.offset] + c * s.x() - sn * s.y();
  p[1] = q[b.offset + 1] + sn * s.x() + c * s.y();
}

// dp/dtheta = R'(theta) s (zero for ground and point masses).
template <class T>
void PointAngleDerivative(const BodyRef& b, const T* q, const Eigen::Vector2d& s, T* dp) {
  if (b.offset < 0 || !b.has_angle) {
    dp[0] = T(0.0);
    dp[1] = T(0.0);
    return;
  }
  T c, sn;
  CosSinOf(q[b.offset + 2], c, sn);
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

double InitialAngle(const ModelDescription& model, const BodyIndex& index,
                    const std::string& name) {
  const int i = index.Find(name, "");
  return i < 0 || model.bodies[i].kind == BodyKind::kPointMass ? 0.0 : model.bodies[i].angle;
}

Eigen::Vector2d Xy(const Eigen::Vector3d& v) { return v.head<2>(); }

// The body-kinematics policy of the shared glue (model_compiler.h).
// The body-kinematics policy (model_compiler.h, model_equations.h).
struct PlanarKinematics {
  using BodyRef = mbb::BodyRef;
  static constexpr int kDim = 2, kRigidSize = 3, kPointSize = 2;
  static constexpr int kRigidAngleSlot = 2;  // (x, y, theta)
  static constexpr int kRigidQuaternionSlot = -1;
  static constexpr BodyLayout kRigidLayout = BodyLayout::kPlanarPose;
  static constexpr BodyLayout kPointLayout = BodyLayout::kPlanarPoint;
  static constexpr bool kAngleOutputsWrap = false;  // theta itself: continuous
  static constexpr int kAxesParallelRows = 0, kFrameLockedRows = 1;
  static constexpr bool kConstantMass = true;
  struct JointFrame {
    Eigen::Vector2d normal_a = Eigen::Vector2d::UnitY();  // the line normal in a's frame
    double angle0 = 0.0;                                  // relative angle at the stated pose
  };
  static BodyRef Ref(int offset, bool rigid) { return {offset, rigid}; }
  static Eigen::Vector2d InDimension(const Eigen::Vector3d& v) { return Xy(v); }
  static int CoordinateIndex(const std::string& c) { return c == "x" ? 0 : c == "y" ? 1 : 2; }
  static std::vector<std::string> IntrinsicRowNames(const BodyDescription&, bool) { return {}; }
  static JointFrame MakeJointFrame(const ModelDescription& model, const BodyIndex& index,
                                   const JointDescription& jd) {
    JointFrame f;
    const Eigen::Vector2d axis = Xy(jd.axis_a);
    if (axis.norm() > 0.0) f.normal_a = Eigen::Vector2d(-axis.y(), axis.x()).normalized();
    f.angle0 = InitialAngle(model, index, jd.body_b) - InitialAngle(model, index, jd.body_a);
    return f;
  }

  // Kinematics (model_equations.h).
  template <class T>
  static void Point(const BodyRef& b, const T* q, const Eigen::Vector2d& s, T* p) {
    PointOf(b, q, s, p);
  }
  template <class T>
  static void PointVelocity(const BodyRef& b, const T* q, const T* v, const Eigen::Vector2d& s,
                            T* pv) {
    mbb::PointVelocity(b, q, v, s, pv);
  }
  template <class T>
  static void AddPointForce(const BodyRef& b, const T* q, const Eigen::Vector2d& s, const T* force,
                            T* f) {
    mbb::AddPointForce(b, q, s, force, f);
  }
  // A torque `torque`(z) * scale on the body's angle.
  template <class T>
  static void AddTorque(const BodyRef& b, const T* /*q*/, const Eigen::Vector3d& torque,
                        const T& scale, T* f) {
    if (b.offset >= 0 && b.has_angle) f[b.offset + 2] += torque.z() * scale;
  }
  template <class T>
  static T RelativeAngle(const BodyRef& a, const BodyRef& b, const T* q) {
    return AngleOf(b, q) - AngleOf(a, q);
  }
  template <class T>
  static T RelativeAngleRow(const BodyRef& a, const BodyRef& b, const T* q, const T& law) {
    return AngleOf(b, q) - AngleOf(a, q) - law;
  }
  template <class T>
  static void OnLine(const BodyRef& a, const JointFrame& f, const T* q, const T* d, T* phi,
                     int& row) {
    // The normal rotates with body a: R(theta_a) n_a.
    T c, sn;
    CosSinOf(AngleOf(a, q), c, sn);
    const T nx = c * f.normal_a.x() - sn * f.normal_a.y();
    const T ny = sn * f.normal_a.x() + c * f.normal_a.y();
    phi[row++] = nx * d[0] + ny * d[1];
  }
  template <class T>
  static void AxesParallel(const BodyRef&, const BodyRef&, const JointFrame&, const T*, T*, int&) {}
  template <class T>
  static void AxesPerpendicular(const BodyRef&, const BodyRef&, const JointFrame&, const T*, T*,
                                int&) {}  // no planar universal joint (validation)
  template <class T>
  static void InPlane(const BodyRef&, const JointFrame&, const T*, const T*, T*, int&) {}
  template <class T>
  static void NoTwist(const BodyRef& a, const BodyRef& b, const JointFrame& f, const T* q, T* phi,
                      int& row) {
    phi[row++] = AngleOf(b, q) - AngleOf(a, q) - f.angle0;
  }
  template <class T>
  static void FrameLocked(const BodyRef& a, const BodyRef& b, const JointFrame& f, const T* q,
                          T* phi, int& row) {
    NoTwist(a, b, f, q, phi, row);
  }
  template <class T>
  static void TorsionalDamping(const BodyRef& a, const BodyRef& b, const T* /*q*/, const T* v,
                               double damping, T* out) {
    const T wa = a.offset < 0 || !a.has_angle ? T(0.0) : v[a.offset + 2];
    const T wb = b.offset < 0 || !b.has_angle ? T(0.0) : v[b.offset + 2];
    const T torque = -damping * (wb - wa);
    if (b.offset >= 0 && b.has_angle) out[b.offset + 2] += torque;
    if (a.offset >= 0 && a.has_angle) out[a.offset + 2] -= torque;
  }
  template <class T>
  static void IntrinsicRows(const BodyRef&, const T*, T*, int&) {}

  // The rows' first derivatives, their rates, gamma and its derivative by hand
  // (model_equations.h: VisitRowDerivatives, ConstraintGamma; EquationsDae checks them
  // against dual numbers once per model, the derivative test against differences). Every
  // planar row is made of body points, a line normal and angles: with omega the body's
  // angular velocity,
  //   dp/dtheta = R'(theta) s,   d/dt R'(theta) s = -omega R(theta) s,
  //   along q + v s:  p' = v_xy + omega R' s,  p'' = -omega^2 R s,  n' = omega R' n,
  // so d p'/dtheta = -omega R s and d p''/dtheta = -omega^2 R' s. The *Jacobian functions
  // give, at each entry of Phi_q, what `what` asks (row_derivative.h), in one fixed order;
  // no planar row's Phi_q depends on t.
  static constexpr bool kHasRowDerivatives = true;
  // sign p of a body point (a coincide row each coordinate): entries on (x, y, theta).
  template <class Take>
  static void PointJacobian(const BodyRef& b, const double* q, const double* v,
                            const Eigen::Vector2d& s, double sign, RowDerivative what, int row,
                            Take&& take) {
    if (b.offset < 0) return;
    const double linear = what == RowDerivative::kJacobian ? sign : 0.0;
    take(row, b.offset, linear);
    take(row + 1, b.offset + 1, linear);
    if (!b.has_angle) return;
    const AngleTerms t(b, q, v, s, what);
    // gamma = -(p_b'' - p_a''): d/dtheta of -sign p'' = sign omega^2 R' s.
    const double* x = what == RowDerivative::kJacobian ? t.dp
                      : what == RowDerivative::kRate   ? t.dp_rate
                                                       : t.dp_curvature;
    take(row, b.offset + 2, sign * x[0]);
    take(row + 1, b.offset + 2, sign * x[1]);
  }
  // sign u . p of a body point (one row): its entries on (x, y, theta) as `what` asks, for a
  // row whose gamma changes by -(a . dp + b . dp' + u . dp'') (ModelEquations::Projection).
  template <class P, class Take>
  static void ProjectedPointJacobian(const BodyRef& b, const double* q, const double* v,
                                     const Eigen::Vector2d& s, const P& p, double sign,
                                     RowDerivative what, int row, Take&& take) {
    if (b.offset < 0) return;
    const bool rate = what == RowDerivative::kRate, jacobian = what == RowDerivative::kJacobian;
    const double* x = jacobian ? p.u : rate ? p.u_rate : p.a;
    const double scale = jacobian || rate ? sign : -sign;
    take(row, b.offset, scale * x[0]);
    take(row, b.offset + 1, scale * x[1]);
    if (!b.has_angle) return;
    const AngleTerms t(b, q, v, s, what);
    double value = 0.0;
    for (int i = 0; i < 2; ++i) {
      if (jacobian)
        value += p.u[i] * t.dp[i];
      else if (rate)
        value += p.u_rate[i] * t.dp[i] + p.u[i] * t.dp_rate[i];
      else  // d/dtheta of p, p', p'' with their coefficients a, b, u
        value += p.a[i] * t.dp[i] + p.b[i] * t.dp_rate[i] - p.u[i] * t.dp_curvature[i];
    }
    take(row, b.offset + 2, scale * value);
  }
  // R'(theta) s and, as far as `what` needs them, d p'/dtheta = -omega R s and
  // -d p''/dtheta = omega^2 R' s (the sign gamma = -p'' gives).
  struct AngleTerms {
    double dp[2] = {}, dp_rate[2] = {}, dp_curvature[2] = {};
    AngleTerms(const BodyRef& b, const double* q, const double* v, const Eigen::Vector2d& s,
               RowDerivative what) {
      const double th = q[b.offset + 2];
      const auto [c, sn] = CosSinOf(th);
      const double rs[2] = {c * s.x() - sn * s.y(), sn * s.x() + c * s.y()};  // R s
      dp[0] = -rs[1];
      dp[1] = rs[0];
      if (what == RowDerivative::kJacobian) return;
      const double w = v[b.offset + 2];
      for (int i = 0; i < 2; ++i) {
        dp_rate[i] = -w * rs[i];
        dp_curvature[i] = w * w * dp[i];
      }
    }
  };
  // d^2/ds^2 of a body point along q + v s: -omega^2 R(theta) s (zero without an angle).
  static void PointCurvature(const BodyRef& b, const double* q, const double* v,
                             const Eigen::Vector2d& s, double* curvature) {
    curvature[0] = curvature[1] = 0.0;
    if (b.offset < 0 || !b.has_angle) return;
    const double th = q[b.offset + 2], w2 = v[b.offset + 2] * v[b.offset + 2];
    const auto [c, sn] = CosSinOf(th);
    curvature[0] = -w2 * (c * s.x() - sn * s.y());
    curvature[1] = -w2 * (sn * s.x() + c * s.y());
  }
  // On line, n . d with n = R(theta_a) n_a: the points' entries with u = n, u' = omega_a dn
  // and, for gamma = -(-omega_a^2 n . d + 2 omega_a dn . d' + n . d''), a = -omega_a^2 n,
  // b = 2 omega_a dn; and theta_a's entry through n (dn/dtheta = -n): dn . d, its rate
  // -omega_a n . d + dn . d', and -(-omega_a^2 dn . d - 2 omega_a n . d' + dn . d'').
  template <class Take>
  static void OnLineJacobian(const BodyRef& a, const BodyRef& b, const Eigen::Vector2d& sa,
                             const Eigen::Vector2d& sb, const JointFrame& f, const double* q,
                             const double* v, const double* d, const double* rate,
                             const double* curvature, RowDerivative what, int& row, Take&& take) {
    double n[2], dn[2];
    LineNormal(a, f, q, n, dn);
    const double w = what == RowDerivative::kJacobian ? 0.0 : AngularVelocityOf(a, v);
    struct {
      double u[2], u_rate[2], a[2], b[2];
    } p;
    for (int i = 0; i < 2; ++i) {
      p.u[i] = n[i];
      p.u_rate[i] = w * dn[i];
      p.a[i] = -w * w * n[i];
      p.b[i] = 2.0 * w * dn[i];
    }
    ProjectedPointJacobian(b, q, v, sb, p, 1.0, what, row, take);
    ProjectedPointJacobian(a, q, v, sa, p, -1.0, what, row, take);
    if (a.offset >= 0 && a.has_angle) {
      auto dot = [](const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1]; };
      const double value = what == RowDerivative::kJacobian ? dot(dn, d)
                           : what == RowDerivative::kRate
                               ? -w * dot(n, d) + dot(dn, rate)
                               : w * w * dot(dn, d) + 2.0 * w * dot(n, rate) - dot(dn, curvature);
      take(row, a.offset + 2, value);
    }
    ++row;
  }
  // n . d along q + v s: n'' . d + 2 n' . d' + n . d'', n' = omega_a dn, n'' = -omega_a^2 n;
  // `rate` = d', `curvature` = d''.
  static void OnLineGamma(const BodyRef& a, const JointFrame& f, const double* q, const double* v,
                          const double* d, const double* rate, const double* curvature,
                          double* gamma, int& row) {
    double n[2], dn[2];
    LineNormal(a, f, q, n, dn);
    const double w = AngularVelocityOf(a, v);
    double second = 0.0;
    for (int i = 0; i < 2; ++i)
      second += -w * w * n[i] * d[i] + 2.0 * w * dn[i] * rate[i] + n[i] * curvature[i];
    gamma[row++] = -second;
  }
  // The line normal R(theta_a) n_a and its derivative with respect to theta_a.
  static void LineNormal(const BodyRef& a, const JointFrame& f, const double* q, double* n,
                         double* dn) {
    const double th = AngleOf(a, q);
    const auto [c, sn] = CosSinOf(th);
    n[0] = c * f.normal_a.x() - sn * f.normal_a.y();
    n[1] = sn * f.normal_a.x() + c * f.normal_a.y();
    dn[0] = -n[1];
    dn[1] = n[0];
  }
  static double AngularVelocityOf(const BodyRef& b, const double* v) {
    return b.offset >= 0 && b.has_angle ? v[b.offset + 2] : 0.0;
  }
  // theta_b - theta_a: +1 and -1 (ground and point masses have no angle); linear in q, so
  // its rate and gamma's derivative are zero.
  template <class Take>
  static void RelativeAngleJacobian(const BodyRef& a, const BodyRef& b, const double*,
                                    const double*, RowDerivative what, int row, Take&& take) {
    const double one = what == RowDerivative::kJacobian ? 1.0 : 0.0;
    if (b.offset >= 0 && b.has_angle) take(row, b.offset + 2, one);
    if (a.offset >= 0 && a.has_angle) take(row, a.offset + 2, -one);
  }
  template <class Take>
  static void NoTwistJacobian(const BodyRef& a, const BodyRef& b, const JointFrame&,
                              const double* q, const double* v, RowDerivative what, int& row,
                              Take&& take) {
    RelativeAngleJacobian(a, b, q, v, what, row++, take);
  }
  template <class Take>
  static void FrameLockedJacobian(const BodyRef& a, const BodyRef& b, const JointFrame& f,
                                  const double* q, const double* v, RowDerivative what, int& row,
                                  Take&& take) {
    NoTwistJacobian(a, b, f, q, v, what, row, take);
  }
  static void NoTwistGamma(const BodyRef&, const BodyRef&, const JointFrame&, const double*,
                           const double*, double* gamma, int& row) {
    gamma[row++] = 0.0;  // linear in q
  }
  static void FrameLockedGamma(const BodyRef& a, const BodyRef& b, const JointFrame& f,
                               const double* q, const double* v, double* gamma, int& row) {
    NoTwistGamma(a, b, f, q, v, gamma, row);
  }
  // No rows in the plane (AxesParallel ... InPlane above; validation rejects the spatial
  // joints), and no intrinsic rows.
  template <class Take>
  static void AxesParallelJacobian(const BodyRef&, const BodyRef&, const JointFrame&, const double*,
                                   const double*, RowDerivative, int&, Take&&) {}
  template <class Take>
  static void AxesPerpendicularJacobian(const BodyRef&, const BodyRef&, const JointFrame&,
                                        const double*, const double*, RowDerivative, int&, Take&&) {
  }
  template <class Take>
  static void InPlaneJacobian(const BodyRef&, const BodyRef&, const Eigen::Vector2d&,
                              const Eigen::Vector2d&, const JointFrame&, const double*,
                              const double*, RowDerivative, int&, Take&&) {}
  template <class Take>
  static void IntrinsicRowsJacobian(const BodyRef&, const double*, const double*, RowDerivative,
                                    int&, Take&&) {}
  static void AxesParallelGamma(const BodyRef&, const BodyRef&, const JointFrame&, const double*,
                                const double*, double*, int&) {}
  static void AxesPerpendicularGamma(const BodyRef&, const BodyRef&, const JointFrame&,
                                     const double*, const double*, double*, int&) {}
  static void InPlaneGamma(const BodyRef&, const BodyRef&, const Eigen::Vector2d&,
                           const Eigen::Vector2d&, const JointFrame&, const double*, const double*,
                           double*, int&) {}
  static void IntrinsicRowsGamma(const BodyRef&, const double*, const double*, double*, int&) {}

  // Second derivatives by hand (model_equations.h, AddRowHessians): a body point's only one
  // is d^2 p / dtheta^2 = -R(theta) s; the angle rows are linear in q; no rows for the
  // axes and no intrinsic rows. add(i, j, value) of sum_r lambda_r d^2 Phi_r / dq_i dq_j.
  static constexpr bool kHasRowHessians = true;
  template <class Add>
  static void PointHessian(const BodyRef& b, const double* q, const Eigen::Vector2d& s,
                           const double* lambda, double sign, Add&& add) {
    if (b.offset < 0 || !b.has_angle) return;
    const double th = q[b.offset + 2];
    const auto [c, sn] = CosSinOf(th);
    const double rs[2] = {c * s.x() - sn * s.y(), sn * s.x() + c * s.y()};
    add(b.offset + 2, b.offset + 2, -sign * (lambda[0] * rs[0] + lambda[1] * rs[1]));
  }
  template <class Add>
  static void AxesParallelHessian(const BodyRef&, const BodyRef&, const JointFrame&, const double*,
                                  const double*, Add&&) {}
  template <class Add>
  static void AxesPerpendicularHessian(const BodyRef&, const BodyRef&, const JointFrame&,
                                       const double*, const double*, Add&&) {}
  template <class Add>
  static void FrameLockedHessian(const BodyRef&, const BodyRef&, const JointFrame&, const double*,
                                 const double*, Add&&) {}
  static int IntrinsicRowCount(const BodyRef&) { return 0; }
  template <class Add>
  static void IntrinsicHessian(const BodyRef&, const double*, Add&&) {}
  // diag(m, m, J).
  template <class T>
  static void MassBlock(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia, const T*,
                        T* m, int n) {
    const int o = b.offset;
    m[o + o * n] = T(mass);
    m[(o + 1) + (o + 1) * n] = T(mass);
    if (b.has_angle) m[(o + 2) + (o + 2) * n] = T(inertia(0, 0));
  }
  template <class T>
  static void VelocityForces(const BodyRef&, const Eigen::Matrix3d&, const T*, const T*, T*) {}
  // Linear (m r', 0); angular about the origin, z only: x m y' - y m x' + J theta'.
  static void AddMomenta(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia,
                         const double* q, const double* v, Eigen::Vector3d& linear,
                         Eigen::Vector3d& angular) {
    const int o = b.offset;
    linear.x() += mass * v[o];
    linear.y() += mass * v[o + 1];
    angular.z() += mass * (q[o] * v[o + 1] - q[o + 1] * v[o]);
    if (b.has_angle) angular.z() += inertia(0, 0) * v[o + 2];
  }

  // The glue (model_compiler.h).
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
  static void OutputPoint(const BodyRef& b, const double* q, const Eigen::Vector3d& s,
                          double p[3]) {
    PointOf(b, q, Xy(s), p);
    p[2] = 0.0;  // the plane
  }
  static void OutputPointVelocity(const BodyRef& b, const double* q, const double* v,
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
  const BodyIndex index(model);
  for (const auto& f : model.forces) {
    const std::string what = "force '" + f.name + "'";
    if (f.kind == ForceKind::kTorsionalSpring &&
        (index.Find(f.body_a, what) >= 0 &&
         model.bodies[index.Find(f.body_a, what)].kind == BodyKind::kPointMass))
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

FormulatedModel FormulatePlanar(ModelDescription model) {
  return CompileModel<PlanarKinematics>(std::move(model));
}

}  // namespace mbb
