// Consistent initial conditions of a model (model_assembly.h; docs/design.md, "Consistent
// initial conditions"): positions by Gauss-Newton on Phi and the held rows, then velocities
// by the minimum-norm correction onto Phi_q v = -Phi_t.
#include "problems/model/model_assembly.h"

#include "problems/core/consistent_initial_conditions.h"
#include "problems/core/format.h"
#include "problems/core/parameters.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {
namespace {

std::string Format(double x) { return FormatNumber(x, 3); }

// Largest |entry| and its index.
double MaxAbs(const Vector& x, int* index) {
  if (x.size() == 0) {
    *index = -1;
    return 0.0;
  }
  Eigen::Index i;
  const double value = x.cwiseAbs().maxCoeff(&i);
  *index = static_cast<int>(i);
  return value;
}

constexpr int kMaxNewtonIterations = 100;

// What the two steps of AssembleInitialState share.
struct Assembly {
  const ModelDescription& model;
  const FormulatedModel& formulated;
  const MechanicalDae& dae;
  DaeWorkspace& ws;
  double t0;
  int n, m;
  AssemblyReport& report;
  std::vector<std::string>& warnings;
};

// The rows kept at their stated values: the held rows `held`, then one unit row per
// coordinate whose `stated_mask` entry is nonzero; *num_stated the number of the latter.
Matrix KeptRows(const Matrix& held, const Vector& stated_mask, int n, int* num_stated) {
  std::vector<int> stated;
  for (int i = 0; i < n; ++i)
    if (stated_mask[i] != 0.0) stated.push_back(i);
  Matrix rows(held.rows() + stated.size(), n);
  rows.topRows(held.rows()) = held;
  rows.bottomRows(stated.size()).setZero();
  for (size_t r = 0; r < stated.size(); ++r) rows(held.rows() + r, stated[r]) = 1.0;
  *num_stated = static_cast<int>(stated.size());
  return rows;
}

// Positions: Gauss-Newton with minimum-norm steps (rank-deficient Phi_q allowed) on
// Phi = 0 plus the held rows `rows` (q - q_stated) = 0.
void AssemblePositions(const Assembly& a, Vector& q) {
  const MechanicalDae& dae = a.dae;
  const FormulatedModel& formulated = a.formulated;
  const Matrix& hq = formulated.hold_q;
  AssemblyReport& report = a.report;
  const int n = a.n, m = a.m;
  const double t0 = a.t0;
  DaeWorkspace& ws = a.ws;
  const double tol = kInitialConditionTolerance * (q.lpNorm<Eigen::Infinity>() + 1.0);
  Vector phi(m);
  Matrix phi_q(m, n);
  int worst = -1;
  dae.CalcPhi(ws, t0, q, phi);
  report.position_residual_before = MaxAbs(phi, &worst);
  const int worst_before = worst;
  const Vector q_stated = formulated.q_guess;
  auto newton = [&](const Matrix& rows, Vector& x) {
    Vector residual(m + rows.rows());
    Matrix jacobian(m + rows.rows(), n);
    int k = 0;
    for (; k < kMaxNewtonIterations; ++k) {
      dae.CalcPhi(ws, t0, x, phi);
      residual.head(m) = phi;
      residual.tail(rows.rows()) = rows * (x - q_stated);
      if (residual.lpNorm<Eigen::Infinity>() <= tol) break;
      dae.CalcPhiQ(ws, t0, x, phi_q);
      jacobian.topRows(m) = phi_q;
      jacobian.bottomRows(rows.rows()) = rows;
      Eigen::CompleteOrthogonalDecomposition<Matrix> cod(jacobian);
      cod.setThreshold(1e-10);
      x -= cod.solve(residual);
      if (!x.allFinite()) break;
    }
    return k;
  };
  // First try to keep every stated coordinate (only estimates move: no warning needed);
  // if that has no solution, keep only the explicitly held ones (a projection, warned).
  int iteration = 0;
  {
    int num_stated = 0;
    const Matrix rows = KeptRows(hq, formulated.stated_q, n, &num_stated);
    Vector x = q;
    if (num_stated < n) {
      iteration = newton(rows, x);
      dae.CalcPhi(ws, t0, x, phi);
    }
    if (num_stated < n && x.allFinite() && phi.lpNorm<Eigen::Infinity>() <= tol) {
      q = x;
    } else {
      iteration = newton(hq, q);
    }
  }
  report.newton_iterations = iteration;
  dae.CalcPhi(ws, t0, q, phi);
  report.position_residual_after = q.allFinite() ? MaxAbs(phi, &worst) : INFINITY;
  if (!(report.position_residual_after <= tol)) {
    const std::string name =
        worst >= 0 && worst < static_cast<int>(formulated.constraint_names.size())
            ? formulated.constraint_names[worst]
            : formulated.constraint_names[worst_before];
    throw InputError(a.model.Where() + ": initial configuration cannot be assembled: constraint " +
                     name + " keeps |Phi| = " + Format(report.position_residual_after) + " after " +
                     std::to_string(iteration) + " Newton steps (stated residual " +
                     Format(report.position_residual_before) + ")");
  }
  if (hq.rows() > 0) {
    const Vector held = hq * (q - q_stated);
    int k;
    if (MaxAbs(held, &k) > tol)
      throw InputError(a.model.Where() + ": initial configuration cannot be assembled with " +
                       formulated.hold_names_q[k] + " held at its stated value (off by " +
                       Format(held.cwiseAbs().maxCoeff()) + ")");
  }
  const double stated_change =
      (q - q_stated).cwiseProduct(formulated.stated_q).lpNorm<Eigen::Infinity>();
  if (report.position_residual_before > tol && stated_change > tol) {
    std::string held;
    for (const auto& h : formulated.hold_names_q) held += (held.empty() ? "" : ", ") + h;
    a.warnings.push_back("initial positions assembled by Newton on Phi (stated |Phi|_inf = " +
                         Format(report.position_residual_before) + " at " +
                         formulated.constraint_names[worst_before] + "; now " +
                         Format(report.position_residual_after) +
                         "; largest change of a stated coordinate " + Format(stated_change) +
                         "; held: " + (held.empty() ? "none" : held) + ")");
  }
}

// Velocities: minimum-norm correction of the stated v onto Phi_q v = -Phi_t, H_v v held.
void AssembleVelocities(const Assembly& a, const Vector& q, Vector& v) {
  const MechanicalDae& dae = a.dae;
  const FormulatedModel& formulated = a.formulated;
  const Matrix& hv = formulated.hold_v;
  AssemblyReport& report = a.report;
  const int n = a.n, m = a.m;
  const double t0 = a.t0;
  DaeWorkspace& ws = a.ws;
  int worst = -1;
  Matrix phi_q(m, n);
  dae.CalcPhiQ(ws, t0, q, phi_q);
  Vector vres(m);
  dae.CalcVelocityResidual(ws, t0, q, v, vres);
  report.velocity_residual_before = MaxAbs(vres, &worst);
  const int worst_v_before = worst;
  const Vector v_stated = v;
  // Minimum-norm correction keeping the rows `rows` of v at their stated values.
  auto correct = [&](const Matrix& rows, Vector& x) {
    Matrix jv(m + rows.rows(), n);
    jv.topRows(m) = phi_q;
    jv.bottomRows(rows.rows()) = rows;
    Eigen::CompleteOrthogonalDecomposition<Matrix> cod(jv);
    cod.setThreshold(1e-10);
    Vector rhs(m + rows.rows());
    dae.CalcVelocityResidual(ws, t0, q, x, vres);
    rhs.head(m) = vres;
    rhs.tail(rows.rows()).setZero();
    x -= cod.solve(rhs);
  };
  {
    int num_stated = 0;
    const Matrix rows = KeptRows(hv, formulated.stated_v, n, &num_stated);
    Vector x = v;
    bool kept = false;
    if (num_stated < n) {
      correct(rows, x);
      dae.CalcVelocityResidual(ws, t0, q, x, vres);
      kept = vres.lpNorm<Eigen::Infinity>() <=
             kInitialConditionTolerance * (x.lpNorm<Eigen::Infinity>() + 1.0);
    }
    if (kept)
      v = x;
    else
      correct(hv, v);
  }
  dae.CalcVelocityResidual(ws, t0, q, v, vres);
  report.velocity_residual_after = MaxAbs(vres, &worst);
  const double vtol = kInitialConditionTolerance * (v.lpNorm<Eigen::Infinity>() + 1.0);
  if (!(report.velocity_residual_after <= vtol))
    throw InputError(a.model.Where() +
                     ": initial velocities cannot be made consistent: constraint " +
                     formulated.constraint_names[worst] + " keeps a velocity residual " +
                     Format(report.velocity_residual_after) +
                     " (the held velocities conflict with the constraints)");
  if (hv.rows() > 0) {
    const Vector held = hv * (v - v_stated);
    int k;
    if (MaxAbs(held, &k) > vtol)
      throw InputError(a.model.Where() + ": initial velocities cannot be made consistent with " +
                       formulated.hold_names_v[k] + " held (off by " + Format(std::abs(held[k])) +
                       ")");
  }
  const double stated_v_change =
      (v - v_stated).cwiseProduct(formulated.stated_v).lpNorm<Eigen::Infinity>();
  if (report.velocity_residual_before > vtol && stated_v_change > vtol) {
    a.warnings.push_back("initial velocities projected onto Phi_q v + Phi_t = 0 (stated residual " +
                         Format(report.velocity_residual_before) + " at " +
                         formulated.constraint_names[worst_v_before] + "; now " +
                         Format(report.velocity_residual_after) +
                         "; largest change of a stated velocity " + Format(stated_v_change) + ")");
  }
}

}  // namespace

AssemblyReport AssembleInitialState(const ModelDescription& model,
                                    const FormulatedModel& formulated, double t0, Vector& q,
                                    Vector& v, std::vector<std::string>& warnings) {
  const MechanicalDae& dae = *formulated.dae;
  auto ws = dae.MakeWorkspace();
  AssemblyReport report;
  q = formulated.q_guess;
  v = formulated.v_guess;
  if (dae.num_constraints() == 0) return report;
  const Assembly assembly{
      model,  formulated, dae, *ws, t0, dae.num_coordinates(), dae.num_constraints(),
      report, warnings};
  AssemblePositions(assembly, q);
  AssembleVelocities(assembly, q, v);
  report.rank = ConstraintRankAt(dae, *ws, t0, q);
  return report;
}

}  // namespace mbb
