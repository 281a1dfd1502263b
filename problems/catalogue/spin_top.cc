// Spin top with its tip on the unit sphere, in the Euler-parameter form of paper 000,
// section 3.4, eqs. (61)-(62) (after Haug): coordinates x = (r, e), r the centre of mass
// (m), e the Euler parameters; 2 constraints (61c) with (62) and (61d); 5 DOF.
//
//   m r'' + c_r^T lambda = f,                f = (0, 0, -m g)                          (61a)
//   4 E^T J E e'' + 8 E'^T J E e' + c_e^T lambda + 2 e mu = 2 E^T t,  t = 0           (61b)
//   c = r^T r + 2 r^T A u0 = 0,   u0 = (0, 0, -1), A = Ebar E^T                      (62)
//   e^T e - 1 = 0                                                                     (61d)
//
// E (62) maps e' to the body angular velocity, omega' = 2 E e'; Ebar (62) is its global-frame
// counterpart. The paper prints the quadratic-velocity term of (61b) as 8 E'^T J E omega; by
// Lagrange's equations for T = 2 e'^T E^T J E e' it is 8 E'^T J E e' = 4 E'^T J omega'
// (E' = E(e'), since E is linear in e and E(e) e' = -E(e') e), which is what we implement.
//
// Data (paper; docs/reproduction.md, docs/problems.md): m = 30 kg, J = diag(90, 90, 30) kg m^2,
// g = 9.81 m/s^2 along -z, e0 = (1, 0, 0, 0), omega0 = (0.1, 0.1, 0.3) rad/s, r'0 = 0, h = 1e-4.
// r0 = (0, -1, 0) is read as the tip position: then the centre of mass starts at (0, -1, 1)
// and c = 0 (read as the centre of mass, c = 1). e'0 = 1/2 E(e0)^T omega0 as the paper says.
// Check (reported here, and as a warning in every result): with r'0 = 0 the tip velocity
// omega0 x (A u0) = (-0.1, 0.1, 0) m/s leaves the sphere, c' = -0.2 1/s, so the stated
// velocities are inconsistent. `rdot0=zero` (default) keeps the paper's data and lets the
// catalogue project v0 (minimum norm, as the QR method's own q' = Q2^T x' does at t0);
// `rdot0=consistent` keeps omega0 exactly and takes r'0 = (0, -0.1, 0) m/s, the smallest
// centre-of-mass velocity that makes the tip slide tangentially.
// The paper does not state the horizon of Figs 12-14; we use 10 s.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

// E(e) of eq. (62), row-major 3 x 4; omega' = 2 E e'.
template <class T>
void BodyMatrix(const T* e, T g[3][4]) {
  g[0][0] = -e[1], g[0][1] = e[0], g[0][2] = e[3], g[0][3] = -e[2];
  g[1][0] = -e[2], g[1][1] = -e[3], g[1][2] = e[0], g[1][3] = e[1];
  g[2][0] = -e[3], g[2][1] = e[2], g[2][2] = -e[1], g[2][3] = e[0];
}

// Ebar(e) of eq. (62), row-major 3 x 4.
template <class T>
void GlobalMatrix(const T* e, T b[3][4]) {
  b[0][0] = -e[1], b[0][1] = e[0], b[0][2] = -e[3], b[0][3] = e[2];
  b[1][0] = -e[2], b[1][1] = e[3], b[1][2] = e[0], b[1][3] = -e[1];
  b[2][0] = -e[3], b[2][1] = -e[2], b[2][2] = e[1], b[2][3] = e[0];
}

struct SpinTopEquations : EquationDefaults {
  double mass, inertia[3], gravity, tip_distance;
  static constexpr bool kConstantMass = false;
  int num_coordinates() const { return 7; }
  int num_constraints() const { return 2; }

  template <class T>
  void Constraints(const T& /*t*/, const T* x, T* phi) const {
    const T* r = x;
    const T* e = x + 3;
    T g[3][4], b[3][4];
    BodyMatrix(e, g);
    GlobalMatrix(e, b);
    // A u0 with u0 = (0, 0, -d): -d times the third column of A = Ebar E^T.
    T r_dot_au0 = T(0.0);
    for (int i = 0; i < 3; ++i) {
      T a_i2 = T(0.0);
      for (int k = 0; k < 4; ++k) a_i2 += b[i][k] * g[2][k];
      r_dot_au0 += r[i] * (-tip_distance * a_i2);
    }
    // (62): |r + A u0|^2 - d^2 = r^T r + 2 r^T A u0 for orthogonal A (d = 1 in the paper).
    phi[0] = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + 2.0 * r_dot_au0;
    phi[1] = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0;  // (61d)
  }

  template <class T>
  void MassMatrix(const T* x, T* m) const {
    for (int i = 0; i < 3; ++i) m[i + 7 * i] = T(mass);  // (61a)
    T g[3][4];
    BodyMatrix(x + 3, g);
    for (int a = 0; a < 4; ++a)  // 4 E^T J E (61b)
      for (int c = 0; c < 4; ++c) {
        T sum = T(0.0);
        for (int i = 0; i < 3; ++i) sum += inertia[i] * g[i][a] * g[i][c];
        m[(3 + a) + 7 * (3 + c)] = 4.0 * sum;
      }
  }

  template <class T>
  T Potential(const T& /*t*/, const T* x) const {
    return mass * gravity * x[2];  // f = (0, 0, -m g) of (61a)
  }

  template <class T>
  void VelocityForces(const T* x, const T* v, T* f) const {
    // -8 E'^T J E e' = -4 E(e')^T J omega', omega' = 2 E(e) e' (61b).
    T g[3][4], g_dot[3][4];
    BodyMatrix(x + 3, g);
    BodyMatrix(v + 3, g_dot);
    T j_omega[3];
    for (int i = 0; i < 3; ++i) {
      T omega = T(0.0);
      for (int k = 0; k < 4; ++k) omega += g[i][k] * v[3 + k];
      j_omega[i] = inertia[i] * 2.0 * omega;
    }
    for (int a = 0; a < 4; ++a) {
      T sum = T(0.0);
      for (int i = 0; i < 3; ++i) sum += g_dot[i][a] * j_omega[i];
      f[3 + a] -= 4.0 * sum;
    }
  }
};

// The mechanism: one rigid body whose tip, tip_distance below its centre of mass along body
// z, stays on the sphere of that radius about the origin (a distance joint to the origin).
// Pose q0 = (r, e), centre-of-mass velocity r'0, angular velocity omega0 (global = body at
// e0 = (1, 0, 0, 0)).
ModelDescription SpinTopModel(const SpinTopEquations& eq, const Vector& q0,
                              const Eigen::Vector3d& rdot0, const double omega0[3]) {
  ModelDescription m;
  m.title = "spin top";
  m.dimension = 3;
  BodyDescription top;
  top.name = "top";
  top.mass = eq.mass;
  top.inertia = Eigen::Vector3d(eq.inertia[0], eq.inertia[1], eq.inertia[2]).asDiagonal();
  top.position = q0.head<3>();
  top.orientation = q0.segment<4>(3);
  top.velocity = rdot0;
  top.angular_velocity = P(omega0[0], omega0[1], omega0[2]);
  m.bodies.push_back(top);
  JointDescription tip =
      Joint("tip", JointKind::kDistance, "ground", P(0, 0, 0), "top", P(0, 0, -eq.tip_distance));
  tip.length = eq.tip_distance;
  m.joints.push_back(tip);
  m.forces.push_back(Gravity(P(0, 0, -eq.gravity)));
  return m;
}

// q is the body's (r, e) block. The stated twist is the paper's (the catalogue projects v0).
std::shared_ptr<ModelStructure> Structure(const SpinTopEquations& eq, const Vector& q0,
                                          const Eigen::Vector3d& rdot0, const double omega0[3]) {
  const ModelDescription m = SpinTopModel(eq, q0, rdot0, omega0);
  return HandWrittenStructure(
      m, true,
      {OwnedRows(ConstraintRows::Owner::kJoint, 0, "tip", 0, 1),
       OwnedRows(ConstraintRows::Owner::kBody, 0, "Euler-parameter normalisation of 'top'", 1, 1)},
      ChainTree({-1}, {0}));
}

// form=model: the same mechanism through the model layer, so that every formulation of the
// registry applies (`formulation=directors` for the energy-momentum schemes of paper 002,
// whose gravity then enters through the discrete gradient). omega0 is held; with
// rdot0=zero the assembly corrects r'0 to the tangential tip velocity (0, -omega0_x, 0)
// (the minimum change of the unheld velocities), which is the rdot0=consistent start.
Problem BuildModelForm(const SpinTopEquations& eq, const Vector& q0, const Eigen::Vector3d& rdot0,
                       const double omega0[3], const ParameterSet& p) {
  ModelDescription m = SpinTopModel(eq, q0, rdot0, omega0);
  m.id = "spin_top";
  m.source = "000 s3.4 eqs 61-62 (model layer)";
  m.bodies[0].hold = {"wx", "wy", "wz"};
  m.bodies[0].twist_is_estimate = rdot0.isZero();
  m.outputs = {Output("cm_x", OutputKind::kPointX, "top", P(0, 0, 0)),
               Output("cm_y", OutputKind::kPointY, "top", P(0, 0, 0)),
               Output("cm_z", OutputKind::kPointZ, "top", P(0, 0, 0))};
  m.conserved_momentum = {"angular_z"};
  m.t_end = 10.0;
  m.h_default = 1e-4;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "spin_top", p);
}

Problem Build(const ParameterSet& p) {
  SpinTopEquations eq;
  eq.mass = p.GetDouble("mass");
  eq.inertia[0] = p.GetDouble("J1");
  eq.inertia[1] = p.GetDouble("J2");
  eq.inertia[2] = p.GetDouble("J3");
  eq.gravity = p.GetDouble("g");
  eq.tip_distance = 1.0;  // tip 1 m from the centre of mass, on the unit sphere
  RequirePositive(eq.mass, "mass");
  for (int i = 0; i < 3; ++i) RequirePositive(eq.inertia[i], "J" + std::to_string(i + 1));
  const double omega0[3] = {p.GetDouble("omega0_x"), p.GetDouble("omega0_y"),
                            p.GetDouble("omega0_z")};

  Problem problem;
  problem.dae = MakeDae(eq);
  problem.t_end = 10.0;
  problem.h_default = 1e-4;
  problem.q0 = Vector::Zero(7);
  // Tip at (0, -1, 0), e0 = (1, 0, 0, 0): centre of mass = tip - A u0 = (0, -1, 1).
  problem.q0 << 0.0, -1.0, 1.0, 1.0, 0.0, 0.0, 0.0;
  problem.unit_quaternion_offsets = {3};  // x = (r, e)
  problem.v0 = Vector::Zero(7);
  double g0[3][4];
  BodyMatrix(problem.q0.data() + 3, g0);
  for (int k = 0; k < 4; ++k)  // e'0 = 1/2 E(e0)^T omega0
    for (int i = 0; i < 3; ++i) problem.v0[3 + k] += 0.5 * g0[i][k] * omega0[i];
  if (p.GetString("rdot0") == "consistent") {
    // Tip velocity r'0 + omega0 x u0 with A = I, u0 = (0, 0, -1), omega0 x u0 =
    // (-omega0_y, omega0_x, 0); the tip at (0, -1, 0) must have a zero y velocity.
    problem.v0[1] = -omega0[0];
  }
  if (p.GetString("form") == "model")
    return BuildModelForm(eq, problem.q0, problem.v0.head<3>(), omega0, p);
  problem.structure = Structure(eq, problem.q0, problem.v0.head<3>(), omega0);
  problem.output_names = {"cm_x", "cm_y", "cm_z"};
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) {
    out = q.head(3);
  };
  problem.default_methods = {"ida", "continued-qr", "traditional-qr"};
  // The tip slides on the unit sphere about the origin (62): the reaction is normal to it,
  // along the tip's position, so it has no moment about the origin, and gravity along -z
  // has no z moment: the angular momentum about the origin keeps its z component. (The
  // hand-written DAE reports no momenta yet, so results carry no metrics.momentum.)
  problem.conserved_momentum = {"angular_z"};
  return problem;
}

}  // namespace

ProblemEntry SpinTopEntry() {
  return {"spin_top",
          "spin top with its tip on the unit sphere, Euler parameters",
          "000 s3.4 eqs 61-62",
          {{"mass", "30", "m, kg", {}},
           {"J1", "90", "J_xx, kg m^2", {}},
           {"J2", "90", "J_yy, kg m^2", {}},
           {"J3", "30", "J_zz (symmetry axis), kg m^2", {}},
           {"g", "9.81", "gravity along -z, m/s^2", {}},
           {"omega0_x", "0.1", "initial angular velocity, rad/s", {}},
           {"omega0_y", "0.1", "initial angular velocity, rad/s", {}},
           {"omega0_z", "0.3", "initial angular velocity, rad/s", {}},
           {"rdot0",
            "zero",
            "initial centre-of-mass velocity: paper's r'0 = 0 (then v0 is projected) or the "
            "tangential tip velocity keeping omega0",
            {"zero", "consistent"}},
           {"form",
            "equations",
            "the paper's Euler-parameter equations (61)-(62), or the model layer's one body on "
            "a distance joint (any formulation, e.g. directors)",
            {"equations", "model"}},
           FormulationParameter(3)},
          Build};
}

}  // namespace mbb
