// SUNDIALS IDA (variable-order BDF) on the mechanical DAE in three formulations
// (`--set formulation=...`):
//   index2 (default)  stabilised index-2 form of Gear, Gupta and Leimkuhler (GGL 1985):
//                     q' = v - Phi_q^T mu,  M v' = Q - Phi_q^T lambda,
//                     Phi_q v + Phi_t = 0,  Phi = 0;   unknowns [q, v, lambda, mu]
//   index3            q' = v,  M v' = Q - Phi_q^T lambda,  Phi = 0
//                     (known to stall: docs/toolchain.md trap 4; recorded as a result)
//   index1            q' = v,  M v' = Q - Phi_q^T lambda,  Phi_q v' = gamma  (drifts)
// Multipliers are algebraic and excluded from the error test (IDASetSuppressAlg). Dense
// direct linear solver with IDA's difference-quotient Jacobian; the driver is ida_driver.h.
#include <cmath>
#include <limits>

#include "methods/common/acceleration_solver.h"
#include "methods/sundials/ida_driver.h"
#include "methods/sundials/sundials_methods.h"

namespace mbb {
namespace {

enum class Formulation { kIndex1, kIndex2, kIndex3 };

// Residual evaluation for one run; the IDA user data.
class IdaResidual {
 public:
  IdaResidual(const Problem& problem, Formulation formulation)
      : dae_(*problem.dae),
        formulation_(formulation),
        n_(problem.n()),
        m_(problem.m()),
        ws_(dae_.MakeWorkspace()),
        mass_(n_, n_),
        phi_q_(m_, n_),
        forces_(n_),
        work_m_(m_),
        work_n_(n_) {}

  int size() const { return 2 * n_ + (formulation_ == Formulation::kIndex2 ? 2 : 1) * m_; }
  int n() const { return n_; }
  int m() const { return m_; }
  Formulation formulation() const { return formulation_; }

  void Calc(double t, const double* y, const double* yp, double* r) {
    Eigen::Map<const Vector> q(y, n_), v(y + n_, n_), lambda(y + 2 * n_, m_);
    Eigen::Map<const Vector> qp(yp, n_), vp(yp + n_, n_);
    Eigen::Map<Vector> r_q(r, n_), r_v(r + n_, n_), r_c(r + 2 * n_, m_);
    dae_.CalcMassMatrix(*ws_, q, mass_);
    dae_.CalcForces(*ws_, t, q, v, forces_);
    if (m_ > 0) dae_.CalcPhiQ(*ws_, t, q, phi_q_);
    r_q = qp - v;
    r_v.noalias() = mass_ * vp - forces_;
    if (m_ > 0) r_v.noalias() += phi_q_.transpose() * lambda;
    if (m_ == 0) return;
    switch (formulation_) {
      case Formulation::kIndex3:
        dae_.CalcPhi(*ws_, t, q, r_c);
        break;
      case Formulation::kIndex1:
        dae_.CalcGamma(*ws_, t, q, v, work_m_);
        r_c.noalias() = phi_q_ * vp - work_m_;
        break;
      case Formulation::kIndex2: {
        Eigen::Map<const Vector> mu(y + 2 * n_ + m_, m_);
        r_q.noalias() += phi_q_.transpose() * mu;
        dae_.CalcVelocityResidual(*ws_, t, q, v, r_c);
        Eigen::Map<Vector> r_p(r + 2 * n_ + m_, m_);
        dae_.CalcPhi(*ws_, t, q, r_p);
        break;
      }
    }
  }

  static int Callback(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
    static_cast<IdaResidual*>(data)->Calc(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                                          N_VGetArrayPointer(r));
    for (long i = 0; i < N_VGetLength(r); ++i)
      if (!std::isfinite(N_VGetArrayPointer(r)[i])) return 1;  // recoverable: IDA cuts h
    return 0;
  }

  DaeWorkspace& workspace() { return *ws_; }

 private:
  const MechanicalDae& dae_;
  Formulation formulation_;
  int n_, m_;
  std::unique_ptr<DaeWorkspace> ws_;
  Matrix mass_, phi_q_;
  Vector forces_, work_m_, work_n_;
};

class IdaMethod final : public Method {
 public:
  explicit IdaMethod(const ParameterSet& p) {
    const std::string f = p.GetString("dae_form", "index2");
    formulation_ = f == "index1"   ? Formulation::kIndex1
                   : f == "index3" ? Formulation::kIndex3
                                   : Formulation::kIndex2;
    max_order_ = static_cast<int>(p.GetDouble("max_order", 5));
    multiplier_atol_ = p.GetDouble("multiplier_atol", 1.0);
    if (max_order_ < 1 || max_order_ > 5)
      throw InputError("ida: parameter 'max_order' = " + std::to_string(max_order_) +
                       ": must be 1..5");
  }

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    RunOutcome outcome;
    SundialsContext ctx;
    IdaResidual residual(problem, formulation_);
    const int n = problem.n(), m = problem.m(), size = residual.size();
    SerialVector y(size, ctx), yp(size, ctx), id(size, ctx);

    // Consistent start: q0, v0 from the problem; a0 and lambda0 from the index-1 solve.
    Vector a0(n), lambda0(m);
    {
      AccelerationSolver solver(*problem.dae, residual.workspace());
      if (!solver.Solve(settings.t0, problem.q0, problem.v0, a0, lambda0)) {
        outcome.status = RunStatus::kFailed;
        outcome.message = "initial acceleration: reduced mass matrix is singular";
        return outcome;
      }
    }
    Eigen::Map<Vector> yv(y.data(), size), ypv(yp.data(), size), idv(id.data(), size);
    yv.setZero();
    ypv.setZero();
    yv.head(n) = problem.q0;
    yv.segment(n, n) = problem.v0;
    yv.segment(2 * n, m) = lambda0;
    ypv.head(n) = problem.v0;
    ypv.segment(n, n) = a0;
    idv.setZero();
    idv.head(2 * n).setOnes();

    // Multipliers are excluded from the error test, but IDA's Newton convergence test
    // weighs every component: with the state's atol the multipliers (whose corrections
    // scale like 1/h in index-2/3 forms) never pass it. They get an absolute tolerance
    // `multiplier_atol` times |lambda0|_inf + 1 (default 1).
    SerialVector atol(size, ctx);
    Eigen::Map<Vector> atolv(atol.data(), size);
    atolv.setConstant(settings.atol);
    atolv.tail(size - 2 * n)
        .setConstant(multiplier_atol_ * (lambda0.lpNorm<Eigen::Infinity>() + 1.0));

    Vector q(n), v(n), a(n), lambda(m);
    IdaSetup setup;
    setup.residual = IdaResidual::Callback;
    setup.user_data = &residual;
    setup.atol = atol;
    setup.id = id;
    setup.max_order = max_order_;
    setup.sample = [&](double t) -> StepSample {
      q = yv.head(n);
      v = yv.segment(n, n);
      a = ypv.segment(n, n);
      lambda = yv.segment(2 * n, m);
      return {t, q, v, &a, &lambda};
    };
    return RunIda(setup, ctx, y, yp, settings, observer);
  }

 private:
  Formulation formulation_ = Formulation::kIndex2;
  int max_order_ = 5;
  double multiplier_atol_ = 1.0;
};

}  // namespace

std::vector<MethodEntry> IdaMethodEntries() {
  return {
      {.name = "ida",
       .summary = "SUNDIALS IDA (BDF) on the DAE: GGL index-2 (default), index-3 or index-1",
       .source = "SUNDIALS 6.4 IDA",
       .parameters =
           {{"dae_form",
             "index2",
             "DAE form (index-1, GGL index-2, index-3); formerly 'formulation'",
             {"index1", "index2", "index3"},
             -std::numeric_limits<double>::infinity(),
             std::numeric_limits<double>::infinity(),
             false,
             {"formulation"}},
            {"max_order", "5", "maximum BDF order (1..5)", {}, 1, 5, true},
            {"multiplier_atol", "1", "relative weight of the multipliers in Newton's test", {}}},
       .create = [](const ParameterSet& p) { return std::make_unique<IdaMethod>(p); },
       .step = StepMode::kAdaptive,
       // Variable-order BDF (1..5): no fixed-step order. GGL index 2 (the default) keeps
       // Phi = 0 and Phi_q v + Phi_t = 0 as algebraic equations [Gear, Gupta, Leimkuhler
       // 1985]; the reported a is the BDF derivative, not an index-1 solution.
       .promises = MethodPromises::NoFixedStepOrder().Position().Velocity()}};
}

}  // namespace mbb
