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

#include "problems/core/parameters.h"
#include "problems/model/euler_parameters.h"
#include "problems/model/model_compiler.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;
using namespace euler_parameters;  // the algebra of eq (62) (euler_parameters.h)

// Rotation of the stated initial pose (identity for ground and point masses).
Eigen::Matrix3d InitialRotation(const ModelDescription& model, int body) {
  if (body < 0 || model.bodies[body].kind == BodyKind::kPointMass)
    return Eigen::Matrix3d::Identity();
  const Eigen::Vector4d& e = model.bodies[body].orientation;
  return Eigen::Quaterniond(e[0], e[1], e[2], e[3]).normalized().toRotationMatrix();
}

// The body-kinematics policy (model_compiler.h, model_equations.h).
struct EulerParameterKinematics {
  using BodyRef = euler_parameters::BodyRef;
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
    euler_parameters::PointVelocity(b, q, v, s, pv);
  }
  template <class T>
  static void AddPointForce(const BodyRef& b, const T* q, const V3& s, const T* force, T* f) {
    euler_parameters::AddPointForce(b, q, s, force, f);
  }
  // A global torque `torque` * scale: 2 Ebar^T t.
  template <class T>
  static void AddTorque(const BodyRef& b, const T* q, const V3& torque, const T& scale, T* f) {
    T vec[3];
    for (int i = 0; i < 3; ++i) vec[i] = scale * torque[i];
    euler_parameters::AddTorque(b, q, vec, f);
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
    euler_parameters::AddTorque(b, q, torque, out);
    for (int i = 0; i < 3; ++i) torque[i] = -torque[i];
    euler_parameters::AddTorque(a, q, torque, out);
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
    euler_parameters::PointVelocity(b, q, v, s, pv);
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

FormulatedModel FormulateSpatialEuler(ModelDescription model) {
  return CompileModel<EulerParameterKinematics>(std::move(model));
}

}  // namespace mbb
