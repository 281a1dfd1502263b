// null-space-em: the discrete null space method of paper 002 (Betsch & Leyendecker 2006,
// section 2.2.2; Part I section 3.2): scheme (10) with the multipliers eliminated by a
// discrete null space matrix P, range(P) = null(G(q_{1/2})) (eq 11):
//   P^T [ M (v1 - v0) + h dV(q0, q1) - h Q_nc ] = 0      (n - m rows)
//   Phi(t1, q1) = 0                                      (m rows)
// for the n unknowns q1 (v1 = 2 (q1 - q0) / h - v0, discrete_gradient.h). This is the
// generic form for any problem the scheme applies to: P is the numerical null space of the
// mid-point Jacobian (right singular vectors of G(q_{1/2}) beyond its numerical rank, so
// redundant constraints are handled), not yet the explicit P_int P_ext of sections 3.3 and
// 4.3-4.5 nor the reparametrisations (44), (95), ... that shrink the unknowns to the
// degrees of freedom. Newton matrix (rows as above, impulse form, constraints unscaled):
//   [ P^T (2 M / h - h/2 dQ/dq - dQ/dv - 1/2 K(q_{1/2}, mu)) ]
//   [ G(q1)                                                 ]
// where the last term is the derivative of P^T along the iteration: P(q)^T G(q)^T mu = 0
// for every q gives d(P^T) r = -1/2 P^T K(q_{1/2}, mu) r at r = G^T mu, with mu the
// least-squares multiplier of r = G(q_{1/2})^T mu (mu = -h lambda) and K = d(G^T mu)/dq.
// Redundant constraint rows make the matrix rectangular; it is solved in least squares.
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

#include "methods/energy_momentum/discrete_gradient.h"
#include "methods/energy_momentum/energy_momentum_methods.h"
#include "methods/energy_momentum/spherical_tree.h"
#include "methods/fixed_step_method.h"

namespace mbb {
namespace {

struct NullSpaceWorkspace final : FixedStepWorkspace {
  explicit NullSpaceWorkspace(const Problem& p)
      : balance(p),
        kept(IndependentConstraintRows(*p.dae, balance.workspace(), p.t0, p.q0)),
        n(p.dae->num_coordinates()),
        m(static_cast<int>(kept.size())),
        m_all(p.dae->num_constraints()),
        r(n),
        phi(m),
        phi_all(m_all),
        mu(m),
        mu_all(m_all),
        g_mid(m, n),
        g_end(m, n),
        g_all(m_all, n),
        reaction(n, n),
        dq(n),
        g_svd(Matrix::Zero(std::max(m, 1), n)),
        jacobian(n, n),
        svd(std::max(m, 1), n, Eigen::ComputeFullV | Eigen::ComputeThinU),
        condition_svd(n + m, n) {}
  MidpointBalance balance;
  std::vector<int> kept;  // independent constraint rows (IndependentConstraintRows)
  int n, m, m_all;
  Vector r, phi, phi_all, mu, mu_all;
  Matrix g_mid, g_end, g_all, reaction, null_space, iteration;
  Vector residual, delta;
  double condition_first = -1.0, condition_max = 0.0;
  double energy_residual_max = 0.0;  // StepEnergyResidual over the run
  // The explicit S-pair null space and reparametrisation where the model allows it
  // (spherical_tree.h); null: the generic numerical null space.
  std::unique_ptr<SphericalTree> tree;
  Matrix reduced_p, reduced_f;
  Vector increments, q_trial;
  // The explicit path's scratch (sized on first use).
  Vector q1, q_plus, q_minus, shifted, velocity, neg_residual;
  Matrix projected;  // P^T (dr/dq1 - 1/2 K), dof x n
  Eigen::ColPivHouseholderQR<Matrix> reduced_qr, multiplier_qr;
  Eigen::PartialPivLU<Matrix> reduced_lu;
  // The generic path's scratch, sized once: its Newton loop allocates nothing.
  Vector dq;
  Matrix g_svd;     // G(q_{1/2}) (kept rows), or one zero row without constraints
  Matrix jacobian;  // dr/dq1 - 1/2 K
  Eigen::JacobiSVD<Matrix> svd;
  Eigen::ColPivHouseholderQR<Matrix> solver;
  Eigen::JacobiSVD<Matrix> condition_svd;
};

class NullSpaceEm final : public FixedStepMethod {
 public:
  NullSpaceEm(double tol, int max_iterations, bool condition_every_step, bool explicit_null_space)
      : tol_(tol),
        max_iterations_(max_iterations),
        condition_every_step_(condition_every_step),
        explicit_null_space_(explicit_null_space) {}

  std::string CheckApplicable(const Problem& problem) const override {
    return CheckMidpointSchemeApplicable(problem);
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double /*h*/,
                                            FixedStepState& state, WorkCounters& /*counters*/,
                                            std::string& /*error*/) const override {
    auto ws = std::make_unique<NullSpaceWorkspace>(problem);
    if (explicit_null_space_) ws->tree = SphericalTree::Make(problem);
    state.lambda = Vector::Zero(ws->m_all);
    state.has_multipliers = ws->m_all > 0;
    return ws;
  }

  StepStatus Step(FixedStepWorkspace& base, double h, FixedStepState& state,
                  WorkCounters& counters) const override {
    auto& w = static_cast<NullSpaceWorkspace&>(base);
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n, m = w.m;
    w.balance.BeginStep(state.t, h, state.q, state.v);
    if (w.tree) return ReducedStep(w, h, state, counters);
    Vector& dq = w.dq;
    dq = h * state.v;  // predictor of the increment q1 - q0
    bool polish = false;
    for (int it = 0; it < max_iterations_; ++it) {
      w.balance.ResidualFromStep(dq, w.r);
      const Vector& q1 = w.balance.q1();
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      dae.CalcPhi(dws, w.balance.t1(), q1, w.phi_all);
      SelectRows(w.phi_all, w.kept, w.phi);
      dae.CalcPhiQ(dws, w.balance.t1(), q1, w.g_all);
      SelectRows(w.g_all, w.kept, w.g_end);
      // Discrete null space matrix (eq 11) and the least-squares multiplier of r.
      // (A problem without constraints: one zero row, whose null space is all of R^n.)
      if (m > 0) w.g_svd = w.g_mid;
      Eigen::JacobiSVD<Matrix>& svd = w.svd;
      svd.compute(w.g_svd, Eigen::ComputeFullV | Eigen::ComputeThinU);
      const auto& s = svd.singularValues();
      int rank = 0;
      for (int i = 0; i < s.size(); ++i)
        if (s[i] > 1e-10 * std::max(1.0, s.size() ? s[0] : 1.0)) ++rank;
      w.null_space = svd.matrixV().rightCols(n - rank);
      // mu = U_r S_r^-1 V_r^T r: the minimum-norm least-squares solution of G^T mu = r.
      w.mu.setZero();
      for (int i = 0; i < rank; ++i)
        w.mu += (svd.matrixV().col(i).dot(w.r) / s[i]) * svd.matrixU().col(i);
      w.mu_all.setZero();
      for (int i = 0; i < m; ++i) w.mu_all[w.kept[i]] = w.mu[i];
      if (m > 0)
        dae.CalcReactionStiffness(dws, w.balance.t_mid(), w.balance.q_mid(), w.mu_all, w.reaction);
      else
        w.reaction.setZero();
      const int rows = (n - rank) + m;
      w.iteration.resize(rows, n);
      w.residual.resize(rows);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      w.iteration.topRows(n - rank).noalias() = w.null_space.transpose() * w.jacobian;
      w.iteration.bottomRows(m) = w.g_end;
      w.residual.head(n - rank).noalias() = w.null_space.transpose() * w.r;
      w.residual.tail(m) = w.phi;
      if (it == 0 && (condition_every_step_ || w.condition_first < 0.0)) RecordCondition(w);
      w.solver.compute(w.iteration);
      ++counters.factorizations;
      ++counters.jacobian_evals;
      w.residual = -w.residual;
      w.delta.resize(n);
      SolveWithQr(w.solver, w.residual, w.delta);
      ++counters.newton_iterations;
      if (!w.delta.allFinite())
        return StepStatus::Failed("null-space-em: singular iteration matrix");
      dq += w.delta;
      // Converged after one more iteration once the change is below tol: the Newton matrix
      // is approximate (P varies along the iteration), so convergence is fast-linear, and the
      // extra iteration keeps the energy error at rounding level (a random walk otherwise).
      const bool small =
          w.delta.lpNorm<Eigen::Infinity>() <= tol_ * (1.0 + q1.lpNorm<Eigen::Infinity>());
      if (small && !polish) {
        polish = true;
        continue;
      }
      if (small) {
        w.balance.ResidualFromStep(dq, w.r);
        w.energy_residual_max = std::max(w.energy_residual_max, w.balance.StepEnergyResidual());
        state.v = w.balance.v1();
        state.q = w.balance.q1();
        state.lambda = -w.mu_all / h;  // r = G^T mu = -h G^T lambda (10.2)
        state.t += h;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("null-space-em: Newton did not converge in " +
                              std::to_string(max_iterations_) + " iterations");
  }

  // Paper 002 s2.2.2 with the explicit P (eq 92) and the reparametrisation q1 = F(mu)
  // (eqs 44, 95): P(q_1/2)^T r(F(mu)) = 0, dof equations in dof unknowns; the constraints
  // hold by construction. Newton matrix P^T (dr/dq1 - 1/2 K(q_1/2, mu_G)) dF/dmu (the
  // second term as in the generic form), dF/dmu by central differences (step 1e-6: error
  // 1e-12 relative, enough for the Newton matrix only; the residual is exact).
  StepStatus ReducedStep(NullSpaceWorkspace& w, double h, FixedStepState& state,
                         WorkCounters& counters) const {
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n, dof = w.tree->dof();
    // Predictor: the generalised velocities of v0 times h (P(q0) w = v0).
    w.tree->NullSpace(state.q, w.reduced_p);
    w.reduced_qr.compute(w.reduced_p);
    w.velocity = state.v;
    Vector& increments = w.increments;
    increments.resize(dof);
    SolveWithQr(w.reduced_qr, w.velocity, increments);
    increments *= h;
    w.tree->WrapRotations(increments);
    Vector& q1 = w.q1;
    Vector& q_plus = w.q_plus;
    Vector& q_minus = w.q_minus;
    q1.resize(n);
    q_plus.resize(n);
    q_minus.resize(n);
    w.reduced_f.resize(n, dof);
    for (int it = 0; it < max_iterations_; ++it) {
      w.tree->Configuration(state.q, increments, q1);
      w.balance.Residual(q1, w.r);
      w.tree->NullSpace(w.balance.q_mid(), w.reduced_p);
      for (int j = 0; j < dof; ++j) {
        const double step = 1e-6;
        Vector& shifted = w.shifted;
        shifted = increments;
        shifted[j] += step;
        w.tree->Configuration(state.q, shifted, q_plus);
        shifted[j] -= 2.0 * step;
        w.tree->Configuration(state.q, shifted, q_minus);
        w.reduced_f.col(j) = (q_plus - q_minus) / (2.0 * step);
      }
      w.balance.Residual(q1, w.r);  // restores q_mid and v1 of q1
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      SolveMultiplier(w);  // r = G^T mu
      dae.CalcReactionStiffness(dws, w.balance.t_mid(), w.balance.q_mid(), w.mu_all, w.reaction);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      w.projected.resize(dof, n);
      w.projected.noalias() = w.reduced_p.transpose() * w.jacobian;
      w.iteration.resize(dof, dof);
      w.iteration.noalias() = w.projected * w.reduced_f;
      w.residual.resize(dof);
      w.residual.noalias() = w.reduced_p.transpose() * w.r;
      if (it == 0 && (condition_every_step_ || w.condition_first < 0.0)) RecordCondition(w);
      w.reduced_lu.compute(w.iteration);
      w.neg_residual = -w.residual;
      w.delta.resize(dof);
      w.delta = w.reduced_lu.solve(w.neg_residual);
      ++counters.factorizations;
      ++counters.jacobian_evals;
      ++counters.newton_iterations;
      if (!w.delta.allFinite()) return StepStatus::Failed("null-space-em: singular reduced matrix");
      increments += w.delta;
      w.tree->WrapRotations(increments);  // the same q1, away from |theta| = 2 pi
      if (w.delta.lpNorm<Eigen::Infinity>() <=
          tol_ * (1.0 + increments.lpNorm<Eigen::Infinity>())) {
        w.tree->Configuration(state.q, increments, q1);
        w.balance.Residual(q1, w.r);
        dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
        SelectRows(w.g_all, w.kept, w.g_mid);
        SolveMultiplier(w);
        w.energy_residual_max = std::max(w.energy_residual_max, w.balance.StepEnergyResidual());
        state.v = w.balance.v1();
        state.q = q1;
        state.lambda = -w.mu_all / h;
        state.t += h;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed(
        "null-space-em (explicit S-pair null space): Newton did not converge in " +
        std::to_string(max_iterations_) + " iterations");
  }

  void Finish(FixedStepWorkspace& base, std::map<std::string, double>& metrics) const override {
    auto& w = static_cast<NullSpaceWorkspace&>(base);
    metrics["newton_unknowns"] = w.tree ? w.tree->dof() : w.n;
    metrics["iteration_matrix_condition.first"] = w.condition_first;
    metrics["iteration_matrix_condition.max"] = w.condition_max;
    metrics["step_energy_residual_max"] = w.energy_residual_max;
  }

 private:
  // mu (and mu_all) from r = G(q_{1/2})^T mu in least squares (the kept rows of g_mid).
  static void SolveMultiplier(NullSpaceWorkspace& w) {
    w.multiplier_qr.compute(w.g_mid.transpose());
    w.velocity = w.r;  // scratch of size n: overwritten with Q^T r
    SolveWithQr(w.multiplier_qr, w.velocity, w.mu);
    w.mu_all.setZero();
    for (int i = 0; i < w.m; ++i) w.mu_all[w.kept[i]] = w.mu[i];
  }

  static void RecordCondition(NullSpaceWorkspace& w) {
    const double c = ConditionNumber2(w.condition_svd, w.iteration);
    if (w.condition_first < 0.0) w.condition_first = c;
    w.condition_max = std::max(w.condition_max, c);
  }

  double tol_;
  int max_iterations_;
  bool condition_every_step_;
  bool explicit_null_space_;
};

}  // namespace

std::unique_ptr<Method> MakeNullSpaceEm(const ParameterSet& params) {
  return std::make_unique<NullSpaceEm>(params.GetDouble("tol", 1e-12),
                                       static_cast<int>(params.GetDouble("max_iterations", 30)),
                                       params.GetString("condition", "every-step") == "every-step",
                                       params.GetString("null_space", "explicit") == "explicit");
}

}  // namespace mbb
