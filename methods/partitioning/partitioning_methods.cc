// Coordinate partitioning methods of paper 003 (see the header): the choice of q_I, the
// explicit integrators on the k + n system (12), (9), the projection and the switch.
//
// State: the positions q (n) and the independent velocities v_I (k). A switch at a step end
// re-reads v_I from the full velocity q' (9) of the state: the velocity is continuous and
// q_I' of the new partition is one of its components. The Adams-Bashforth history is kept as
// full (q', q'') so that the history of v_I' after a switch is q''(I_new) of the past steps
// (the order survives a switch; the error constant need not: docs/methods/partitioning.md).
#include "methods/partitioning/partitioning_methods.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "methods/common/explicit_runge_kutta.h"
#include "methods/fixed_step_method.h"
#include "methods/partitioning/partitioned_equations.h"
#include "methods/partitioning/projective_criterion.h"
#include "methods/partitioning/reactions.h"
#include "problems/model/model_structure.h"

namespace mbb {
namespace {

enum class Selection { kProjective, kSvd, kFixed };
enum class Integrator { kRk4, kDopri5, kAb4 };

struct PartitioningOptions {
  Selection selection = Selection::kProjective;
  Integrator integrator = Integrator::kRk4;
  double hysteresis = 0.01;
  bool projection = true;
  int independent = 0;  // fixed: 1-based index of the named coordinate, 0 = criterion at t0
  bool reactions = false;
  bool restart_after_switch = false;  // ab4: RK4 start-up after a switch
};

// Adams-Bashforth 4: y_{n+1} = y_n + h/24 (55 f_n - 59 f_{n-1} + 37 f_{n-2} - 9 f_{n-3})
// [Hairer et al. 1993, s III.1].
// A partition is left when its C_D's condition number exceeds the best candidate's by this
// factor, whatever the criterion says (two decades: far from the four-bar's range, where
// cond(C_D) stays below 30, and well before a singular C_D ruins the projection).
constexpr double kConditionRatio = 100.0;
constexpr double kAb4[4] = {55.0 / 24.0, -59.0 / 24.0, 37.0 / 24.0, -9.0 / 24.0};

struct Workspace final : FixedStepWorkspace {
  Workspace(const Problem& p, const ButcherTableau& tableau)
      : eq(*p.dae),
        rk(tableau, 2 * p.n()),  // y = [q; v_I], k <= n
        criterion(p.n(), p.m()),
        n(p.n()),
        m(p.m()),
        q(p.n()),
        q_stage(p.n()),
        q_dot(p.n()),
        q_ddot(p.n()),
        hist_q(p.n(), 4),
        hist_a(p.n(), 4),
        weight(p.n()),
        cos2(p.n()),
        mass(p.n(), p.n()) {}

  PartitionedEquations eq;
  ExplicitRungeKutta rk;  // rk4 (also the ab4 start-up) or dopri5
  ProjectiveCriterion criterion;
  std::unique_ptr<JointReactions> reactions;
  int n, m, k = 0;
  Partition partition, candidate;
  Vector q, q_stage, q_dot, q_ddot;
  Vector v_i, v_stage;
  Matrix hist_q, hist_a;  // Adams-Bashforth history, newest in column 0
  int history = 0;        // valid history columns
  Vector weight, cos2;
  bool weight_is_cos2 = false;     // weight holds (23a) at the state Publish reports
  Vector cos2_min, cos2_max;       // (23a) per coordinate over the reported states (NaN skipped)
  std::vector<std::string> names;  // coordinate names of the metrics
  std::vector<int> gauge_rows;     // rows intrinsic to a body (Euler-parameter normalisation)
  Matrix mass;
  double h_proposal = 0.0;
  long switches = 0;
  double cond_max = 0.0;
  int det_sign = 0;  // sign of det C_D at the last step end (fixed partition), 0: not yet
  double reaction_spread = 0.0;
};

Workspace& Cast(FixedStepWorkspace& w) { return MBB_DOWNCAST(Workspace, w); }

class PartitioningMethod final : public FixedStepMethod {
 public:
  explicit PartitioningMethod(PartitioningOptions options) : options_(options) {}

  std::string CheckApplicable(const Problem& problem) const override {
    // The rank of Phi_q at the start, not m: redundant constraints (Bricard) leave k > 0.
    auto ws = problem.dae->MakeWorkspace();
    Matrix c(problem.m(), problem.n());
    problem.dae->CalcPhiQ(*ws, problem.t0, problem.q0, c);
    Partition rows;
    const int r = PartitionKinematics(problem.n(), problem.m()).FindRows(c, rows);
    if (r >= problem.n())
      return "coordinate partitioning needs an independent coordinate (rank Phi_q = " +
             std::to_string(r) + " = n)";
    if (options_.reactions) return JointReactions::CheckApplicable(problem);
    return {};
  }

  std::string CheckParameters(const Problem& problem) const override {
    if (options_.independent <= problem.n()) return {};
    return "partitioning: parameter 'independent' = " + std::to_string(options_.independent) +
           ", but the problem has " + std::to_string(problem.n()) +
           " coordinates (1-based index of one of them)";
  }

  std::vector<std::string> ExtraSeriesNames(const Problem& problem) const override {
    std::vector<std::string> names;
    for (const std::string& c : CoordinateNames(problem)) names.push_back("cos2_" + c);
    const int k = problem.n() - problem.m();  // the full-rank count; redundant rows add more
    names.push_back("independent");
    for (int j = 2; j <= k; ++j) names.push_back("independent_" + std::to_string(j));
    if (options_.reactions)
      for (const std::string& r : JointReactions::SeriesNames(problem)) names.push_back(r);
    return names;
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double h, FixedStepState& state,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    auto w = std::make_unique<Workspace>(
        problem, options_.integrator == Integrator::kDopri5 ? DormandPrince5() : ClassicalRk4());
    w->q = state.q;
    w->names = CoordinateNames(problem);
    w->cos2_min = Vector::Constant(w->n, std::numeric_limits<double>::infinity());
    w->cos2_max = Vector::Constant(w->n, -std::numeric_limits<double>::infinity());
    w->h_proposal = h;
    if (options_.reactions) w->reactions = std::make_unique<JointReactions>(problem);
    if (problem.structure)
      for (const ConstraintRows& rows : problem.structure->rows)
        if (rows.owner == ConstraintRows::Owner::kBody)
          for (int r = 0; r < rows.num_rows; ++r) w->gauge_rows.push_back(rows.first_row + r);
    if (!ChooseInitial(*w, state.t, error)) return nullptr;
    w->k = static_cast<int>(w->partition.independent.size());
    for (Vector* x : {&w->v_i, &w->v_stage}) x->resize(w->k);
    for (int j = 0; j < w->k; ++j) w->v_i[j] = state.v[w->partition.independent[j]];
    if (!w->eq.Rates(state.t, w->q, w->partition, w->v_i, w->q_dot, w->q_ddot)) {
      error = "singular C_D or M_d at the start";
      return nullptr;
    }
    ++counters.rhs_evals;
    state.extra.resize(static_cast<long>(ExtraSeriesNames(problem).size()));
    state.has_extra = true;
    Publish(*w, state);
    return w;
  }

  bool AdaptiveSteps() const override { return options_.integrator == Integrator::kDopri5; }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& state,
                  WorkCounters& counters) const override {
    Workspace& w = Cast(workspace);
    const double t = state.t;
    double taken = h;
    std::string why;
    bool ok = true;
    // The factors hold C_D at the step's start (the last Rates call).
    if (options_.selection == Selection::kFixed && w.det_sign == 0)
      w.det_sign = w.eq.DeterminantSignDependent();
    switch (options_.integrator) {
      case Integrator::kRk4:
        ok = RungeKuttaStep(w, t, h, counters, why);
        break;
      case Integrator::kAb4:
        ok = AdamsBashforthStep(w, t, h, counters, why);
        break;
      case Integrator::kDopri5:
        ok = AdaptiveStep(w, t, h, taken, counters, why);
        break;
    }
    if (!ok) return StepStatus::Failed(why);
    const double t_new = t + taken;
    if (options_.projection && !w.eq.Project(t_new, w.q, w.partition))
      return StepStatus::Failed("projection onto Phi = 0 along q_D did not converge");
    if (!w.eq.Rates(t_new, w.q, w.partition, w.v_i, w.q_dot, w.q_ddot))
      return StepStatus::Failed("singular C_D or M_d after the step");
    ++counters.rhs_evals;
    w.cond_max = std::max(w.cond_max, w.eq.ConditionDependent());
    // A fixed partition whose det C_D changed sign within the step passed a singular C_D:
    // q_D is not a function of q_I there, and the projection along q_D may have put the
    // mechanism on another branch (a pendulum mirrored about its rod's line) with every
    // residual small. Stop instead of returning `ok` with a wrong motion (paper 003's
    // reason to switch partitions).
    if (options_.selection == Selection::kFixed) {
      const int sign = w.eq.DeterminantSignDependent();
      if (sign != w.det_sign)
        return StepStatus::Failed(
            "the fixed partition's C_D passed through a singular matrix (det C_D changed "
            "sign): the dependent coordinates are not a function of the independent ones "
            "there (use partitioning-projective or -svd, which switch)");
    }
    if (options_.integrator == Integrator::kAb4) PushHistory(w);
    state.t = t_new;
    if (options_.selection != Selection::kFixed && !Reselect(w, t_new, counters))
      return StepStatus::Failed("no valid partition at the step end");
    Publish(w, state);
    if (AdaptiveSteps()) return StepStatus::Accepted(taken, w.h_proposal);
    return StepStatus::Ok();
  }

  void Finish(FixedStepWorkspace& workspace,
              std::map<std::string, double>& metrics) const override {
    Workspace& w = Cast(workspace);
    metrics["partition_switches"] = static_cast<double>(w.switches);
    metrics["cond_c_d_max"] = w.cond_max;
    if (options_.reactions) metrics["reaction_formula_spread"] = w.reaction_spread;
    // The range of (23a) over the reported states (the start and every step end): paper
    // 003's Fig 3 and eq (26) as numbers a claim can hold (docs/result-schema.md).
    for (int i = 0; i < w.n; ++i) {
      if (!(w.cos2_min[i] <= w.cos2_max[i])) continue;  // never computable
      metrics["cos2_min." + w.names[i]] = w.cos2_min[i];
      metrics["cos2_max." + w.names[i]] = w.cos2_max[i];
    }
  }

 private:
  // Weights of the choice at (t, q): (23a) or the SVD score; false if not computable.
  bool Weights(Workspace& w, double t, Selection selection) const {
    const Matrix& c = w.eq.UpdateJacobian(t, w.q);
    if (selection == Selection::kSvd) return w.criterion.SvdScore(c, w.weight);
    MetricMass(w, c);
    return w.criterion.CosAlpha(w.mass, c, w.weight);
  }

  // The metric of the criterion: M, plus s c^T c for every row intrinsic to a body (the
  // Euler-parameter normalisation), s = the largest diagonal entry of M on the row's support
  // over |c|^2. Such a row is a gauge condition, not a mechanical constraint: M is singular
  // along it (4 G^T J G e = 0), which would rate every Euler parameter cos^2 = 0 (the Schur
  // complement along e vanishes). D c^T = 0, so M_d, the numerator of (23a) and the motion
  // are unchanged; only |k_i|^2 = M^-1(i, i) becomes finite.
  void MetricMass(Workspace& w, const Matrix& c) const {
    w.eq.dae().CalcMassMatrix(w.eq.workspace(), w.q, w.mass);
    for (int row : w.gauge_rows) {
      double diagonal = 0.0;
      for (int j = 0; j < w.n; ++j)
        if (c(row, j) != 0.0) diagonal = std::max(diagonal, std::abs(w.mass(j, j)));
      const double norm2 = c.row(row).squaredNorm();
      if (!(norm2 > 0.0) || !(diagonal > 0.0)) continue;
      w.mass.noalias() += (diagonal / norm2) * c.row(row).transpose() * c.row(row);
    }
  }

  bool ChooseInitial(Workspace& w, double t, std::string& error) const {
    const Selection selection =
        options_.selection == Selection::kSvd ? Selection::kSvd : Selection::kProjective;
    if (!Weights(w, t, selection)) {
      error = "the criterion cannot be evaluated at the start (M_d not positive definite)";
      return false;
    }
    const Matrix& c = w.eq.phi_q();
    w.eq.kinematics().FindRows(c, w.partition);
    if (options_.selection == Selection::kFixed && options_.independent > 0)
      w.weight[options_.independent - 1] = std::numeric_limits<double>::infinity();
    w.eq.kinematics().ChooseByWeight(c, w.weight, w.partition);
    if (options_.selection == Selection::kFixed && options_.independent > 0 &&
        std::find(w.partition.independent.begin(), w.partition.independent.end(),
                  options_.independent - 1) == w.partition.independent.end()) {
      error = "coordinate " + std::to_string(options_.independent) +
              " cannot be independent at the start (C_D singular without it)";
      return false;
    }
    if (!w.eq.Prepare(t, w.q, w.partition)) {
      error = "singular C_D for the chosen partition";
      return false;
    }
    return true;
  }

  // The choice after a step: switch when the best partition's summed weight beats the
  // current one's by the hysteresis, or when the current C_D has become singular.
  bool Reselect(Workspace& w, double t, WorkCounters& counters) const {
    if (!Weights(w, t, options_.selection)) return false;
    // The projective choice's weights are (23a) at this state, which Publish reports next.
    w.weight_is_cos2 = options_.selection == Selection::kProjective;
    const Matrix& c = w.eq.phi_q();
    // The independent rows of C: Weights' criterion has just found them on this C (complete
    // pivoting, deterministic), so they are taken from it rather than eliminated again.
    w.candidate.rows = w.criterion.partition().rows;
    w.eq.kinematics().ChooseByWeight(c, w.weight, w.candidate);
    if (w.candidate == w.partition) return true;
    double current = 0.0, best = 0.0;
    for (int j : w.partition.independent) current += w.weight[j];
    for (int j : w.candidate.independent) best += w.weight[j];
    const bool current_valid = w.eq.Prepare(t, w.q, w.partition);
    const double current_cond = current_valid ? w.eq.ConditionDependent() : 0.0;
    if (!w.eq.Prepare(t, w.q, w.candidate)) {
      if (current_valid) w.eq.Prepare(t, w.q, w.partition);  // keep the current factors
      return current_valid;
    }
    // For k > 1 the summed weights barely move while one direction of C_D degenerates (seen
    // on the spin top in Euler parameters): also leave a partition whose C_D has become far
    // worse conditioned than the candidate's.
    const bool degenerating = current_cond > kConditionRatio * w.eq.ConditionDependent();
    if (current_valid && !degenerating && best <= current + options_.hysteresis &&
        w.candidate.independent.size() == w.partition.independent.size()) {
      w.eq.Prepare(t, w.q, w.partition);
      return true;
    }
    // Switch: v_I from the full velocity, which the old partition gave by (9).
    w.partition.independent = w.candidate.independent;
    w.partition.dependent = w.candidate.dependent;
    w.partition.rows = w.candidate.rows;
    w.k = static_cast<int>(w.partition.independent.size());
    for (int j = 0; j < w.k; ++j) w.v_i[j] = w.q_dot[w.partition.independent[j]];
    ++w.switches;
    if (!w.eq.Rates(t, w.q, w.partition, w.v_i, w.q_dot, w.q_ddot)) return false;
    ++counters.rhs_evals;
    if (options_.integrator == Integrator::kAb4 && w.history > 0) {
      w.hist_q.col(0) = w.q_dot;  // same state, same q' and q'' up to rounding
      w.hist_a.col(0) = w.q_ddot;
      if (options_.restart_after_switch) w.history = 1;  // RK4 start-up again
    }
    return true;
  }

  // Rates of y = [q; v_I] into k: q' (9) and v_I' = q''(I) (12).
  bool StageRates(Workspace& w, double t, ConstVectorRef y, VectorRef k,
                  WorkCounters& counters) const {
    ++counters.rhs_evals;
    w.q_stage = y.head(w.n);
    w.v_stage = y.tail(w.k);
    if (!w.eq.Rates(t, w.q_stage, w.partition, w.v_stage, w.q_dot, w.q_ddot)) return false;
    k.head(w.n) = w.q_dot;
    for (int i = 0; i < w.k; ++i) k[w.n + i] = w.q_ddot[w.partition.independent[i]];
    return true;
  }

  // The RK engine on y = [q; v_I] from the current state (ExplicitRungeKutta).
  void LoadStart(Workspace& w) const {
    w.rk.Resize(w.n + w.k);
    w.rk.start().head(w.n) = w.q;
    w.rk.start().tail(w.k) = w.v_i;
  }
  void StoreSolution(Workspace& w) const {
    w.q = w.rk.solution().head(w.n);
    w.v_i = w.rk.solution().tail(w.k);
  }

  // One classical RK4 step of size h (the rk4 integrator, the ab4 start-up).
  bool RungeKuttaStep(Workspace& w, double t, double h, WorkCounters& counters,
                      std::string& why) const {
    LoadStart(w);
    auto rates = [&](double ts, ConstVectorRef y, VectorRef k, int) {
      return StageRates(w, ts, y, k, counters);
    };
    if (w.rk.Step(t, h, rates) != 0) {
      why = "singular C_D or M_d in a stage";
      return false;
    }
    StoreSolution(w);
    return true;
  }

  // Dormand-Prince 5(4) with the shared controller; `taken` is the accepted step.
  bool AdaptiveStep(Workspace& w, double t, double h, double& taken, WorkCounters& counters,
                    std::string& why) const {
    LoadStart(w);
    auto rates = [&](double ts, ConstVectorRef y, VectorRef k, int) {
      return StageRates(w, ts, y, k, counters);
    };
    const AdaptiveRkStep step = w.rk.AdaptiveStep(t, h, w.rtol, w.atol, rates, counters);
    if (!step.ok()) {
      why = step.underflow ? step.UnderflowMessage(t) : "singular C_D or M_d in a stage";
      return false;
    }
    taken = step.h_taken;
    w.h_proposal = step.h_next;
    StoreSolution(w);
    return true;
  }

  void PushHistory(Workspace& w) const {
    for (int c = 3; c > 0; --c) {
      w.hist_q.col(c) = w.hist_q.col(c - 1);
      w.hist_a.col(c) = w.hist_a.col(c - 1);
    }
    w.hist_q.col(0) = w.q_dot;
    w.hist_a.col(0) = w.q_ddot;
    w.history = std::min(w.history + 1, 4);
  }

  // AB4 once four derivatives are known (the start's and three RK4 steps'); RK4 before, and
  // for a step shorter than h (the last one, landing on t_end).
  bool AdamsBashforthStep(Workspace& w, double t, double h, WorkCounters& counters,
                          std::string& why) const {
    if (w.history == 0) {  // the start: f(t0)
      w.hist_q.col(0) = w.q_dot;
      w.hist_a.col(0) = w.q_ddot;
      w.history = 1;
    }
    if (w.history < 4 || std::abs(h - w.h_proposal) > 1e-12 * w.h_proposal)
      return RungeKuttaStep(w, t, h, counters, why);
    for (int c = 0; c < 4; ++c) {
      w.q.noalias() += (h * kAb4[c]) * w.hist_q.col(c);
      for (int i = 0; i < w.k; ++i)
        w.v_i[i] += h * kAb4[c] * w.hist_a(w.partition.independent[i], c);
    }
    return true;
  }

  // The reported state: q, q' (9), q'' (10), the criterion, the partition, reactions.
  void Publish(Workspace& w, FixedStepState& state) const {
    state.q = w.q;
    state.v = w.q_dot;
    state.a = w.q_ddot;
    state.has_acceleration = true;
    // The series reports (23a) for every method (the SVD method chooses by its own score).
    // Where the choice did not compute it, it is a metric only: not in the harness's timed
    // repeats (RunSettings::diagnostics), where it was about a sixth of an SVD step on
    // Bricard; the steps do not depend on it.
    if (w.weight_is_cos2) {  // Reselect evaluated (23a) at this (t, q) already
      w.cos2 = w.weight;
    } else {
      const Matrix& c = w.eq.UpdateJacobian(state.t, w.q);  // the reactions below read it
      if (w.diagnostics) {
        MetricMass(w, c);
        if (!w.criterion.CosAlpha(w.mass, c, w.cos2)) w.cos2.setConstant(std::nan(""));
      } else {
        w.cos2.setConstant(std::nan(""));
      }
    }
    w.weight_is_cos2 = false;
    int e = 0;
    for (int i = 0; i < w.n; ++i) {
      state.extra[e++] = w.cos2[i];
      if (std::isnan(w.cos2[i])) continue;
      w.cos2_min[i] = std::min(w.cos2_min[i], w.cos2[i]);
      w.cos2_max[i] = std::max(w.cos2_max[i], w.cos2[i]);
    }
    const int columns = w.n - w.m > 0 ? w.n - w.m : 0;
    for (int j = 0; j < std::max(columns, 1); ++j)
      state.extra[e++] = j < w.k ? w.partition.independent[j] + 1 : std::nan("");
    if (w.reactions) {
      // Needs M, Q of the state: Rates ran at this state last (Step, Reselect or Begin).
      w.eq.Rates(state.t, w.q, w.partition, w.v_i, w.q_dot, w.q_ddot);
      const double spread = w.reactions->Compute(w.eq, w.partition, w.q, w.q_dot, w.q_ddot,
                                                 state.extra.tail(state.extra.size() - e));
      w.reaction_spread = std::max(w.reaction_spread, spread);
    }
  }

  PartitioningOptions options_;
};

PartitioningOptions Parse(const ParameterSet& p, Selection selection) {
  PartitioningOptions o;
  o.selection = selection;
  const std::string integrator = p.GetString("integrator", "rk4");
  o.integrator = integrator == "dopri5" ? Integrator::kDopri5
                 : integrator == "ab4"  ? Integrator::kAb4
                                        : Integrator::kRk4;
  o.hysteresis = p.GetDouble("hysteresis", 0.01);
  o.projection = p.GetString("projection", "on") == "on";
  o.independent = static_cast<int>(p.GetDouble("independent", 0.0));
  o.reactions = p.GetString("reactions", "off") == "on";
  o.restart_after_switch = p.GetString("ab_restart", "off") == "on";
  return o;
}

}  // namespace

std::vector<std::string> CoordinateNames(const Problem& problem) {
  const int n = problem.n();
  if (static_cast<int>(problem.coordinate_names.size()) == n) return problem.coordinate_names;
  std::vector<std::string> names(n);
  for (int i = 0; i < n; ++i) names[i] = "q" + std::to_string(i + 1);
  if (!problem.structure) return names;
  // Named as the formulation declared each block (problems/model/body_motion.h); a layout
  // without names here (directors) numbers its coordinates.
  static const char* const kPlanar[] = {"x", "y", "theta"};
  static const char* const kSpatial[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
  for (const BodyCoordinates& b : problem.structure->bodies) {
    const bool planar = b.layout == BodyLayout::kPlanarPose || b.layout == BodyLayout::kPlanarPoint;
    const bool spatial =
        b.layout == BodyLayout::kEulerParameters || b.layout == BodyLayout::kSpatialPoint;
    for (int j = 0; j < b.size && b.offset + j < n; ++j) {
      const char* suffix = planar && j < 3 ? kPlanar[j] : spatial && j < 7 ? kSpatial[j] : nullptr;
      names[b.offset + j] = b.name + "_" + (suffix ? suffix : std::to_string(j + 1));
    }
  }
  return names;
}

std::vector<MethodEntry> PartitioningMethodEntries() {
  const ParameterSpec integrator{"integrator",
                                 "rk4",
                                 "rk4 (fixed h), dopri5 (adaptive, rtol/atol), ab4 "
                                 "(Adams-Bashforth 4, fixed h, RK4 start-up)",
                                 {"rk4", "dopri5", "ab4"}};
  const ParameterSpec projection{
      "projection", "on", "Newton onto Phi = 0 along q_D after every step", {"on", "off"}};
  const ParameterSpec reactions{
      "reactions", "off", "joint reactions by (35), (37), (38) in the series", {"off", "on"}};
  const ParameterSpec ab_restart{
      "ab_restart",
      "off",
      "ab4: restart with RK4 steps after a switch (off: keep the history as q''(I_new))",
      {"off", "on"}};
  ParameterSpec hysteresis{
      "hysteresis", "0.01", "switch when another choice's cos^2 sum beats the current by this", {}};
  hysteresis.min = 0.0;
  ParameterSpec independent{"independent",
                            "0",
                            "1-based index of the independent coordinate (0: the projective "
                            "choice at t0); k > 1: completed by the criterion at t0",
                            {}};
  independent.min = 0.0;
  independent.integer = true;
  // RK4 is fourth order [Hairer et al. 1993, s II.1]; the projection along q_D keeps Phi = 0
  // to rounding and q' of (9) satisfies Phi_q q' + Phi_t = 0 exactly, q'' of (10) the
  // acceleration constraint.
  const MethodPromises promises = MethodPromises::Order(4).Position().Velocity().Acceleration();
  // rk4 and ab4 step at h; dopri5 controls its steps by rtol / atol from a first step h.
  const StepControl step = StepControl::ByParameter(
      "integrator",
      {{"rk4", StepMode::kFixed}, {"dopri5", StepMode::kAdaptiveFromH}, {"ab4", StepMode::kFixed}});
  auto entry = [&](const char* name, const char* summary, Selection selection,
                   std::vector<ParameterSpec> extra) {
    std::vector<ParameterSpec> specs = {integrator, projection, reactions, ab_restart};
    for (auto& s : extra) specs.push_back(s);
    return MethodEntry{.name = name,
                       .summary = summary,
                       .source = "003 s2-s3 eqs 9-14, 23a",
                       .parameters = specs,
                       .create =
                           [selection](const ParameterSet& p) {
                             return std::make_unique<PartitioningMethod>(Parse(p, selection));
                           },
                       .step = step,
                       .promises = promises};
  };
  return {
      entry("partitioning-fixed",
            "coordinate partitioning (12) with (9), the user's independent coordinates",
            Selection::kFixed, {independent}),
      entry("partitioning-projective",
            "coordinate partitioning (12) with (9), q_I switched by the projective criterion (23a)",
            Selection::kProjective, {hysteresis}),
      entry("partitioning-svd",
            "coordinate partitioning (12) with (9), q_I switched by the SVD of C (geometry only)",
            Selection::kSvd, {hysteresis}),
  };
}

}  // namespace mbb
