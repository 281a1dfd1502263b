// The equations of a model, written once against a body-kinematics policy K (the joint
// library, drivers, force elements, mass matrix, momenta); the policy supplies what depends
// on the coordinate set (planar_formulation.cc: (x, y, theta); spatial_formulation.cc:
// Cartesian position + Euler parameters). Templated on the scalar, differentiated by
// EquationsDae (equations_dae.h).
//
// Every joint is a sequence of primitive row groups (d = p_b - p_a, the joint points):
//   coincide          d = 0                                              K::kDim rows
//   on line           d . n = 0 for the normals n of the line of a         K::kDim - 1
//   axes parallel     the axis of b parallel to that of a (K: 0 planar, 2 spatial)
//   axes perpendicular  (spatial universal)                                1
//   no twist          no relative rotation about the axis                  1
//   frame locked      no relative rotation                  (K: 1 planar, 3 spatial)
//   in plane          d . u_a = 0 (spatial planar joint)                   1
//   distance          (d . d - L^2) / (2 L) = 0                            1
//   revolute = coincide + axes parallel;  spherical = coincide;
//   universal = coincide + axes perpendicular;  cylindrical = on line + axes parallel;
//   prismatic = cylindrical + no twist;  planar = axes parallel + in plane;
//   fixed = coincide + frame locked;  point-on-line = on line.
// Drivers: a coordinate = law(t), or the relative angle (K) = law(t). After them, the
// policy's intrinsic rows per body (Euler parameters: e^T e = 1, paper 000 eq 61d).
// Gravity and spring potentials enter V; dampers, applied forces and torques enter the
// applied forces as J^T F.
//
// The policy K provides (T the scalar, Vec = Eigen::Matrix<double, kDim, 1>):
//   kDim, kConstantMass, BodyRef, JointFrame (per-joint constant data), and templated
//   Point, Rotate, PointVelocity, AddPointForce, AddTorque, RelativeAngle, the primitive
//   rows OnLine, AxesParallel, AxesPerpendicular, NoTwist, FrameLocked, InPlane, the
//   relative-angle driver row, TorsionalDamping, MassBlock, VelocityForces,
//   IntrinsicRows, and Momenta for doubles; optionally (kHasRowHessians) the second
//   derivatives of its point, rotated-vector and intrinsic rows by hand in doubles
//   (PointHessian, AxesParallelHessian, AxesPerpendicularHessian, FrameLockedHessian,
//   IntrinsicRowCount, IntrinsicHessian), which AddRowHessians assembles and EquationsDae
//   checks against dual numbers once per model; and optionally (kHasRowDerivatives) the
//   first derivatives of every row, their rates, gamma and d gamma / dq by hand in doubles
//   (PointJacobian, ProjectedPointJacobian, OnLineJacobian, the *Jacobian of the angle and
//   axis rows, PointCurvature, OnLineGamma, the *Gamma rows), which VisitRowDerivatives,
//   ConstraintTimeRate and ConstraintGamma assemble and EquationsDae checks likewise (the
//   planar policy; the rows' Phi_q must not depend on t).
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "problems/core/dual.h"
#include "problems/core/row_derivative.h"
#include "problems/model/model_description.h"

namespace mbb {

/// True if the policy K gives the first derivatives of its rows and their velocity terms
/// by hand (K::kHasRowDerivatives): then ModelEquations has VisitRowDerivatives and
/// ConstraintGamma in doubles, which EquationsDae uses instead of dual numbers and checks
/// against them once per model.
template <class K, class = void>
struct PolicyHasRowDerivatives : std::false_type {};
template <class K>
struct PolicyHasRowDerivatives<K, std::enable_if_t<K::kHasRowDerivatives>> : std::true_type {};

/// True if the policy K gives second derivatives of its rows by hand (K::kHasRowHessians).
template <class K, class = void>
struct PolicyHasRowHessians : std::false_type {};
template <class K>
struct PolicyHasRowHessians<K, std::enable_if_t<K::kHasRowHessians>> : std::true_type {};

template <class K>
struct ModelEquations {
  static constexpr int kDim = K::kDim;
  static constexpr bool kConstantMass = K::kConstantMass;
  using BodyRef = typename K::BodyRef;
  using Vec = Eigen::Matrix<double, kDim, 1>;

  struct Body {
    BodyRef ref;
    double mass = 0.0;
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  };
  struct Joint {
    JointKind kind = JointKind::kRevolute;
    BodyRef a, b;
    Vec sa = Vec::Zero(), sb = Vec::Zero();
    typename K::JointFrame frame;
    double length = 1.0;
  };
  struct Force {
    ForceKind kind = ForceKind::kGravity;
    BodyRef a, b;
    Vec sa = Vec::Zero(), sb = Vec::Zero(), vector = Vec::Zero();
    Eigen::Vector3d torque = Eigen::Vector3d::Zero();  // kTorque (planar: z)
    double stiffness = 0.0, damping = 0.0, rest = 0.0;
    TimeLaw law;
  };
  struct Driver {
    DriverKind kind = DriverKind::kCoordinate;
    BodyRef a, b;   // kRelativeAngle
    int index = 0;  // kCoordinate
    TimeLaw law;
  };

  int n = 0, m = 0;
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<Force> forces;
  std::vector<Driver> drivers;
  Vec gravity = Vec::Zero();

  int num_coordinates() const { return n; }
  int num_constraints() const { return m; }

  /// The primitive row groups of the header comment. A joint kind is a sequence of them
  /// (ForEachPrimitive, the one place that says which), and every function over the rows
  /// (Constraints, VisitRowDerivatives, ConstraintGamma) visits them in that order.
  enum class Primitive {
    kCoincide,
    kOnLine,
    kAxesParallel,
    kAxesPerpendicular,
    kNoTwist,
    kFrameLocked,
    kInPlane,
    kDistance
  };
  template <class Visit>
  static void ForEachPrimitive(JointKind kind, Visit&& visit) {
    switch (kind) {
      case JointKind::kRevolute:
        visit(Primitive::kCoincide);
        return visit(Primitive::kAxesParallel);
      case JointKind::kSpherical:
        return visit(Primitive::kCoincide);
      case JointKind::kUniversal:
        visit(Primitive::kCoincide);
        return visit(Primitive::kAxesPerpendicular);
      case JointKind::kCylindrical:
        visit(Primitive::kOnLine);
        return visit(Primitive::kAxesParallel);
      case JointKind::kPrismatic:
        visit(Primitive::kOnLine);
        visit(Primitive::kAxesParallel);
        return visit(Primitive::kNoTwist);
      case JointKind::kPlanar:
        visit(Primitive::kAxesParallel);
        return visit(Primitive::kInPlane);
      case JointKind::kFixed:
        visit(Primitive::kCoincide);
        return visit(Primitive::kFrameLocked);
      case JointKind::kPointOnLine:
        return visit(Primitive::kOnLine);
      case JointKind::kDistance:
        return visit(Primitive::kDistance);
    }
  }

  /// Rows of a primitive, and of a joint kind, for this policy.
  static int PrimitiveRowCount(Primitive p) {
    switch (p) {
      case Primitive::kCoincide:
        return kDim;
      case Primitive::kOnLine:
        return kDim - 1;
      case Primitive::kAxesParallel:
        return K::kAxesParallelRows;
      case Primitive::kFrameLocked:
        return K::kFrameLockedRows;
      case Primitive::kAxesPerpendicular:
      case Primitive::kNoTwist:
      case Primitive::kInPlane:
      case Primitive::kDistance:
        return 1;
    }
    return 0;
  }
  static int JointRowCount(JointKind kind) {
    int rows = 0;
    ForEachPrimitive(kind, [&](Primitive p) { rows += PrimitiveRowCount(p); });
    return rows;
  }

  template <class T>
  void Constraints(const T& t, const T* q, T* phi) const {
    int row = 0;
    for (const Joint& j : joints) {
      T pa[kDim], pb[kDim], d[kDim];
      K::Point(j.a, q, j.sa, pa);
      K::Point(j.b, q, j.sb, pb);
      for (int i = 0; i < kDim; ++i) d[i] = pb[i] - pa[i];
      ForEachPrimitive(j.kind, [&](Primitive p) {
        switch (p) {
          case Primitive::kCoincide:
            return Coincide(d, phi, row);
          case Primitive::kOnLine:
            return K::OnLine(j.a, j.frame, q, d, phi, row);
          case Primitive::kAxesParallel:
            return K::AxesParallel(j.a, j.b, j.frame, q, phi, row);
          case Primitive::kAxesPerpendicular:
            return K::AxesPerpendicular(j.a, j.b, j.frame, q, phi, row);
          case Primitive::kNoTwist:
            return K::NoTwist(j.a, j.b, j.frame, q, phi, row);
          case Primitive::kFrameLocked:
            return K::FrameLocked(j.a, j.b, j.frame, q, phi, row);
          case Primitive::kInPlane:
            return K::InPlane(j.a, j.frame, q, d, phi, row);
          case Primitive::kDistance:
            phi[row++] = (Dot(d, d) - j.length * j.length) / (2.0 * j.length);
            return;
        }
      });
    }
    for (const Driver& d : drivers) {
      if (d.kind == DriverKind::kCoordinate)
        phi[row++] = q[d.index] - d.law.Eval(t);
      else
        phi[row++] = K::RelativeAngleRow(d.a, d.b, q, d.law.Eval(t));
    }
    for (const Body& b : bodies) K::IntrinsicRows(b.ref, q, phi, row);
  }

  /// Phi_q, its rate along v or d gamma / dq by hand (PolicyHasRowDerivatives; `what`,
  /// row_derivative.h): take(row, col, value) for the structural entries of each row in the
  /// order of Constraints, a sequence of (row, col) fixed by the model whatever q, v and
  /// `what` (an entry met twice adds up). v is read only for kRate and kGammaJacobian. The
  /// policy's Phi_q does not depend on t (Phi_qt = 0), nor does d gamma / dq.
  static constexpr bool kHasHandConstraintDerivatives = PolicyHasRowDerivatives<K>::value;
  template <class Take>
  void VisitRowDerivatives(RowDerivative what, const double* q, const double* v,
                           Take&& take) const {
    int row = 0;
    for (const Joint& j : joints) {
      ForEachPrimitive(j.kind, [&](Primitive p) {
        switch (p) {
          case Primitive::kCoincide:
            K::PointJacobian(j.b, q, v, j.sb, 1.0, what, row, take);
            K::PointJacobian(j.a, q, v, j.sa, -1.0, what, row, take);
            row += kDim;
            return;
          case Primitive::kOnLine: {
            const JointMotion motion = Motion(j, q, v, what);
            return K::OnLineJacobian(j.a, j.b, j.sa, j.sb, j.frame, q, v, motion.d, motion.rate,
                                     motion.curvature, what, row, take);
          }
          case Primitive::kAxesParallel:
            return K::AxesParallelJacobian(j.a, j.b, j.frame, q, v, what, row, take);
          case Primitive::kAxesPerpendicular:
            return K::AxesPerpendicularJacobian(j.a, j.b, j.frame, q, v, what, row, take);
          case Primitive::kNoTwist:
            return K::NoTwistJacobian(j.a, j.b, j.frame, q, v, what, row, take);
          case Primitive::kFrameLocked:
            return K::FrameLockedJacobian(j.a, j.b, j.frame, q, v, what, row, take);
          case Primitive::kInPlane:
            return K::InPlaneJacobian(j.a, j.b, j.sa, j.sb, j.frame, q, v, what, row, take);
          case Primitive::kDistance: {
            // (d . d - L^2) / (2 L): Jacobian u . dd/dq with u = d / L, rate with u' = d' / L;
            // gamma = -(d' . d' + d . d'') / L changes by
            // -(d''/L . dd + 2 d'/L . dd' + u . dd'').
            const JointMotion motion = Motion(j, q, v, what);
            Projection pr;
            for (int i = 0; i < kDim; ++i) {
              pr.u[i] = motion.d[i] / j.length;
              pr.u_rate[i] = motion.rate[i] / j.length;
              pr.a[i] = motion.curvature[i] / j.length;
              pr.b[i] = 2.0 * motion.rate[i] / j.length;
            }
            K::ProjectedPointJacobian(j.b, q, v, j.sb, pr, 1.0, what, row, take);
            K::ProjectedPointJacobian(j.a, q, v, j.sa, pr, -1.0, what, row, take);
            ++row;
            return;
          }
        }
      });
    }
    for (const Driver& d : drivers) {  // linear in q, the law a function of t alone
      if (d.kind == DriverKind::kCoordinate)
        take(row, d.index, what == RowDerivative::kJacobian ? 1.0 : 0.0);
      else
        K::RelativeAngleJacobian(d.a, d.b, q, v, what, row, take);
      ++row;
    }
    for (const Body& b : bodies) K::IntrinsicRowsJacobian(b.ref, q, v, what, row, take);
  }

  /// A row u . d of a joint's separation d = p_b - p_a (on line, distance) for the policy's
  /// ProjectedPointJacobian: u and its rate u' along v; and the row's gamma, to first order
  /// in a change of q, changes by -(a . dd + b . dd' + u . dd'') where d' and d'' are d's
  /// first and second derivatives along q + v s.
  struct Projection {
    double u[kDim] = {}, u_rate[kDim] = {}, a[kDim] = {}, b[kDim] = {};
  };

  /// Phi_t by hand (PolicyHasRowDerivatives): only the drivers' rows, linear in q minus
  /// law(t), depend on t: -law'(t).
  template <class KK = K, std::enable_if_t<PolicyHasRowDerivatives<KK>::value, int> = 0>
  void ConstraintTimeRate(double t, double* phi_t) const {
    int row = 0;
    for (const Joint& j : joints) row += JointRowCount(j.kind);
    std::fill(phi_t, phi_t + row, 0.0);
    for (const Driver& d : drivers) phi_t[row++] = -d.law.Eval(Dual<double>(t, 1.0)).d;
    std::fill(phi_t + row, phi_t + m, 0.0);  // the policy's intrinsic rows
  }

  /// gamma = -d^2/ds^2 Phi(t + s, q + v s) by hand (PolicyHasRowDerivatives; the argument
  /// of EquationsDae::CalcGamma): the joints' rows from the points' velocities and their
  /// velocity-squared accelerations, the drivers' from the second derivative of their law.
  template <class KK = K, std::enable_if_t<PolicyHasRowDerivatives<KK>::value, int> = 0>
  void ConstraintGamma(double t, const double* q, const double* v, double* gamma) const {
    int row = 0;
    for (const Joint& j : joints) {
      double ca[kDim], cb[kDim];  // d^2/ds^2 of the joint points along q + v s
      K::PointCurvature(j.a, q, v, j.sa, ca);
      K::PointCurvature(j.b, q, v, j.sb, cb);
      ForEachPrimitive(j.kind, [&](Primitive p) {
        switch (p) {
          case Primitive::kCoincide:
            for (int i = 0; i < kDim; ++i) gamma[row++] = ca[i] - cb[i];
            return;
          case Primitive::kOnLine: {
            double d[kDim], rate[kDim], curvature[kDim];
            Separation(j, q, d);
            SeparationRate(j, q, v, rate);
            for (int i = 0; i < kDim; ++i) curvature[i] = cb[i] - ca[i];
            return K::OnLineGamma(j.a, j.frame, q, v, d, rate, curvature, gamma, row);
          }
          case Primitive::kAxesParallel:
            return K::AxesParallelGamma(j.a, j.b, j.frame, q, v, gamma, row);
          case Primitive::kAxesPerpendicular:
            return K::AxesPerpendicularGamma(j.a, j.b, j.frame, q, v, gamma, row);
          case Primitive::kNoTwist:
            return K::NoTwistGamma(j.a, j.b, j.frame, q, v, gamma, row);
          case Primitive::kFrameLocked:
            return K::FrameLockedGamma(j.a, j.b, j.frame, q, v, gamma, row);
          case Primitive::kInPlane:
            return K::InPlaneGamma(j.a, j.b, j.sa, j.sb, j.frame, q, v, gamma, row);
          case Primitive::kDistance: {
            // (d . d - L^2) / (2 L) along q + v s: (d' . d' + d . d'') / L.
            double d[kDim], rate[kDim];
            Separation(j, q, d);
            SeparationRate(j, q, v, rate);
            double second = 0.0;
            for (int i = 0; i < kDim; ++i) second += Square(rate[i]) + d[i] * (cb[i] - ca[i]);
            gamma[row++] = -second / j.length;
            return;
          }
        }
      });
    }
    // A driver row is linear in q (K: the relative angle too) minus law(t): gamma = law''.
    const Dual<Dual<double>> time(Dual<double>(t, 1.0), Dual<double>(1.0, 0.0));
    for (const Driver& d : drivers) gamma[row++] = d.law.Eval(time).d.d;
    for (const Body& b : bodies) K::IntrinsicRowsGamma(b.ref, q, v, gamma, row);
  }

  /// The rows whose second derivatives AddRowHessians gives (1) when the policy has them
  /// (PolicyHasRowHessians; else none): revolute, spherical, universal and fixed joints, the
  /// coordinate drivers (linear in q) and the intrinsic rows. EquationsDae takes the others
  /// by automatic differentiation.
  std::vector<char> RowsWithHessians() const {
    std::vector<char> rows(m, 0);
    if constexpr (PolicyHasRowHessians<K>::value) {
      VisitRowHessians(
          nullptr, nullptr,
          [&](int first, int count) {
            std::fill(rows.begin() + first, rows.begin() + first + count, 1);
          },
          [](int, int, double) {});
    }
    return rows;
  }

  /// add(i, j, value) for sum_r lambda_r d^2 Phi_r / dq_i dq_j over the rows of
  /// RowsWithHessians, in doubles: a sequence of (i, j) fixed by the model (whole blocks of
  /// the policy's rotation coordinates), whatever q and lambda.
  template <class Add>
  void AddRowHessians(const double* q, const double* lambda, Add&& add) const {
    if constexpr (PolicyHasRowHessians<K>::value)
      VisitRowHessians(
          q, lambda, [](int, int) {}, add);
  }

  template <class T>
  void MassMatrix(const T* q, T* mass) const {
    for (const Body& b : bodies) K::MassBlock(b.ref, b.mass, b.inertia, q, mass, n);
  }

  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    using std::sqrt;
    T energy(0.0);
    for (const Body& b : bodies) {  // uniform gravity: V = -m g . r
      T g_dot_r = gravity[0] * q[b.ref.offset];
      for (int i = 1; i < kDim; ++i) g_dot_r += gravity[i] * q[b.ref.offset + i];
      energy -= b.mass * g_dot_r;
    }
    for (const Force& f : forces) {
      if (f.kind == ForceKind::kSpringDamper && f.stiffness != 0.0) {
        T pa[kDim], pb[kDim], d[kDim];
        K::Point(f.a, q, f.sa, pa);
        K::Point(f.b, q, f.sb, pb);
        for (int i = 0; i < kDim; ++i) d[i] = pb[i] - pa[i];
        energy += 0.5 * f.stiffness * Square(sqrt(Dot(d, d)) - f.rest);
      } else if (f.kind == ForceKind::kTorsionalSpring && f.stiffness != 0.0) {
        energy += 0.5 * f.stiffness * Square(K::RelativeAngle(f.a, f.b, q) - f.rest);
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
          T pa[kDim], pb[kDim], va[kDim], vb[kDim], u[kDim];
          K::Point(f.a, q, f.sa, pa);
          K::Point(f.b, q, f.sb, pb);
          K::PointVelocity(f.a, q, v, f.sa, va);
          K::PointVelocity(f.b, q, v, f.sb, vb);
          for (int i = 0; i < kDim; ++i) u[i] = pb[i] - pa[i];
          const T length = sqrt(Dot(u, u));
          for (int i = 0; i < kDim; ++i) u[i] = u[i] / length;
          T rate = u[0] * (vb[0] - va[0]);
          for (int i = 1; i < kDim; ++i) rate += u[i] * (vb[i] - va[i]);
          T force[kDim];
          for (int i = 0; i < kDim; ++i) force[i] = -f.damping * rate * u[i];  // on b
          K::AddPointForce(f.b, q, f.sb, force, out);
          for (int i = 0; i < kDim; ++i) force[i] = -force[i];
          K::AddPointForce(f.a, q, f.sa, force, out);
          break;
        }
        case ForceKind::kTorsionalSpring:
          if (f.damping != 0.0) K::TorsionalDamping(f.a, f.b, q, v, f.damping, out);
          break;
        case ForceKind::kForce: {
          const T s = f.law.Eval(t);
          T force[kDim];
          for (int i = 0; i < kDim; ++i) force[i] = s * f.vector[i];
          K::AddPointForce(f.a, q, f.sa, force, out);
          break;
        }
        case ForceKind::kTorque:
          K::AddTorque(f.a, q, f.torque, f.law.Eval(t), out);
          break;
        case ForceKind::kGravity:
          break;
      }
    }
  }

  template <class T>
  void VelocityForces(const T* q, const T* v, T* out) const {
    for (const Body& b : bodies) K::VelocityForces(b.ref, b.inertia, q, v, out);
  }

  // Linear momentum and angular momentum about the origin (MechanicalDae::CalcMomenta).
  void Momenta(const double* q, const double* v, Eigen::Vector3d& linear,
               Eigen::Vector3d& angular) const {
    linear.setZero();
    angular.setZero();
    for (const Body& b : bodies) K::AddMomenta(b.ref, b.mass, b.inertia, q, v, linear, angular);
  }

 private:
  // The rows with hand-written Hessians, in the order of Constraints: rows(first, count)
  // for each run of them; with q and lambda also their Hessians into add.
  template <class Rows, class Add>
  void VisitRowHessians(const double* q, const double* lambda, Rows&& rows, Add&& add) const {
    const bool values = q != nullptr;
    int row = 0;
    for (const Joint& j : joints) {
      const int count = JointRowCount(j.kind);
      const double* l = values ? lambda + row : nullptr;
      bool handled = true;
      auto coincide = [&] {
        if (!values) return;
        K::PointHessian(j.b, q, j.sb, l, 1.0, add);
        K::PointHessian(j.a, q, j.sa, l, -1.0, add);
      };
      switch (j.kind) {
        case JointKind::kRevolute:
          coincide();
          if (values) K::AxesParallelHessian(j.a, j.b, j.frame, q, l + kDim, add);
          break;
        case JointKind::kSpherical:
          coincide();
          break;
        case JointKind::kUniversal:
          coincide();
          if (values) K::AxesPerpendicularHessian(j.a, j.b, j.frame, q, l + kDim, add);
          break;
        case JointKind::kFixed:
          coincide();
          if (values) K::FrameLockedHessian(j.a, j.b, j.frame, q, l + kDim, add);
          break;
        default:
          handled = false;
      }
      if (handled) rows(row, count);
      row += count;
    }
    for (const Driver& d : drivers) {
      if (d.kind == DriverKind::kCoordinate) rows(row, 1);  // linear in q: no Hessian
      ++row;
    }
    for (const Body& b : bodies) {
      const int count = K::IntrinsicRowCount(b.ref);
      if (count == 0) continue;
      rows(row, count);
      if (values) K::IntrinsicHessian(b.ref, lambda + row, add);
      row += count;
    }
  }

  // A joint's separation d = p_b - p_a and, as far as `what` needs them, its derivatives
  // d' and d'' along q + v s (zero otherwise).
  struct JointMotion {
    double d[kDim] = {}, rate[kDim] = {}, curvature[kDim] = {};
  };
  JointMotion Motion(const Joint& j, const double* q, const double* v, RowDerivative what) const {
    JointMotion m;
    Separation(j, q, m.d);
    if (what == RowDerivative::kJacobian) return m;
    SeparationRate(j, q, v, m.rate);
    if (what == RowDerivative::kRate) return m;
    double ca[kDim], cb[kDim];
    K::PointCurvature(j.a, q, v, j.sa, ca);
    K::PointCurvature(j.b, q, v, j.sb, cb);
    for (int i = 0; i < kDim; ++i) m.curvature[i] = cb[i] - ca[i];
    return m;
  }

  // d' = v_b - v_a of a joint's points along v.
  void SeparationRate(const Joint& j, const double* q, const double* v, double* rate) const {
    double va[kDim], vb[kDim];
    K::PointVelocity(j.a, q, v, j.sa, va);
    K::PointVelocity(j.b, q, v, j.sb, vb);
    for (int i = 0; i < kDim; ++i) rate[i] = vb[i] - va[i];
  }

  // d = p_b - p_a of a joint, in doubles.
  void Separation(const Joint& j, const double* q, double* d) const {
    double pa[kDim], pb[kDim];
    K::Point(j.a, q, j.sa, pa);
    K::Point(j.b, q, j.sb, pb);
    for (int i = 0; i < kDim; ++i) d[i] = pb[i] - pa[i];
  }

  template <class T>
  static T Dot(const T* a, const T* b) {
    T sum = a[0] * b[0];
    for (int i = 1; i < kDim; ++i) sum += a[i] * b[i];
    return sum;
  }
  template <class T>
  static void Coincide(const T* d, T* phi, int& row) {
    for (int i = 0; i < kDim; ++i) phi[row++] = d[i];
  }
};

}  // namespace mbb
