// Director formulation of a model (paper 002, Betsch & Leyendecker 2006, section 3.1): each
// rigid body in its centre of mass r and the body-frame vectors ("directors") d_I, the
// columns of its rotation matrix, so that a body point is linear in q (eq 16):
//   spatial:  q_i = (r, d1, d2, d3), 12 coordinates (eq 21)
//   planar:   q_i = (x, y, d1, d2),   6 coordinates (the same idea in the plane)
//   point mass: its position.
// The mass matrix is constant (eq 23): m I for r and the Euler tensor E = 1/2 tr(J) I - J
// (eqs 20, 158) for the directors, block (I, K) = E_IK I; in the plane E = J/2 I (so that
// J = E_11 + E_22). The inertia need not be diagonal (the body axes need not be principal).
// The rigidity of a body is the internal constraints (eq 24; Jacobian eq 25)
//   1/2 (d_I . d_I - 1) = 0,   d_I . d_K = 0 (I < K)          6 rows spatial, 3 planar.
// Every joint of the model layer (model_equations.h) becomes linear or quadratic in q:
// a body point r + s_I d_I is linear, a body vector u_I d_I linear, and every row is a
// difference of points or a dot product of two such vectors (the paper's S, C, R, P, E
// pairs, eqs 80, 100, 119, 129, 139, are among them). This is what makes the mid-point
// constraint Jacobian the exact discrete derivative (paper 002 eq 67) for the
// energy-momentum methods (methods/energy_momentum/).
//   planar no twist / frame locked:  sin(phi - phi0) = (d1_a x d1_b) cos phi0
//                                    - (d1_a . d1_b) sin phi0, phi the relative angle
//   relative-angle driver:           the same with phi0 = law(t)
//   spatial relative angle about a's z: with R = A_a^T A_b (R_IK = d_I^a . d_K^b), the
//     twist angle atan2(R_10 - R_01, R_00 + R_11) (= 2 atan2(e_z, e_w) of the relative
//     quaternion); its driver row (R_10 - R_01)/2 cos(law) - (R_00 + R_11)/2 sin(law).
// Angular velocity w = 1/2 sum_I d_I x d_I'; a torque t enters the directors as
// f_I = 1/2 t x d_I (so that sum_I d_I x f_I = t on the constraint manifold).
// Relative angles (torsional springs, angle outputs) come from atan2 and wrap at +-pi.
// A driver on a body's "angle" coordinate has no linear form here and is refused.
#include <Eigen/Geometry>
#include <cmath>
#include <set>

#include "problems/core/parameters.h"
#include "problems/model/model_compiler.h"

namespace mbb {
namespace {

using V3 = Eigen::Vector3d;

struct BodyRef {
  int offset = -1;  // -1: ground
  bool rigid = false;
};

template <int Dim>
struct DirectorKinematics {
  using BodyRef = mbb::BodyRef;
  using Vec = Eigen::Matrix<double, Dim, 1>;
  static constexpr int kDim = Dim;
  static constexpr int kRigidSize = Dim + Dim * Dim, kPointSize = Dim;
  static constexpr int kRigidAngleSlot = -1;  // directors: bounded, no angle
  static constexpr int kRigidQuaternionSlot = -1;
  static constexpr BodyLayout kRigidLayout =
      Dim == 3 ? BodyLayout::kSpatialDirectors : BodyLayout::kPlanarDirectors;
  static constexpr BodyLayout kPointLayout =
      Dim == 3 ? BodyLayout::kSpatialPoint : BodyLayout::kPlanarPoint;
  static constexpr bool kAngleOutputsWrap = true;  // an atan2 of the directors
  static constexpr int kAxesParallelRows = Dim == 3 ? 2 : 0;
  static constexpr int kFrameLockedRows = Dim == 3 ? 3 : 1;
  static constexpr bool kConstantMass = true;
  // Joint constants: the axis u_a of body a with its perpendiculars f_a, g_a (a's frame),
  // the axis h_b and k_b (b's frame, k_b perpendicular to f_a at the stated pose), a's
  // axes in b's frame at the stated pose (spatial fixed joint); the line normal in a's frame
  // and the relative angle of the stated pose (planar).
  struct JointFrame {
    V3 ua = V3::UnitZ(), fa = V3::UnitX(), ga = V3::UnitY(), hb = V3::UnitZ(), kb = V3::UnitY();
    V3 frame_b[3] = {V3::UnitX(), V3::UnitY(), V3::UnitZ()};
    Vec normal_a = Vec::Unit(1);
    double angle0 = 0.0;
  };

  static BodyRef Ref(int offset, bool rigid) { return {offset, rigid}; }
  static Vec InDimension(const V3& v) { return v.head<Dim>(); }
  static int CoordinateIndex(const std::string& c) { return c[0] - 'x'; }

  // The director d_I of a rigid body (I = 0..Dim-1) starts at q + DirectorOffset(b, I).
  static int DirectorOffset(const BodyRef& b, int director) {
    return b.offset + Dim + Dim * director;
  }

  // Global vector of body-fixed u: u_I d_I (eq 16), or u itself for ground and point masses.
  template <class T, class U>
  static void Rotate(const BodyRef& b, const T* q, const U& u, T* out) {
    if (b.offset < 0 || !b.rigid) {
      for (int i = 0; i < Dim; ++i) out[i] = T(u[i]);
      return;
    }
    for (int i = 0; i < Dim; ++i) out[i] = T(0.0);
    for (int k = 0; k < Dim; ++k) {
      const T* d = q + DirectorOffset(b, k);
      for (int i = 0; i < Dim; ++i) out[i] += u[k] * d[i];
    }
  }

  template <class T>
  static T Dot(const T* a, const T* b) {
    T sum = a[0] * b[0];
    for (int i = 1; i < Dim; ++i) sum += a[i] * b[i];
    return sum;
  }

  // Kinematics (model_equations.h).
  template <class T>
  static void Point(const BodyRef& b, const T* q, const Vec& s, T* p) {
    Rotate(b, q, s, p);
    if (b.offset >= 0)
      for (int i = 0; i < Dim; ++i) p[i] += q[b.offset + i];
  }
  // p' = r' + s_I d_I'.
  template <class T>
  static void PointVelocity(const BodyRef& b, const T* /*q*/, const T* v, const Vec& s, T* pv) {
    if (b.offset < 0) {
      for (int i = 0; i < Dim; ++i) pv[i] = T(0.0);
      return;
    }
    for (int i = 0; i < Dim; ++i) pv[i] = v[b.offset + i];
    if (!b.rigid) return;
    for (int k = 0; k < Dim; ++k)
      for (int i = 0; i < Dim; ++i) pv[i] += s[k] * v[DirectorOffset(b, k) + i];
  }
  // f += J^T F: F on r and s_I F on d_I.
  template <class T>
  static void AddPointForce(const BodyRef& b, const T* /*q*/, const Vec& s, const T* force, T* f) {
    if (b.offset < 0) return;
    for (int i = 0; i < Dim; ++i) f[b.offset + i] += force[i];
    if (!b.rigid) return;
    for (int k = 0; k < Dim; ++k)
      for (int i = 0; i < Dim; ++i) f[DirectorOffset(b, k) + i] += s[k] * force[i];
  }
  // A global torque t (planar: its z component) as f_I = 1/2 t x d_I.
  template <class T>
  static void AddTorqueVector(const BodyRef& b, const T* q, const T* t, T* f) {
    if (b.offset < 0 || !b.rigid) return;
    for (int k = 0; k < Dim; ++k) {
      const T* d = q + DirectorOffset(b, k);
      T* fd = f + DirectorOffset(b, k);
      if constexpr (Dim == 3) {
        fd[0] += 0.5 * (t[1] * d[2] - t[2] * d[1]);
        fd[1] += 0.5 * (t[2] * d[0] - t[0] * d[2]);
        fd[2] += 0.5 * (t[0] * d[1] - t[1] * d[0]);
      } else {  // z x d = (-d_y, d_x)
        fd[0] -= 0.5 * t[2] * d[1];
        fd[1] += 0.5 * t[2] * d[0];
      }
    }
  }
  template <class T>
  static void AddTorque(const BodyRef& b, const T* q, const V3& torque, const T& scale, T* f) {
    T t[3];
    for (int i = 0; i < 3; ++i) t[i] = scale * torque[i];
    AddTorqueVector(b, q, t, f);
  }
  // Global angular velocity w = 1/2 sum_I d_I x d_I' (3 components; planar: z only).
  template <class T>
  static void AngularVelocity(const BodyRef& b, const T* q, const T* v, T* w) {
    for (int i = 0; i < 3; ++i) w[i] = T(0.0);
    if (b.offset < 0 || !b.rigid) return;
    for (int k = 0; k < Dim; ++k) {
      const T* d = q + DirectorOffset(b, k);
      const T* dd = v + DirectorOffset(b, k);
      if constexpr (Dim == 3) {
        w[0] += 0.5 * (d[1] * dd[2] - d[2] * dd[1]);
        w[1] += 0.5 * (d[2] * dd[0] - d[0] * dd[2]);
      }
      w[2] += 0.5 * (d[0] * dd[1] - d[1] * dd[0]);
    }
  }
  // (sin, cos) of the rotation of b relative to a about a's z axis, times a common positive
  // factor (1 for a pure rotation about z; the header comment).
  template <class T>
  static void RelativeSinCos(const BodyRef& a, const BodyRef& b, const T* q, T& s, T& c) {
    T ax[Dim], ay[Dim], bx[Dim], by[Dim];
    Rotate(a, q, Vec(Vec::Unit(0)), ax);
    Rotate(a, q, Vec(Vec::Unit(1)), ay);
    Rotate(b, q, Vec(Vec::Unit(0)), bx);
    Rotate(b, q, Vec(Vec::Unit(1)), by);
    s = 0.5 * (Dot(ay, bx) - Dot(ax, by));  // (R_10 - R_01) / 2
    c = 0.5 * (Dot(ax, bx) + Dot(ay, by));  // (R_00 + R_11) / 2
  }
  template <class T>
  static T RelativeAngle(const BodyRef& a, const BodyRef& b, const T* q) {
    using std::atan2;
    T s, c;
    RelativeSinCos(a, b, q, s, c);
    return atan2(s, c);
  }
  template <class T>
  static T RelativeAngleRow(const BodyRef& a, const BodyRef& b, const T* q, const T& law) {
    using std::cos;
    using std::sin;
    T s, c;
    RelativeSinCos(a, b, q, s, c);
    return s * cos(law) - c * sin(law);
  }
  template <class T>
  static void OnLine(const BodyRef& a, const JointFrame& j, const T* q, const T* d, T* phi,
                     int& row) {
    if (Dim == 2) {
      T n[Dim];
      Rotate(a, q, j.normal_a, n);
      phi[row++] = Dot(n, d);
      return;
    }
    T f[Dim], g[Dim];
    Rotate(a, q, j.fa, f);
    Rotate(a, q, j.ga, g);
    phi[row++] = Dot(f, d);
    phi[row++] = Dot(g, d);
  }
  template <class T>
  static void AxesParallel(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                           T* phi, int& row) {
    if (Dim == 2) return;  // every axis is z
    T f[Dim], g[Dim], h[Dim];
    Rotate(a, q, j.fa, f);
    Rotate(a, q, j.ga, g);
    Rotate(b, q, j.hb, h);
    phi[row++] = Dot(f, h);
    phi[row++] = Dot(g, h);
  }
  template <class T>
  static void AxesPerpendicular(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                                T* phi, int& row) {
    if (Dim == 2) return;  // no planar universal joint (validation)
    T u[Dim], h[Dim];
    Rotate(a, q, j.ua, u);
    Rotate(b, q, j.hb, h);
    phi[row++] = Dot(u, h);
  }
  template <class T>
  static void InPlane(const BodyRef& a, const JointFrame& j, const T* q, const T* d, T* phi,
                      int& row) {
    if (Dim == 2) return;  // no planar-joint kind in a planar model (validation)
    T u[Dim];
    Rotate(a, q, j.ua, u);
    phi[row++] = Dot(u, d);
  }
  template <class T>
  static void NoTwist(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q, T* phi,
                      int& row) {
    if (Dim == 2) {
      phi[row++] = RelativeAngleRow(a, b, q, T(j.angle0));
      return;
    }
    T f[Dim], k[Dim];
    Rotate(a, q, j.fa, f);
    Rotate(b, q, j.kb, k);
    phi[row++] = Dot(f, k);
  }
  template <class T>
  static void FrameLocked(const BodyRef& a, const BodyRef& b, const JointFrame& j, const T* q,
                          T* phi, int& row) {
    if (Dim == 2) {
      NoTwist(a, b, j, q, phi, row);
      return;
    }
    for (int c = 0; c < 3; ++c) {
      T ax[Dim], bx[Dim];
      Rotate(a, q, Vec(Vec::Unit(c)), ax);
      Rotate(b, q, j.frame_b[(c + 1) % 3], bx);
      phi[row++] = Dot(ax, bx);
    }
  }
  // Torque -c (w_b - w_a) . z_a about a's z axis, on b, and its reaction on a.
  template <class T>
  static void TorsionalDamping(const BodyRef& a, const BodyRef& b, const T* q, const T* v,
                               double damping, T* out) {
    T wa[3], wb[3], axis[3] = {T(0.0), T(0.0), T(1.0)};
    AngularVelocity(a, q, v, wa);
    AngularVelocity(b, q, v, wb);
    if (Dim == 3) Rotate(a, q, Vec(Vec::Unit(Dim - 1)), axis);
    T rate(0.0);
    for (int i = 0; i < 3; ++i) rate += (wb[i] - wa[i]) * axis[i];
    T torque[3];
    for (int i = 0; i < 3; ++i) torque[i] = -damping * rate * axis[i];
    AddTorqueVector(b, q, torque, out);
    for (int i = 0; i < 3; ++i) torque[i] = -torque[i];
    AddTorqueVector(a, q, torque, out);
  }
  // Internal constraints (eq 24): 1/2 (d_I . d_I - 1) = 0, then d_I . d_K = 0 for I < K.
  template <class T>
  static void IntrinsicRows(const BodyRef& b, const T* q, T* phi, int& row) {
    if (!b.rigid) return;
    for (int k = 0; k < Dim; ++k) {
      const T* d = q + DirectorOffset(b, k);
      phi[row++] = 0.5 * (Dot(d, d) - 1.0);
    }
    for (int k = 0; k < Dim; ++k)
      for (int l = k + 1; l < Dim; ++l)
        phi[row++] = Dot(q + DirectorOffset(b, k), q + DirectorOffset(b, l));
  }
  static std::vector<std::string> IntrinsicRowNames(const BodyDescription& body, bool rigid) {
    std::vector<std::string> names;
    if (!rigid) return names;
    const std::string of = " of body '" + body.name + "'";
    for (int k = 1; k <= Dim; ++k)
      names.push_back("director d" + std::to_string(k) + " unit length" + of);
    for (int k = 1; k <= Dim; ++k)
      for (int l = k + 1; l <= Dim; ++l)
        names.push_back("directors d" + std::to_string(k) + ", d" + std::to_string(l) +
                        " orthogonal" + of);
    return names;
  }
  // The Euler tensor about the centre of mass in body axes (eq 20 solved for E, eq 158).
  static Eigen::Matrix<double, Dim, Dim> EulerTensor(const Eigen::Matrix3d& inertia) {
    if (Dim == 2) return 0.5 * inertia(0, 0) * Eigen::Matrix<double, Dim, Dim>::Identity();
    const Eigen::Matrix3d e = 0.5 * inertia.trace() * Eigen::Matrix3d::Identity() - inertia;
    return e.topLeftCorner<Dim, Dim>();
  }
  // Constant mass matrix (eq 23): m I for r, E_IK I for (d_I, d_K).
  template <class T>
  static void MassBlock(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia, const T*,
                        T* m, int n) {
    const int o = b.offset;
    for (int i = 0; i < Dim; ++i) m[(o + i) + (o + i) * n] = T(mass);
    if (!b.rigid) return;
    const auto e = EulerTensor(inertia);
    for (int k = 0; k < Dim; ++k)
      for (int l = 0; l < Dim; ++l)
        for (int i = 0; i < Dim; ++i)
          m[(DirectorOffset(b, k) + i) + (DirectorOffset(b, l) + i) * n] = T(e(k, l));
  }
  template <class T>
  static void VelocityForces(const BodyRef&, const Eigen::Matrix3d&, const T*, const T*, T*) {}
  // Linear m r'; angular about the origin r x m r' + sum_IK E_IK d_I x d_K'.
  static void AddMomenta(const BodyRef& b, double mass, const Eigen::Matrix3d& inertia,
                         const double* q, const double* v, V3& linear, V3& angular) {
    auto lift = [](const double* x) {
      V3 out = V3::Zero();
      for (int i = 0; i < Dim; ++i) out[i] = x[i];
      return out;
    };
    const V3 r = lift(q + b.offset), rd = lift(v + b.offset);
    linear += mass * rd;
    angular += r.cross(mass * rd);
    if (!b.rigid) return;
    const auto e = EulerTensor(inertia);
    for (int k = 0; k < Dim; ++k)
      for (int l = 0; l < Dim; ++l)
        angular += e(k, l) * lift(q + DirectorOffset(b, k)).cross(lift(v + DirectorOffset(b, l)));
  }

  // The glue (model_compiler.h).
  static Eigen::Matrix3d InitialRotationOf(const BodyDescription& b) {
    if (Dim == 2) return Eigen::AngleAxisd(b.angle, V3::UnitZ()).toRotationMatrix();
    const Eigen::Vector4d& e = b.orientation;
    return Eigen::Quaterniond(e[0], e[1], e[2], e[3]).normalized().toRotationMatrix();
  }
  static Eigen::Matrix3d InitialRotation(const ModelDescription& model, int body) {
    if (body < 0 || model.bodies[body].kind == BodyKind::kPointMass)
      return Eigen::Matrix3d::Identity();
    return InitialRotationOf(model.bodies[body]);
  }
  static JointFrame MakeJointFrame(const ModelDescription& model, const BodyIndex& index,
                                   const JointDescription& jd) {
    const std::string what = "joint '" + jd.name + "'";
    JointFrame f;
    const int ia = index.Find(jd.body_a, what);
    const int ib = index.Find(jd.body_b, what);
    const Eigen::Matrix3d ra = InitialRotation(model, ia), rb = InitialRotation(model, ib);
    if constexpr (Dim == 2) {
      const Eigen::Vector2d axis = jd.axis_a.head<2>();
      if (axis.norm() > 0.0) f.normal_a = Eigen::Vector2d(-axis.y(), axis.x()).normalized();
      const V3 x = ra.transpose() * rb.col(0);  // b's x axis in a's frame
      f.angle0 = std::atan2(x.y(), x.x());
      return f;
    }
    f.ua = jd.axis_a.norm() > 0.0 ? V3(jd.axis_a.normalized()) : V3(V3::UnitZ());
    PerpendicularPair(f.ua, f.fa, f.ga);
    f.hb = jd.axis_b.norm() > 0.0 ? V3(jd.axis_b.normalized()) : V3(V3::UnitZ());
    f.kb = rb.transpose() * ra * f.ga;  // perpendicular to f_a at the initial pose
    for (int c = 0; c < 3; ++c) f.frame_b[c] = rb.transpose() * ra * V3::Unit(c);
    return f;
  }
  // d_I = R e_I, d_I' = w x d_I.
  static void Pose(const BodyDescription& b, bool rigid, int o, Vector& q, Vector& v) {
    q.segment(o, Dim) = b.position.head<Dim>();
    v.segment(o, Dim) = b.velocity.head<Dim>();
    if (!rigid) return;
    const Eigen::Matrix3d r = InitialRotationOf(b);
    const V3 w = Dim == 2 ? V3(0.0, 0.0, b.angular_velocity.z()) : b.angular_velocity;
    for (int k = 0; k < Dim; ++k) {
      const V3 d = r.col(k);
      q.segment(o + Dim + Dim * k, Dim) = d.head<Dim>();
      v.segment(o + Dim + Dim * k, Dim) = w.cross(d).head<Dim>();
    }
  }
  // Held values as linear rows: positions and velocities as unit rows; an orientation as
  // the rows d_K0 . d_I = 0 (I < K, d_K0 the stated directors), which vanish at the stated
  // pose and fix its rotation (planar: perp(d1_0) . d1); an angular velocity component as
  // its row of w = 1/2 sum_I d_I x d_I'.
  static void HoldRows(const BodyDescription&, const Vector& q, int o, const std::string& h,
                       std::vector<Eigen::RowVectorXd>& rows, bool& velocity) {
    const int n = static_cast<int>(q.size());
    velocity = h[0] == 'v' || h[0] == 'w' || h == "omega";
    if (h == "x" || h == "y" || h == "z")
      rows.push_back(Eigen::RowVectorXd::Unit(n, o + h[0] - 'x'));
    if (h == "vx" || h == "vy" || h == "vz")
      rows.push_back(Eigen::RowVectorXd::Unit(n, o + h[1] - 'x'));
    auto director = [&](int k) { return q.segment(o + Dim + Dim * k, Dim); };
    if (h == "angle") {  // planar: perp(d1_0) . d1
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
      row[o + Dim] = -q[o + Dim + 1];
      row[o + Dim + 1] = q[o + Dim];
      rows.push_back(row);
    }
    if (h == "orientation")
      for (int k = 0; k < Dim; ++k)
        for (int l = k + 1; l < Dim; ++l) {
          Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
          row.segment(o + Dim + Dim * k, Dim) = director(l).transpose();
          rows.push_back(row);
        }
    if (h == "omega" || h == "wx" || h == "wy" || h == "wz") {
      const int c = h == "omega" ? 2 : h[1] - 'x';
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
      for (int k = 0; k < Dim; ++k) {
        V3 d = V3::Zero();
        d.head<Dim>() = director(k);
        // w_c = 1/2 e_c . (d x d') = 1/2 (e_c x d) . d'.
        const V3 coefficients = 0.5 * V3::Unit(c).cross(d);
        for (int i = 0; i < Dim; ++i) row[o + Dim + Dim * k + i] = coefficients[i];
      }
      rows.push_back(row);
    }
  }
  static void OutputPoint(const BodyRef& b, const double* q, const V3& s, double p[3]) {
    p[2] = 0.0;
    Point(b, q, Vec(s.head<Dim>()), p);
  }
  static void OutputPointVelocity(const BodyRef& b, const double* q, const double* v, const V3& s,
                                  double pv[3]) {
    pv[2] = 0.0;
    PointVelocity(b, q, v, Vec(s.head<Dim>()), pv);
  }
  static Eigen::Matrix3d Rotation(const BodyRef& b, const double* q) {
    Eigen::Matrix3d a = Eigen::Matrix3d::Identity();
    if (b.offset < 0 || !b.rigid) return a;
    for (int k = 0; k < Dim; ++k)
      for (int i = 0; i < Dim; ++i) a(i, k) = q[DirectorOffset(b, k) + i];
    return a;
  }
  // Rotation angle about `axis` of the body relative to the reference (axis in the
  // reference's frame): 2 atan2(e . axis, e_w) of the relative rotation's quaternion, as
  // the Euler-parameter formulation computes it.
  static double Angle(const BodyRef& body, const BodyRef& reference, const V3& axis,
                      const double* q) {
    if (Dim == 2) return RelativeAngle(reference, body, q);
    const Eigen::Matrix3d relative = Rotation(reference, q).transpose() * Rotation(body, q);
    const Eigen::Quaterniond e(relative);
    return 2.0 * std::atan2(axis.dot(e.vec()), e.w());
  }
};

}  // namespace

void ValidateDirectorModel(const ModelDescription& model) {
  if (model.dimension == 2)
    ValidatePlanarModel(model);
  else
    ValidateEulerParameterModel(model);
  for (const auto& d : model.drivers)
    if (d.kind == DriverKind::kCoordinate && d.coordinate == "angle")
      throw InputError(model.Where() + ": driver '" + d.name +
                       "' drives coordinate 'angle', which the directors formulation does not "
                       "have (drive a relative angle instead)");
}

FormulatedModel FormulateDirectors(ModelDescription model) {
  if (model.dimension == 2) return CompileModel<DirectorKinematics<2>>(std::move(model));
  return CompileModel<DirectorKinematics<3>>(std::move(model));
}

}  // namespace mbb
