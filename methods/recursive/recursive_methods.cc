// Methods on the joint-tree formulation (paper 004; problems/model/joint_tree.h):
//
//   recursive            the classical O(N) recursion with inverses (recursive_formalism.h,
//                        (17), (24a), (25a)): q'' = a(t, q, q') integrated by IDA (BDF,
//                        residual v' - a), with `integrator=rk4` classical RK4 at a
//                        fixed step h, or with `integrator=dopri5` Dormand-Prince 5(4) with
//                        its embedded error control (rtol/atol, h the first step;
//                        methods/common/explicit_runge_kutta.h).
//   recursive-zero-mass  the rank-deficient formalism ((17) with pseudo-inverses, (24a,b),
//                        (25a,b), (26)): the mixed first/second-order equations as the
//                        index-1 DAE  q' = v,  R(t, q, v, v') = 0  integrated by IDA in the
//                        residual form (25)/(26) (section 3.5's (q, eta, zeta) variables need
//                        X' and T', which the paper does not give).
//   joint-dense          the baseline M(q) q'' = Q(t, q, q') with M assembled column by column
//                        (O(N) inverse dynamics each) and factorised densely (LDL^T, O(N^3)).
//
// Every right-hand side and residual evaluation is allocation-free (buffers sized once).
// IDA uses its dense difference-quotient Jacobian (2n x 2n): runs are for trees of moderate
// size; scripts/bench/recursive_scaling.sh times single evaluations up to N = 1e5.
#include <cmath>

#include "methods/common/explicit_runge_kutta.h"
#include "methods/common/run_loop.h"
#include "methods/recursive/recursive_methods.h"
#include "methods/sundials/ida_driver.h"
#include "problems/model/body_motion.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

const JointTreeDae* TreeOf(const Problem& problem) {
  return dynamic_cast<const JointTreeDae*>(problem.dae.get());
}

enum class Integrator { kIda, kRk4, kDopri5 };

// One evaluation kind per method: the ODE q'' = a(t, q, q') or the DAE residual.
class TreeEquations {
 public:
  virtual ~TreeEquations() = default;
  virtual bool is_ode() const = 0;
  /// ODE: q''; false if the mass matrix is singular.
  virtual bool Accelerations(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a) = 0;
  /// DAE residual for the trial q'' = vp (the ODE form: vp - a).
  virtual bool Residual(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef vp,
                        VectorRef r) = 0;
  /// A consistent start for v' (ODE: a; DAE: the minimum-norm solution).
  virtual bool InitialAcceleration(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a) {
    return Accelerations(t, q, v, a);
  }
  /// 1 for velocity components IDA's error test weighs, 0 for those holding algebraic
  /// components (ZeroMassEquations).
  virtual void DifferentialVelocities(VectorRef id) const { id.setOnes(); }
  /// Why the last evaluation failed beyond a singular mass matrix: a spatial tree's chart
  /// that came too close to its singular set (joint_tree_spatial.h); empty otherwise.
  const std::string& chart_failure() const { return chart_failure_; }

 protected:
  // Records the chart failure of `state`; true if there is one.
  bool ChartFailed(const JointTreeDae& dae, const TreeState& state) {
    chart_failure_ = dae.ChartFailure(state);
    return !chart_failure_.empty();
  }

 private:
  std::string chart_failure_;
};

class OdeEquations : public TreeEquations {
 public:
  explicit OdeEquations(int n) : a_(n) {}
  bool is_ode() const override { return true; }
  bool Residual(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef vp,
                VectorRef r) override {
    if (!Accelerations(t, q, v, a_)) return false;
    r = vp - a_;
    return true;
  }

 private:
  Vector a_;
};

class RecursiveEquations final : public OdeEquations {
 public:
  explicit RecursiveEquations(const JointTreeDae& dae)
      : OdeEquations(dae.num_coordinates()), formalism_(dae, 1e-10, /*inverses=*/true) {}
  bool Accelerations(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a) override {
    formalism_.Backward(t, q, v);
    if (ChartFailed(formalism_.dae(), formalism_.state())) return false;
    return formalism_.FullRankAccelerations(a);
  }

 private:
  RecursiveFormalism formalism_;
};

class DenseEquations final : public OdeEquations {
 public:
  explicit DenseEquations(const JointTreeDae& dae)
      : OdeEquations(dae.num_coordinates()),
        dae_(dae),
        ws_(dae.MakeWorkspace()),
        mass_(dae.num_coordinates(), dae.num_coordinates()),
        forces_(dae.num_coordinates()),
        ldlt_(dae.num_coordinates()) {}
  bool Accelerations(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a) override {
    dae_.CalcMassMatrix(*ws_, q, mass_);
    dae_.CalcForces(*ws_, t, q, v, forces_);
    if (ChartFailed(dae_, dae_.StateOf(*ws_))) return false;
    ldlt_.compute(mass_);  // dense LDL^T, O(n^3)
    if (ldlt_.info() != Eigen::Success || !(ldlt_.vectorD().minCoeff() > 0.0)) return false;
    a = ldlt_.solve(forces_);
    return true;
  }

 private:
  const JointTreeDae& dae_;
  std::unique_ptr<DaeWorkspace> ws_;
  Matrix mass_;
  Vector forces_;
  Eigen::LDLT<Matrix> ldlt_;
};

class ZeroMassEquations final : public TreeEquations {
 public:
  ZeroMassEquations(const JointTreeDae& dae, double rank_tolerance)
      : formalism_(dae, rank_tolerance) {}
  bool is_ode() const override { return false; }
  bool Accelerations(double, ConstVectorRef, ConstVectorRef, VectorRef) override { return false; }
  bool Residual(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef vp,
                VectorRef r) override {
    formalism_.Backward(t, q, v);
    if (ChartFailed(formalism_.dae(), formalism_.state())) return false;
    formalism_.Residual(vp, r);
    return true;
  }
  bool InitialAcceleration(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a) override {
    formalism_.Backward(t, q, v);
    if (ChartFailed(formalism_.dae(), formalism_.state())) return false;
    formalism_.PseudoInverseAccelerations(a);
    return true;
  }
  // Velocities holding algebraic components: those of a body with r_i < n_i (zeta_i, (31))
  // and of its successors j, whose q_j' = X_j (v_j + T_j q_i') carries zeta_i through T_j
  // ((29), (30)); their positions stay in the error test.
  void DifferentialVelocities(VectorRef id) const override {
    id.setOnes();
    const auto& bodies = formalism_.dae().bodies();
    for (int i = 0; i < formalism_.dae().num_bodies(); ++i) {
      const TreeBody& b = bodies[i];
      const bool deficient = formalism_.rank(i) < b.n;
      const bool after_deficient = b.parent >= 0 && formalism_.rank(b.parent) < bodies[b.parent].n;
      if (deficient || after_deficient) id.segment(b.q_offset, b.n).setZero();
    }
  }

 private:
  RecursiveFormalism formalism_;
};

std::string FailureOf(const TreeEquations& equations) {
  // Bodies without mass or inertia make J^T Mbar J (and M(q)) singular unless massive
  // successors carry their joints: the rank-deficient formalism treats them.
  return equations.chart_failure().empty()
             ? "singular projected mass matrix (a body without mass or inertia? "
               "recursive-zero-mass treats such trees, paper 004 s3)"
             : equations.chart_failure();
}

// IDA user data: y = (q, v), residual (q' - v, R(t, q, v, v')).
struct IdaData {
  TreeEquations* equations;
  int n;
  static int Callback(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
    auto* d = static_cast<IdaData*>(user);
    const int n = d->n;
    const double* yv = N_VGetArrayPointer(y);
    const double* ypv = N_VGetArrayPointer(yp);
    double* rv = N_VGetArrayPointer(r);
    Eigen::Map<const Vector> q(yv, n), v(yv + n, n), qp(ypv, n), vp(ypv + n, n);
    Eigen::Map<Vector> rq(rv, n), rr(rv + n, n);
    rq = qp - v;
    if (!d->equations->Residual(t, q, v, vp, rr)) return 1;  // recoverable: IDA cuts h
    for (int i = 0; i < 2 * n; ++i)
      if (!std::isfinite(rv[i])) return 1;
    return 0;
  }
};

RunOutcome RunTreeIda(const Problem& problem, const RunSettings& settings, StepObserver& observer,
                      TreeEquations& equations) {
  RunOutcome outcome;
  SundialsContext ctx;
  const int n = problem.n(), size = 2 * n;
  SerialVector y(size, ctx), yp(size, ctx);
  Eigen::Map<Vector> yv(y.data(), size), ypv(yp.data(), size);
  yv.head(n) = problem.q0;
  yv.tail(n) = problem.v0;
  ypv.head(n) = problem.v0;
  Vector a0(n);
  if (!equations.InitialAcceleration(settings.t0, problem.q0, problem.v0, a0)) {
    outcome.status = RunStatus::kFailed;
    outcome.message = "initial acceleration: " + FailureOf(equations);
    return outcome;
  }
  ypv.tail(n) = a0;
  // Velocities holding algebraic components (decided at t0) are left out of the error test,
  // as the `ida` method does with the multipliers: in (q, q') coordinates the successor's
  // velocity mixes in the algebraic zeta_i, and with it in the test nearly every step was
  // rejected (small_mass_oscillator m1 = 0: 231137 steps instead of about 100).
  SerialVector id(size, ctx);
  Eigen::Map<Vector> idv(id.data(), size);
  idv.head(n).setOnes();
  equations.DifferentialVelocities(idv.tail(n));
  IdaData data{&equations, n};
  Vector q(n), v(n), a(n);
  IdaSetup setup;
  setup.residual = IdaData::Callback;
  setup.user_data = &data;
  if (idv.minCoeff() == 0.0) setup.id = id;
  setup.too_large_hint = " (recursive and joint-dense take --set integrator=rk4, a fixed step)";
  setup.sample = [&](double t) -> StepSample {
    q = yv.head(n);
    v = yv.tail(n);
    a = ypv.tail(n);
    return {t, q, v, &a};
  };
  setup.failure_note = [&equations] { return equations.chart_failure(); };
  return RunIda(setup, ctx, y, yp, settings, observer);
}

// The start both explicit schemes share: the initial acceleration of (q, v), and the start
// reported to the observer; false (the run ended failed, `outcome` finished) when the
// recursion cannot evaluate it.
bool StartExplicitRun(double t0, TreeEquations& equations, RunLoop& loop, const Vector& q,
                      const Vector& v, Vector& a, RunOutcome& outcome) {
  if (!equations.Accelerations(t0, q, v, a)) {
    loop.End(RunStatus::kFailed, "initial acceleration: " + FailureOf(equations));
    loop.Finish(outcome);
    return false;
  }
  loop.ReportStart({t0, q, v, &a});
  return true;
}

// y' = (v, a(t, q, v)) on y = (q, v) of size 2n: the explicit schemes' right-hand side, each
// evaluation counted.
auto ExplicitRates(int n, TreeEquations& equations, WorkCounters& counters) {
  return [n, &equations, &counters](double t, ConstVectorRef y, VectorRef k, int) {
    k.head(n) = y.tail(n);
    ++counters.rhs_evals;
    return equations.Accelerations(t, y.head(n), y.tail(n), k.tail(n));
  };
}

// Classical RK4 (ExplicitRungeKutta) on y = (q, v) at fixed steps h (RunLoop::RunFixed).
RunOutcome RunRk4(const Problem& problem, const RunSettings& settings, StepObserver& observer,
                  TreeEquations& equations) {
  RunOutcome outcome;
  RunLoop loop(settings, observer);
  const int n = problem.n();
  Vector q = problem.q0, v = problem.v0, a(n);
  if (!StartExplicitRun(settings.t0, equations, loop, q, v, a, outcome)) return outcome;
  ExplicitRungeKutta rk(ClassicalRk4(), 2 * n);
  auto rates = ExplicitRates(n, equations, outcome.counters);
  bool a_is_rates = true;  // a = f(t, q, v) at the step's start: StartExplicitRun's
  auto advance = [&](double t, double size, double /*t_next*/) {
    rk.start().head(n) = q;
    rk.start().tail(n) = v;
    if (a_is_rates) {  // the sample's accelerations are the step's k_1 = (v, a)
      auto k1 = rk.known_first_rates();
      k1.head(n) = v;
      k1.tail(n) = a;
    }
    ++outcome.counters.steps;
    if (rk.Step(t, size, rates) != 0) return StepStatus::Failed(FailureOf(equations));
    q = rk.solution().head(n);
    v = rk.solution().tail(n);
    return StepStatus::Ok();
  };
  auto sample = [&](double t_next) -> StepSample {
    a_is_rates = equations.Accelerations(t_next, q, v, a);
    ++outcome.counters.rhs_evals;  // an evaluation the next step uses as its first stage
    if (!a_is_rates) a.setConstant(NAN);
    return {t_next, q, v, &a};
  };
  loop.RunFixed(settings.h > 0.0 ? settings.h : problem.h_default, advance, sample);
  loop.Finish(outcome);
  return outcome;
}

// Dormand-Prince 5(4) (ExplicitRungeKutta::AdaptiveStep, HNW s II.4 controller) on
// y = (q, v): the explicit adaptive scheme on the O(N) right-hand side (Simbody's
// error-controlled Runge-Kutta-Merson needs a sixth of the fixed RK4 steps on pendulum_chain
// N = 100, docs/performance.md). Steps land on every stop time and t_end (RunLoop::OfferStep,
// Land); h is the first step offered.
RunOutcome RunDopri5(const Problem& problem, const RunSettings& settings, StepObserver& observer,
                     TreeEquations& equations) {
  RunOutcome outcome;
  RunLoop loop(settings, observer);
  const int n = problem.n();
  Vector q = problem.q0, v = problem.v0, a(n);
  if (!StartExplicitRun(settings.t0, equations, loop, q, v, a, outcome)) return outcome;
  ExplicitRungeKutta rk(DormandPrince5(), 2 * n);
  auto rates = ExplicitRates(n, equations, outcome.counters);
  double t = settings.t0;
  double h = settings.h > 0.0 ? settings.h : problem.h_default;
  while (loop.Continues(t)) {
    const RunLoop::Offer offer = loop.OfferStep(t, h);
    rk.start().head(n) = q;
    rk.start().tail(n) = v;
    ++outcome.counters.steps;
    const AdaptiveRkStep step =
        rk.AdaptiveStep(t, offer.size, settings.rtol, settings.atol, rates, outcome.counters);
    if (!step.ok()) {
      loop.FailStep(t, step.underflow ? step.UnderflowMessage(t) : FailureOf(equations));
      break;
    }
    q = rk.solution().head(n);
    v = rk.solution().tail(n);
    const double t_fsal = t + step.h_taken;  // where the FSAL stage f(t + h, y1) was evaluated
    t = RunLoop::Land(offer, t, step.h_taken, step.h_next, h);
    if (t == t_fsal) {  // the FSAL stage is the next step's k_1 and holds the accelerations
      rk.ReuseFsalStage();
      a = rk.rates(DormandPrince5().stages).tail(n);
    } else if (!equations.Accelerations(t, q, v, a)) {  // landed on a stop time by rounding
      a.setConstant(NAN);
    }
    if (!loop.AcceptStep({t, q, v, &a})) break;
  }
  loop.Finish(outcome);
  return outcome;
}

enum class Kind { kRecursive, kZeroMass, kDense };

// The recursion (17), (24), (25) is written for trees: the joint-tree formulation's
// loop-closure constraints are for the general methods.
const std::string kLoopsRefused =
    "a closed loop (paper 004's recursion is written for trees; the general methods run "
    "formulation=joint-tree with its loop-closure constraints): cut joint '";

// A tree whose problem is in body coordinates (a hand-written catalogue entry with a
// ModelStructure: planar_pendulum, physical_pendulum, double_pendulum, stiff_pendulum,
// spatial_pendulum, spin_top; a model-layer problem in another formulation): why the
// joint-tree formulation of its model cannot be built, empty if it can.
std::string TreeOfBodiesUnsupported(const Problem& problem) {
  if (!problem.structure || problem.structure->bodies.empty())
    return "needs a problem built with formulation=joint-tree (paper 004's tree coordinates) "
           "or a tree in body coordinates (a problem with a model structure)";
  const std::string blocks = BodyCoordinatesUnsupported(*problem.structure, problem.n());
  if (!blocks.empty()) return blocks;
  try {
    ValidateJointTreeModel(problem.structure->model);
  } catch (const InputError& e) {
    return std::string(
               "needs a tree the joint-tree formulation writes (paper 004's joint coordinates): ") +
           e.what();
  }
  const KinematicTree tree = BuildKinematicTree(problem.structure->model);
  if (!tree.cut_joints.empty())
    return kLoopsRefused + problem.structure->model.joints[tree.cut_joints[0]].name + "')";
  return {};
}

// The run in joint coordinates of a problem in body coordinates: the joint-tree formulation
// of the same model, started from the problem's (q0, v0) through the body motions, and an
// observer that hands every sample back in the problem's coordinates (the metrics, the
// reference and the energy are the problem's own). Buffers sized once: no allocation per
// step.
class BodyCoordinateObserver final : public StepObserver {
 public:
  BodyCoordinateObserver(const Problem& problem, const JointTreeDae& tree, StepObserver& inner)
      : problem_(problem),
        tree_(tree),
        inner_(inner),
        ws_(tree.MakeWorkspace()),
        p_(tree.num_absolute()),
        pv_(tree.num_absolute()),
        q_(problem.q0),  // the continuity hint of CoordinatesFromBodies at the first sample
        v_(problem.n()),
        previous_q_(problem.q0),
        bodies_(problem.structure->model.bodies.size()) {}
  void OnStep(const StepSample& s) override {
    tree_.CalcBodyMotions(*ws_, s.q, s.v, p_, pv_, bodies_);
    CoordinatesFromBodies(*problem_.structure, bodies_, q_, v_);
    KeepEulerParameterSigns();
    previous_q_ = q_;
    inner_.OnStep({s.t, q_, v_});
  }
  bool StopRequested() const override { return inner_.StopRequested(); }
  std::string StopReason() const override { return inner_.StopReason(); }

 private:
  // e and -e are the same rotation: keep the sign of each Euler-parameter block (a spatial
  // rigid body's 7) continuous with the previous sample's, as the problem's own methods
  // integrate it (the tree hands back rotation matrices).
  void KeepEulerParameterSigns() {
    if (!tree_.spatial()) return;
    for (const BodyCoordinates& b : problem_.structure->bodies) {
      if (b.layout != BodyLayout::kEulerParameters) continue;
      if (q_.segment<4>(b.offset + 3).dot(previous_q_.segment<4>(b.offset + 3)) >= 0.0) continue;
      q_.segment<4>(b.offset + 3) *= -1.0;
      v_.segment<4>(b.offset + 3) *= -1.0;
    }
  }

  const Problem& problem_;
  const JointTreeDae& tree_;
  StepObserver& inner_;
  std::unique_ptr<DaeWorkspace> ws_;  // CalcBodyMotions' scratch
  Vector p_, pv_, q_, v_, previous_q_;
  std::vector<BodyMotion> bodies_;
};

Problem JointTreeProblemOf(const Problem& problem) {
  ModelDescription model = problem.structure->model;
  model.formulation = "joint-tree";
  Problem tree = BuildModelProblem(model, problem.id);
  std::vector<BodyMotion> bodies;
  BodiesFromCoordinates(*problem.structure, problem.q0, problem.v0, bodies);
  tree.structure->coordinates_from_bodies(bodies, tree.q0, tree.v0);
  return tree;
}

class TreeMethod final : public Method {
 public:
  TreeMethod(Kind kind, const ParameterSet& p) : kind_(kind) {
    if (kind != Kind::kZeroMass) {
      const std::string integrator = p.GetString("integrator", "ida");
      integrator_ = integrator == "rk4"      ? Integrator::kRk4
                    : integrator == "dopri5" ? Integrator::kDopri5
                                             : Integrator::kIda;
    } else {
      rank_tolerance_ = p.GetDouble("rank_tolerance", 1e-10);
    }
  }

  std::string CheckApplicable(const Problem& problem) const override {
    if (TreeOf(problem))
      return problem.m() > 0
                 ? kLoopsRefused +
                       problem.structure->model.joints[problem.structure->tree.cut_joints[0]].name +
                       "')"
                 : std::string();
    return TreeOfBodiesUnsupported(problem);
  }

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    if (TreeOf(problem)) return RunTree(problem, settings, observer);
    const Problem tree = JointTreeProblemOf(problem);
    BodyCoordinateObserver translate(problem, *TreeOf(tree), observer);
    return RunTree(tree, settings, translate);
  }

 private:
  RunOutcome RunTree(const Problem& problem, const RunSettings& settings,
                     StepObserver& observer) const {
    const JointTreeDae& dae = *TreeOf(problem);
    std::unique_ptr<TreeEquations> equations;
    switch (kind_) {
      case Kind::kRecursive:
        equations = std::make_unique<RecursiveEquations>(dae);
        break;
      case Kind::kDense:
        equations = std::make_unique<DenseEquations>(dae);
        break;
      case Kind::kZeroMass:
        equations = std::make_unique<ZeroMassEquations>(dae, rank_tolerance_);
        break;
    }
    if (integrator_ == Integrator::kRk4) return RunRk4(problem, settings, observer, *equations);
    if (integrator_ == Integrator::kDopri5)
      return RunDopri5(problem, settings, observer, *equations);
    return RunTreeIda(problem, settings, observer, *equations);
  }

  Kind kind_;
  Integrator integrator_ = Integrator::kIda;
  double rank_tolerance_ = 1e-10;
};

const std::map<std::string, std::string> kTreeProblems = {{"formulation", "joint-tree"}};

}  // namespace

std::unique_ptr<TreeEquationsProbe> MakeTreeEquationsProbe(const std::string& method,
                                                           const JointTreeDae& dae) {
  auto probe = std::make_unique<TreeEquationsProbe>();
  probe->dae = &dae;
  if (method == "joint-dense") {
    auto eq = std::make_shared<DenseEquations>(dae);
    probe->evaluate = [eq](double t, ConstVectorRef q, ConstVectorRef v, VectorRef out) {
      eq->Accelerations(t, q, v, out);
    };
  } else if (method == "recursive") {
    auto eq = std::make_shared<RecursiveEquations>(dae);
    probe->evaluate = [eq](double t, ConstVectorRef q, ConstVectorRef v, VectorRef out) {
      eq->Accelerations(t, q, v, out);
    };
  } else {
    auto eq = std::make_shared<ZeroMassEquations>(dae, 1e-10);
    auto vp = std::make_shared<Vector>(Vector::Zero(dae.num_coordinates()));
    probe->evaluate = [eq, vp](double t, ConstVectorRef q, ConstVectorRef v, VectorRef out) {
      eq->Residual(t, q, v, *vp, out);
    };
  }
  return probe;
}

std::vector<MethodEntry> RecursiveMethodEntries() {
  const ParameterSpec integrator{"integrator",
                                 "ida",
                                 "ida: BDF (rtol/atol); rk4: classical RK4 at the fixed step h; "
                                 "dopri5: Dormand-Prince 5(4), rtol/atol, h the first step",
                                 {"ida", "rk4", "dopri5"}};
  // IDA chooses its own steps (h is not even its first step); RK4 steps at h; dopri5
  // starts from h and controls its error.
  const StepControl step =
      StepControl::ByParameter("integrator", {{"ida", StepMode::kAdaptive},
                                              {"rk4", StepMode::kFixed},
                                              {"dopri5", StepMode::kAdaptiveFromH}});
  return {
      {.name = "joint-dense",
       .summary = "joint coordinates on a tree: M(q) q'' = Q by dense LDL^T (O(N^3)); IDA, "
                  "fixed-step RK4 or adaptive Dormand-Prince",
       .source = "004 (baseline for the O(N) recursion)",
       .parameters = {integrator},
       .create =
           [](const ParameterSet& p) { return std::make_unique<TreeMethod>(Kind::kDense, p); },
       .step = step,
       // Default IDA: variable-order BDF, adaptive; no constraints (m = 0).
       .promises = MethodPromises::NoFixedStepOrder().Position().Velocity(),
       .preferred_problem_parameters = kTreeProblems},
      {.name = "recursive",
       .summary = "classical O(N) recursive formalism (inverses; paper 004 (17), (24a), (25a)); "
                  "IDA, fixed-step RK4 or adaptive Dormand-Prince",
       .source = "004 s3 (Lubich et al. 1992)",
       .parameters = {integrator},
       .create =
           [](const ParameterSet& p) { return std::make_unique<TreeMethod>(Kind::kRecursive, p); },
       .step = step,
       .promises = MethodPromises::NoFixedStepOrder().Position().Velocity(),
       .preferred_problem_parameters = kTreeProblems},
      {.name = "recursive-zero-mass",
       .summary = "O(N) recursion with pseudo-inverses for zero/rank-deficient body mass: mixed "
                  "equations (25)-(28) as an index-1 DAE through IDA",
       .source = "004 s3",
       .parameters = {{"rank_tolerance",
                       "1e-10",
                       "relative eigenvalue threshold of the rank decisions (lambda <= tol "
                       "(lambda_max + mass scale) counts as zero)",
                       {},
                       0.0,
                       1e-3}},
       .create =
           [](const ParameterSet& p) { return std::make_unique<TreeMethod>(Kind::kZeroMass, p); },
       .step = StepMode::kAdaptive,
       .promises = MethodPromises::NoFixedStepOrder().Position().Velocity(),
       .preferred_problem_parameters = kTreeProblems,
       // Its pseudo-inverses are what a zero mass needs.
       .accepts_singular_mass = true},
  };
}

}  // namespace mbb
