// Andrews' squeezing mechanism in the seven relative angles of the Test Set for IVP
// Solvers (problem "andrews"; Hairer & Wanner, Solving ODEs II, sec. VII.7; cited as the
// IFToMM/test-set problem in paper 001 s6). Transcribed from reference/andrews_squeezer/
// source.md sections 2.3-2.5: q = (beta, Theta, gamma, Phi, delta, Omega, epsilon),
//   M(q) q'' = f(q, q') - G(q)^T lambda,   g(q) = 0 (6 constraints),
// with the 42 parameters of section 2.3 and the consistent initial values of section 2.5.
// Split of f (section 2.4) over the EquationsDae interface:
//   spring  V = c0 (L - l0)^2 / 2: -dV/dgamma is the test set's f3 (F = -c0 (L - l0)/L);
//   torque  mom on beta (applied force; its work enters the energy balance);
//   quadratic-velocity terms of f1, f2, f4..f7 (VelocityForces).
// No gravity. End time 0.03 s. The reference at t = 0.03 is in reference/andrews_squeezer.
//
// `form = model` builds the same mechanism through the model layer (docs/problems.md): 7 planar
// bodies in (x, y, theta), 10 revolute joints, the spring C-D, the torque on the crank.
// Body geometry read off the test-set equations: absolute angles theta = (beta,
// beta + Theta, gamma, Phi + delta, delta, Omega + epsilon, epsilon); crank about O = 0
// with its centre of mass at ra; rod 2 from the crank pin P (rr) to the common point E
// (length d, centre of mass da from P); body 3 about B = (xb, yb) with E at ss and the
// spring point D at (sd, -sc); body 5 about A with the pin F at zt; body 4 from F to E
// (length e, centre of mass ea from E); body 7 about A with the pin G at u; body 6 from
// G to E (length zf, centre of mass fa from E). Bodies 3, 5, 7 turn about fixed points in
// a field-free plane, so only the distance of their centres of mass (sqrt(sa^2 + sb^2),
// ...) matters; the mass-matrix entries of section 2.4 follow from this geometry.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

// Section 2.3, exact decimal literals.
constexpr double m1 = 0.04325, m2 = 0.00365, m3 = 0.02373, m4 = 0.00706, m5 = 0.07050, m6 = 0.00706,
                 m7 = 0.05498;
constexpr double xa = -0.06934, ya = -0.00227, xb = -0.03635, yb = 0.03273, xc = 0.014, yc = 0.072,
                 c0 = 4530;
constexpr double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                 i6 = 5.667e-7, i7 = 1.912e-5;
constexpr double d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5,
                 l0 = 7785e-5, ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2,
                 ta = 2308e-5, tb = 916e-5, u = 4e-2, ua = 1228e-5, ub = 449e-5, zf = 2e-2,
                 zt = 4e-2, fa = 1421e-5, mom = 33e-3;

struct AndrewsEquations {
  static constexpr bool kConstantMass = false;
  int num_coordinates() const { return 7; }
  int num_constraints() const { return 6; }

  template <class T>
  void Constraints(const T& /*t*/, const T* q, T* g) const {  // section 2.4, g1..g6
    using std::cos;
    using std::sin;
    const T &beta = q[0], &theta = q[1], &gamma = q[2], &phi = q[3], &delta = q[4], &omega = q[5],
            &epsilon = q[6];
    const T cbt = cos(beta + theta), sbt = sin(beta + theta);
    const T cpd = cos(phi + delta), spd = sin(phi + delta);
    const T coe = cos(omega + epsilon), soe = sin(omega + epsilon);
    g[0] = rr * cos(beta) - d * cbt - ss * sin(gamma) - xb;
    g[1] = rr * sin(beta) - d * sbt + ss * cos(gamma) - yb;
    g[2] = rr * cos(beta) - d * cbt - e * spd - zt * cos(delta) - xa;
    g[3] = rr * sin(beta) - d * sbt + e * cpd - zt * sin(delta) - ya;
    g[4] = rr * cos(beta) - d * cbt - zf * coe - u * sin(epsilon) - xa;
    g[5] = rr * sin(beta) - d * sbt - zf * soe + u * cos(epsilon) - ya;
  }

  // g_q by hand (the right-hand side's largest cost by automatic differentiation, four dual
  // passes of six sines and cosines): rows 0, 2, 4 share x = rr cos(beta) - d cos(beta +
  // theta), rows 1, 3, 5 share y = rr sin(beta) - d sin(beta + theta).
  void ConstraintJacobian(double /*t*/, const double* q, MatrixRef j) const {
    const double beta = q[0], theta = q[1], gamma = q[2], phi = q[3], delta = q[4], omega = q[5],
                 epsilon = q[6];
    const double cbt = std::cos(beta + theta), sbt = std::sin(beta + theta);
    const double cpd = std::cos(phi + delta), spd = std::sin(phi + delta);
    const double coe = std::cos(omega + epsilon), soe = std::sin(omega + epsilon);
    j.setZero();
    for (int r = 0; r < 6; r += 2) {
      j(r, 0) = -rr * std::sin(beta) + d * sbt;  // dx/dbeta
      j(r, 1) = d * sbt;                         // dx/dtheta
      j(r + 1, 0) = rr * std::cos(beta) - d * cbt;
      j(r + 1, 1) = -d * cbt;
    }
    j(0, 2) = -ss * std::cos(gamma);
    j(1, 2) = -ss * std::sin(gamma);
    j(2, 3) = -e * cpd;
    j(2, 4) = -e * cpd + zt * std::sin(delta);
    j(3, 3) = -e * spd;
    j(3, 4) = -e * spd - zt * std::cos(delta);
    j(4, 5) = zf * soe;
    j(4, 6) = zf * soe - u * std::cos(epsilon);
    j(5, 5) = -zf * coe;
    j(5, 6) = -zf * coe - u * std::sin(epsilon);
  }

  // gamma = -d^2/ds^2 g(q + v s) (no explicit time): each term a cos(angle) or sin(angle)
  // contributes its value times the squared rate of its angle.
  void ConstraintGamma(double /*t*/, const double* q, const double* v, double* gamma) const {
    const double beta = q[0], theta = q[1], gamma_ = q[2], phi = q[3], delta = q[4], omega = q[5],
                 epsilon = q[6];
    const double vb = v[0], w = v[0] + v[1], p = v[3] + v[4], r = v[5] + v[6];
    const double x2 = rr * std::cos(beta) * vb * vb - d * std::cos(beta + theta) * w * w;
    const double y2 = rr * std::sin(beta) * vb * vb - d * std::sin(beta + theta) * w * w;
    gamma[0] = x2 - ss * std::sin(gamma_) * v[2] * v[2];
    gamma[1] = y2 + ss * std::cos(gamma_) * v[2] * v[2];
    gamma[2] = x2 - e * std::sin(phi + delta) * p * p - zt * std::cos(delta) * v[4] * v[4];
    gamma[3] = y2 + e * std::cos(phi + delta) * p * p - zt * std::sin(delta) * v[4] * v[4];
    gamma[4] = x2 - zf * std::cos(omega + epsilon) * r * r - u * std::sin(epsilon) * v[6] * v[6];
    gamma[5] = y2 - zf * std::sin(omega + epsilon) * r * r + u * std::cos(epsilon) * v[6] * v[6];
  }

  template <class T>
  void MassMatrix(const T* q, T* m) const {  // section 2.4, column-major 7 x 7
    using std::cos;
    using std::sin;
    const T ctheta = cos(q[1]), sphi = sin(q[3]), somega = sin(q[5]);
    auto at = [m](int r, int c) -> T& { return m[r + 7 * c]; };
    at(0, 0) = m1 * ra * ra + m2 * (rr * rr - 2.0 * da * rr * ctheta + da * da) + i1 + i2;
    at(1, 0) = at(0, 1) = m2 * (da * da - da * rr * ctheta) + i2;
    at(1, 1) = T(m2 * da * da + i2);
    at(2, 2) = T(m3 * (sa * sa + sb * sb) + i3);
    at(3, 3) = T(m4 * (e - ea) * (e - ea) + i4);
    at(4, 3) = at(3, 4) = m4 * ((e - ea) * (e - ea) + zt * (e - ea) * sphi) + i4;
    at(4, 4) = m4 * (zt * zt + 2.0 * zt * (e - ea) * sphi + (e - ea) * (e - ea)) +
               m5 * (ta * ta + tb * tb) + i4 + i5;
    at(5, 5) = T(m6 * (zf - fa) * (zf - fa) + i6);
    at(6, 5) = at(5, 6) = m6 * ((zf - fa) * (zf - fa) - u * (zf - fa) * somega) + i6;
    at(6, 6) = m6 * ((zf - fa) * (zf - fa) - 2.0 * u * (zf - fa) * somega + u * u) +
               m7 * (ua * ua + ub * ub) + i6 + i7;
  }

  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    using std::cos;
    using std::sin;
    using std::sqrt;
    const T& gamma = q[2];
    const T xd = sd * cos(gamma) + sc * sin(gamma) + xb;  // point D, section 2.4
    const T yd = sd * sin(gamma) - sc * cos(gamma) + yb;
    const T length = sqrt(Square(xd - xc) + Square(yd - yc));
    return 0.5 * c0 * Square(length - l0);
  }

  template <class T>
  void AppliedForces(const T& /*t*/, const T* /*q*/, const T* /*v*/, T* f) const {
    f[0] += mom;  // driving torque on beta, f1
  }

  template <class T>
  void VelocityForces(const T* q, const T* v, T* f) const {  // section 2.4, f1, f2, f4..f7
    using std::cos;
    using std::sin;
    const T stheta = sin(q[1]), cphi = cos(q[3]), comega = cos(q[5]);
    f[0] += -m2 * da * rr * v[1] * (v[1] + 2.0 * v[0]) * stheta;
    f[1] += m2 * da * rr * v[0] * v[0] * stheta;
    f[3] += m4 * zt * (e - ea) * v[4] * v[4] * cphi;
    f[4] += -m4 * zt * (e - ea) * v[3] * (v[3] + 2.0 * v[4]) * cphi;
    f[5] += -m6 * u * (zf - fa) * v[6] * v[6] * comega;
    f[6] += m6 * u * (zf - fa) * v[5] * (v[5] + 2.0 * v[6]) * comega;
  }
};

constexpr double kQ0[7] = {-0.0617138900142764496358948458001, 0.0,
                           0.455279819163070380255912382449,   0.222668390165885884674473185609,
                           0.487364979543842550225598953530,   -0.222668390165885884674473185609,
                           1.23054744454982119249735015568};

Problem BuildModelForm(const ParameterSet& p) {
  const double beta = kQ0[0], theta = kQ0[1], gamma = kQ0[2], phi = kQ0[3], delta = kQ0[4],
               omega = kQ0[5], epsilon = kQ0[6];
  const double th[7] = {beta, beta + theta, gamma, phi + delta, delta, omega + epsilon, epsilon};
  const double mass[7] = {m1, m2, m3, m4, m5, m6, m7};
  const double inertia[7] = {i1, i2, i3, i4, i5, i6, i7};
  // Centre of mass of each body in its own frame relative to a known point, and that point.
  auto rot = [](double a, double x, double y) {
    return P(std::cos(a) * x - std::sin(a) * y, std::sin(a) * x + std::cos(a) * y);
  };
  const Eigen::Vector3d o = P(0, 0), a = P(xa, ya), b = P(xb, yb);
  const Eigen::Vector3d pin_p = rot(th[0], rr, 0);
  const Eigen::Vector3d pin_f = a + rot(th[4], zt, 0);
  const Eigen::Vector3d pin_g = a + rot(th[6], 0, -u);
  const Eigen::Vector3d com[7] = {rot(th[0], ra, 0),      pin_p + rot(th[1], -da, 0),
                                  b + rot(th[2], sa, sb), pin_f + rot(th[3], 0, -(e - ea)),
                                  a + rot(th[4], ta, tb), pin_g + rot(th[5], zf - fa, 0),
                                  a + rot(th[6], ua, ub)};
  ModelDescription m;
  m.title = "Andrews squeezer (model layer)";
  m.source = "001 s6; IVP test set 'andrews'";
  m.dimension = 2;
  for (int i = 0; i < 7; ++i) {
    BodyDescription body;
    body.name = "body" + std::to_string(i + 1);
    body.mass = mass[i];
    body.inertia(0, 0) = inertia[i];
    body.position = com[i];
    body.angle = th[i];
    m.bodies.push_back(body);
  }
  auto j = [](const std::string& name, const std::string& ba, const Eigen::Vector3d& pa,
              const std::string& bb, const Eigen::Vector3d& pb) {
    return Joint(name, JointKind::kRevolute, ba, pa, bb, pb);
  };
  m.joints = {j("O", "ground", o, "body1", P(-ra, 0)),
              j("P", "body1", P(rr - ra, 0), "body2", P(da, 0)),
              j("B", "ground", b, "body3", P(-sa, -sb)),
              j("E3", "body2", P(da - d, 0), "body3", P(-sa, -ss - sb)),
              j("A5", "ground", a, "body5", P(-ta, -tb)),
              j("F", "body5", P(zt - ta, -tb), "body4", P(0, e - ea)),
              j("E4", "body2", P(da - d, 0), "body4", P(0, -ea)),
              j("A7", "ground", a, "body7", P(-ua, -ub)),
              j("G", "body7", P(-ua, -u - ub), "body6", P(-(zf - fa), 0)),
              j("E6", "body2", P(da - d, 0), "body6", P(fa, 0))};
  ForceDescription spring;
  spring.name = "spring_CD";
  spring.kind = ForceKind::kSpringDamper;
  spring.body_a = "ground";
  spring.point_a = P(xc, yc);
  spring.body_b = "body3";
  spring.point_b = P(sd - sa, -sc - sb);
  spring.stiffness = c0;
  spring.rest_length = l0;
  ForceDescription torque;
  torque.name = "mom";
  torque.kind = ForceKind::kTorque;
  torque.body_a = "body1";
  torque.vector = P(0, 0, mom);
  m.forces = {spring, torque};
  const char* names[7] = {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};
  const int body[7] = {1, 2, 3, 4, 5, 6, 7}, reference[7] = {0, 1, 0, 5, 0, 7, 0};
  for (int k = 0; k < 7; ++k) {
    OutputDescription out = Output(names[k], OutputKind::kAngle, "body" + std::to_string(body[k]));
    if (reference[k] > 0) out.reference_body = "body" + std::to_string(reference[k]);
    m.outputs.push_back(out);
  }
  // Joint F on body 5 (paper 001 Figs 24, 26, 27).
  m.outputs.push_back(Output("F_x", OutputKind::kPointX, "body5", P(zt - ta, -tb)));
  m.outputs.push_back(Output("F_y", OutputKind::kPointY, "body5", P(zt - ta, -tb)));
  m.t_end = 0.03;
  m.h_default = 1e-5;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "andrews_squeezer", p);
}

Problem Build(const ParameterSet& p) {
  if (p.GetString("form") == "model") return BuildModelForm(p);
  Problem problem;
  problem.dae = MakeDae(AndrewsEquations());
  problem.t_end = 0.03;
  problem.h_default = 1e-5;
  problem.q0 = Vector(7);
  // Section 2.5 (andrews_y0.txt), consistent to about 30 digits; velocities zero.
  problem.q0 << -0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568;
  problem.v0 = Vector::Zero(7);
  // All seven coordinates are angles; beta and Theta turn without bound (the crank).
  problem.coordinate_periods.assign(7, 2.0 * M_PI);
  // The seven angles, then joint F (A + zt (cos delta, sin delta)), plotted in paper 001
  // Figs 24, 26, 27.
  problem.output_names = {"beta",  "Theta",   "gamma", "Phi", "delta",
                          "Omega", "epsilon", "F_x",   "F_y"};
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) {
    out.head(7) = q;
    out[7] = xa + zt * std::cos(q[4]);
    out[8] = ya + zt * std::sin(q[4]);
  };
  problem.default_methods = {"ida", "odeint-dopri5"};
  return problem;
}

}  // namespace

ProblemEntry AndrewsSqueezerEntry() {
  return {"andrews_squeezer",
          "Andrews' squeezing mechanism, test-set seven-angle index-3 form",
          "001 s6; IVP test set 'andrews'",
          {{"form",
            "angles",
            "seven test-set angles, or the model layer's 7 planar bodies",
            {"angles", "model"}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
