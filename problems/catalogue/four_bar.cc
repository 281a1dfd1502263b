// Planar four-bar of paper 003 s6 in two forms (parameter `form`):
//   model   through the model layer, planar (x, y, theta) formulation (the default);
//   angles  the paper's own coordinates q = [alpha1, alpha2, alpha3] of the open chain cut at
//           O4 (s6): the crank-coupler-rocker chain from O1 with the closure P - O4 = 0
//           (two rows, P the free end of the rocker), hand-written below.
// The paper gives no link data; docs/problems.md fixes: O1 = (0,0), O4 = (l0,0),
// y up; l0 = 2.0, l1 = 0.5, l2 = 1.75, l3 = 1.25 m (Grashof crank-rocker); uniform bars of
// 1 kg/m (m = 0.5, 1.75, 1.25 kg, J = m l^2/12); assembly branch alpha3 = +arccos in (40);
// g = 9.81 along -y; start at alpha1 = 0 with alpha1' = 5 rad/s; 3 s.
// Outputs are the paper's relative coordinates (cut at O4), angles from +y, positive
// clockwise: alpha1 the crank, alpha2 coupler relative to crank, alpha3 rocker relative to
// coupler. With body angles theta from +x counter-clockwise: alpha1 = pi/2 - theta1,
// alpha2 = theta1 - theta2, alpha3 = theta2 - theta3. The initial pose is eqs (40)-(41).
// `crank_mass` overrides the crank's mass (paper 003 s6: the projective choice depends on
// the masses, the SVD choice does not); its inertia stays m l^2 / 12.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

constexpr double kL0 = 2.0, kL1 = 0.5, kL2 = 1.75, kL3 = 1.25;

// The paper's angles of the assembled pose at alpha1 = a1: eqs (40) (+ branch) and (41).
Eigen::Vector3d AssembledAngles(double a1) {
  const double l0 = kL0, l1 = kL1, l2 = kL2, l3 = kL3;
  const double den = l0 * l0 + l1 * l1 - 2.0 * l0 * l1 * std::sin(a1);
  const double a3 = std::acos((den - l2 * l2 - l3 * l3) / (2.0 * l2 * l3));  // eq (40), +branch
  const double s2 =
      (l0 * l2 * std::cos(a1) + l0 * l3 * std::cos(a1 + a3) + l1 * l3 * std::sin(a3)) / den;
  const double c2 =
      (l0 * l2 * std::sin(a1) + l0 * l3 * std::sin(a1 + a3) - l1 * l3 * std::cos(a3) - l1 * l2) /
      den;
  return Eigen::Vector3d(a1, std::atan2(s2, c2), a3);  // eq (41)
}

double CrankMass(const ParameterSet& p) {
  const double m = p.GetDouble("crank_mass");
  RequirePositive(m, "crank_mass");
  return m;
}

// The mechanism (both forms): three uniform bars on revolute joints, O4 closing the loop.
ModelDescription Model(const ParameterSet& p) {
  const double l0 = kL0, l1 = kL1, l2 = kL2, l3 = kL3;
  const double a1 = p.GetDouble("alpha1_0");
  const double rate = p.GetDouble("alpha1_rate");
  const Eigen::Vector3d alpha = AssembledAngles(a1);
  const double a2 = alpha[1], a3 = alpha[2];
  const double th1 = M_PI / 2 - a1, th2 = M_PI / 2 - (a1 + a2), th3 = M_PI / 2 - (a1 + a2 + a3);
  const Eigen::Vector3d o2 = P(l1 * std::cos(th1), l1 * std::sin(th1));
  const Eigen::Vector3d o3 = o2 + P(l2 * std::cos(th2), l2 * std::sin(th2));

  ModelDescription m;
  m.title = "four-bar linkage";
  m.source = "003 s6";
  m.dimension = 2;
  m.bodies.push_back(PlanarBar("crank", l1, l1, 0.5 * o2.x(), 0.5 * o2.y(), th1));
  m.bodies[0].mass = CrankMass(p);
  m.bodies[0].inertia(0, 0) = m.bodies[0].mass * l1 * l1 / 12.0;
  m.bodies.push_back(PlanarBar("coupler", l2, l2, 0.5 * (o2 + o3).x(), 0.5 * (o2 + o3).y(), th2));
  const Eigen::Vector3d o4 = o3 + P(l3 * std::cos(th3), l3 * std::sin(th3));
  m.bodies.push_back(PlanarBar("rocker", l3, l3, 0.5 * (o3 + o4).x(), 0.5 * (o3 + o4).y(), th3));
  m.bodies[0].angular_velocity.z() = -rate;  // alpha1' = -theta1'
  m.bodies[0].velocity = -rate * P(-0.5 * o2.y(), 0.5 * o2.x());
  m.bodies[0].hold = {"angle", "omega"};
  m.bodies[1].twist_is_estimate = true;
  m.bodies[2].twist_is_estimate = true;
  m.joints = {
      Joint("O1", JointKind::kRevolute, "ground", P(0, 0), "crank", P(-0.5 * l1, 0)),
      Joint("O2", JointKind::kRevolute, "crank", P(0.5 * l1, 0), "coupler", P(-0.5 * l2, 0)),
      Joint("O3", JointKind::kRevolute, "coupler", P(0.5 * l2, 0), "rocker", P(-0.5 * l3, 0)),
      Joint("O4", JointKind::kRevolute, "rocker", P(0.5 * l3, 0), "ground", P(l0, 0))};
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g"))));
  OutputDescription alpha1 = Output("alpha1", OutputKind::kAngle, "crank");
  alpha1.offset = M_PI / 2;
  alpha1.scale = -1.0;
  m.outputs = {alpha1, RelativeOutput("alpha2", OutputKind::kAngle, "crank", "coupler"),
               RelativeOutput("alpha3", OutputKind::kAngle, "coupler", "rocker")};
  m.t_end = 3.0;
  m.h_default = 1e-3;
  m.default_methods = {"ida", "odeint-dopri5"};
  return m;
}

// The open chain O1-crank-coupler-rocker in the paper's angles (s6): link i has the absolute
// angle phi_i = alpha1 + ... + alpha_i from +y, clockwise, direction u_i = (sin phi_i,
// cos phi_i) and centre of mass half way along it. Closure P - O4 = 0 with
// P = l1 u1 + l2 u2 + l3 u3 (the cut at O4).
struct AnglesEquations : EquationDefaults {
  double length[3], mass[3], inertia[3], gravity, l0;
  static constexpr bool kConstantMass = false;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 2; }
  template <class T>
  void Constraints(const T&, const T* q, T* phi) const {
    using std::cos;
    using std::sin;
    T x = T(0.0), y = T(0.0), angle = T(0.0);
    for (int i = 0; i < 3; ++i) {
      angle = angle + q[i];
      x = x + length[i] * sin(angle);
      y = y + length[i] * cos(angle);
    }
    phi[0] = x - l0;
    phi[1] = y;
  }
  // d r_ci / d alpha_k (column k of the centre of mass Jacobian of link i), with
  // d u_j / d phi_j = (cos phi_j, -sin phi_j) and d phi_j / d alpha_k = [k <= j].
  template <class T>
  void CentreJacobian(const T* q, int i, T jx[3], T jy[3]) const {
    using std::cos;
    using std::sin;
    T angle = T(0.0);
    for (int k = 0; k < 3; ++k) jx[k] = jy[k] = T(0.0);
    for (int j = 0; j <= i; ++j) {
      angle = angle + q[j];
      const double arm = j < i ? length[j] : 0.5 * length[j];
      for (int k = 0; k <= j; ++k) {
        jx[k] = jx[k] + arm * cos(angle);
        jy[k] = jy[k] - arm * sin(angle);
      }
    }
  }
  template <class T>
  void MassMatrix(const T* q, T* m) const {
    for (int i = 0; i < 3; ++i) {
      T jx[3], jy[3];
      CentreJacobian(q, i, jx, jy);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          T entry = mass[i] * (jx[a] * jx[b] + jy[a] * jy[b]);
          if (a <= i && b <= i) entry = entry + inertia[i];  // phi_i' = alpha1' + ... + alpha_i'
          m[a + 3 * b] = m[a + 3 * b] + entry;
        }
    }
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    using std::cos;
    T v = T(0.0), y = T(0.0), angle = T(0.0);
    for (int i = 0; i < 3; ++i) {
      angle = angle + q[i];
      v = v + mass[i] * gravity * (y + 0.5 * length[i] * cos(angle));
      y = y + length[i] * cos(angle);
    }
    return v;
  }
  // -sum_i m_i J_ci^T a_ci, a_ci = -sum_j arm_j u_j phi_j'^2 the velocity-product part of the
  // centre acceleration (the angular accelerations have none: phi is linear in alpha).
  template <class T>
  void VelocityForces(const T* q, const T* v, T* f) const {
    using std::cos;
    using std::sin;
    for (int i = 0; i < 3; ++i) {
      T ax = T(0.0), ay = T(0.0), angle = T(0.0), rate = T(0.0);
      for (int j = 0; j <= i; ++j) {
        angle = angle + q[j];
        rate = rate + v[j];
        const double arm = j < i ? length[j] : 0.5 * length[j];
        ax = ax - arm * sin(angle) * rate * rate;
        ay = ay - arm * cos(angle) * rate * rate;
      }
      T jx[3], jy[3];
      CentreJacobian(q, i, jx, jy);
      for (int k = 0; k < 3; ++k) f[k] = f[k] - mass[i] * (jx[k] * ax + jy[k] * ay);
    }
  }
};

// The angles form's structure: the same mechanism, q not made of body blocks, O4 the cut
// joint owning the two closure rows.
std::shared_ptr<ModelStructure> AnglesStructure(const ModelDescription& m) {
  auto s = HandWrittenStructure(m, false, {OwnedRows(ConstraintRows::Owner::kJoint, 3, "O4", 0, 2)},
                                ChainTree({-1, 0, 1}, {0, 1, 2}, {3}));
  s->coordinates_from_bodies = [](const std::vector<BodyMotion>& b, Vector& q, Vector& v) {
    q[0] = M_PI / 2 - b[0].angle;
    q[1] = b[0].angle - b[1].angle;
    q[2] = b[1].angle - b[2].angle;
    v[0] = -b[0].angular_velocity.z();
    v[1] = b[0].angular_velocity.z() - b[1].angular_velocity.z();
    v[2] = b[1].angular_velocity.z() - b[2].angular_velocity.z();
  };
  // Reactions (paper 003 s5) need the Jacobian of a body point: link i has the global angle
  // theta_i = pi/2 - phi_i, its centre at sum_{j<i} l_j u_j + l_i/2 u_i, a point s of its frame
  // at centre + R(theta_i) s; d phi_i / d alpha_k = [k <= i].
  s->planar_body_jacobian = [](const Vector& q, int body, const Eigen::Vector3d& point,
                               Eigen::Ref<Eigen::MatrixXd> jac, Eigen::Ref<Eigen::VectorXd> angle) {
    const double lengths[3] = {kL1, kL2, kL3};
    jac.setZero();
    angle.setZero();
    double phi = 0.0;
    for (int j = 0; j <= body; ++j) {
      phi += q[j];
      const double arm = j < body ? lengths[j] : 0.5 * lengths[j];
      for (int k = 0; k <= j; ++k) {
        jac(0, k) += arm * std::cos(phi);
        jac(1, k) -= arm * std::sin(phi);
      }
    }
    const double th = M_PI / 2 - phi, c = std::cos(th), sn = std::sin(th);
    for (int k = 0; k <= body; ++k) {
      jac(0, k) -= -sn * point.x() - c * point.y();  // R'(theta) s dtheta/dalpha_k, = -1
      jac(1, k) -= c * point.x() - sn * point.y();
      angle[k] = -1.0;
    }
  };
  return s;
}

Problem BuildAngles(const ParameterSet& p) {
  // The resolved parameters hold the model form's default formulation=planar (a result
  // document records it, and `mbbench check` reruns with it): accept that value.
  if (p.GetString("formulation") != "planar")
    throw InputError(
        "four_bar: parameter 'formulation' applies to form=model only (form=angles "
        "is written in the paper's angles)");
  AnglesEquations eq;
  const double lengths[3] = {kL1, kL2, kL3};
  for (int i = 0; i < 3; ++i) {
    eq.length[i] = lengths[i];
    eq.mass[i] = i == 0 ? CrankMass(p) : lengths[i];  // 1 kg/m
    eq.inertia[i] = eq.mass[i] * lengths[i] * lengths[i] / 12.0;
  }
  eq.gravity = p.GetDouble("g");
  eq.l0 = kL0;
  const ModelDescription model = Model(p);
  Problem problem;
  problem.dae = MakeDae(eq);
  problem.structure = AnglesStructure(model);
  problem.q0 = AssembledAngles(p.GetDouble("alpha1_0"));
  // v0: alpha1' given, alpha2', alpha3' from the velocity constraint C v = 0 (eq 42).
  auto ws = problem.dae->MakeWorkspace();
  Matrix c(2, 3);
  problem.dae->CalcPhiQ(*ws, 0.0, problem.q0, c);
  const double rate = p.GetDouble("alpha1_rate");
  problem.v0 = Vector::Zero(3);
  problem.v0[0] = rate;
  problem.v0.tail(2) = c.rightCols(2).partialPivLu().solve(-c.col(0) * rate);
  problem.t_end = model.t_end;
  problem.h_default = model.h_default;
  problem.output_names = {"alpha1", "alpha2", "alpha3"};
  problem.coordinate_names = problem.output_names;
  problem.output_periods = {2.0 * M_PI, 2.0 * M_PI, 2.0 * M_PI};
  problem.coordinate_periods = problem.output_periods;
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) { out = q; };
  problem.default_methods = model.default_methods;
  return problem;
}

Problem Build(const ParameterSet& p) {
  if (p.GetString("form") == "angles") return BuildAngles(p);
  return BuildModelProblem(Model(p), "four_bar", p);
}

}  // namespace

ProblemEntry FourBarEntry() {
  return {"four_bar",
          "planar crank-rocker four-bar, model layer (x, y, theta) or the paper's angles",
          "003 s6",
          {{"alpha1_0", "0", "initial crank angle from +y, clockwise, rad", {}},
           {"alpha1_rate", "5", "initial crank rate alpha1', rad/s", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           FormulationParameter(2),
           {"form",
            "model",
            "model: the model layer's bodies; angles: the paper's q = [alpha1, alpha2, alpha3] "
            "cut at O4 (s6)",
            {"model", "angles"}},
           {"crank_mass", "0.5", "crank mass, kg (1 kg/m by default; s6 varies it)", {}}},
          Build};
}

}  // namespace mbb
