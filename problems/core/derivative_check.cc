#include "problems/core/derivative_check.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace mbb {

namespace {

constexpr double kRelativeStep = 1e-6;
constexpr double kRelativeTolerance = 1e-6;

// Compares `analytic` with the central difference of `f` along the scalar parameter s,
// column by column when f is matrix-valued and `columns` > 1.
// `roundoff` is the rounding floor of the difference quotient (added to the tolerance).
void Compare(const std::string& name, const Matrix& analytic, const Matrix& numeric,
             DerivativeReport& report, double roundoff = 0.0) {
  DerivativeCheck c;
  c.quantity = name;
  const double scale = std::max(analytic.size() ? analytic.lpNorm<Eigen::Infinity>() : 0.0,
                                numeric.size() ? numeric.lpNorm<Eigen::Infinity>() : 0.0);
  c.tolerance = kRelativeTolerance * (1.0 + scale) + roundoff;
  for (int j = 0; j < analytic.cols(); ++j)
    for (int i = 0; i < analytic.rows(); ++i) {
      const double e = std::abs(analytic(i, j) - numeric(i, j));
      if (!(e <= c.max_error)) {
        c.max_error = std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
        c.row = i;
        c.col = j;
        c.analytic = analytic(i, j);
        c.finite_difference = numeric(i, j);
      }
    }
  report.checks.push_back(c);
}

// Central difference of a vector function along the direction `dir` of x.
Matrix Jacobian(const std::function<Vector(const Vector&)>& f, const Vector& x) {
  const Vector f0 = f(x);
  Matrix jac(f0.size(), x.size());
  for (int j = 0; j < x.size(); ++j) {
    const double h = kRelativeStep * (1.0 + std::abs(x[j]));
    Vector xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    jac.col(j) = (f(xp) - f(xm)) / (2.0 * h);
  }
  return jac;
}

}  // namespace

bool DerivativeReport::ok() const {
  for (const auto& c : checks)
    if (!c.ok()) return false;
  return true;
}

std::string DerivativeReport::Summary() const {
  std::string s;
  for (const auto& c : checks) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%-28s %s worst |err| %.3g (tol %.3g) at (%d,%d): %.10g vs FD %.10g\n",
                  c.quantity.c_str(), c.ok() ? "ok  " : "FAIL", c.max_error, c.tolerance, c.row,
                  c.col, c.analytic, c.finite_difference);
    s += line;
  }
  return s;
}

DerivativeReport CheckDerivatives(const MechanicalDae& dae, double t, const Vector& q,
                                  const Vector& v, const Vector& lambda, const Vector* acceleration,
                                  const Vector* lambda_solution) {
  const int n = dae.num_coordinates(), m = dae.num_constraints();
  auto ws = dae.MakeWorkspace();
  DerivativeReport report;
  const double ht = kRelativeStep * (1.0 + std::abs(t));

  auto phi = [&](double tt, const Vector& qq) {
    Vector out(m);
    dae.CalcPhi(*ws, tt, qq, out);
    return out;
  };
  auto phi_q = [&](double tt, const Vector& qq) {
    Matrix out(m, n);
    dae.CalcPhiQ(*ws, tt, qq, out);
    return out;
  };
  auto velocity_residual = [&](double tt, const Vector& qq, const Vector& vv) {
    Vector out(m);
    dae.CalcVelocityResidual(*ws, tt, qq, vv, out);
    return out;
  };

  if (m > 0) {
    Compare("Phi_q", phi_q(t, q), Jacobian([&](const Vector& x) { return phi(t, x); }, q), report);
    Vector phi_t(m);
    dae.CalcPhiT(*ws, t, q, phi_t);
    Compare("Phi_t", phi_t, (phi(t + ht, q) - phi(t - ht, q)) / (2 * ht), report);
    Compare("Phi_q v + Phi_t", velocity_residual(t, q, v), phi_q(t, q) * v + phi_t, report);

    // gamma = -d/ds (Phi_q v + Phi_t)(t + s, q + v s) with v held fixed, eq. (2).
    Vector gamma(m);
    dae.CalcGamma(*ws, t, q, v, gamma);
    const double hs = kRelativeStep;
    const Vector fd_gamma =
        -(velocity_residual(t + hs, q + hs * v, v) - velocity_residual(t - hs, q - hs * v, v)) /
        (2 * hs);
    Compare("gamma", gamma, fd_gamma, report);
    Matrix gamma_q(m, n);
    if (dae.capabilities().gamma_jacobian) {  // where the equations have it
      dae.CalcGammaJacobian(*ws, t, q, v, gamma_q);
      Compare("d gamma / dq", gamma_q,
              Jacobian(
                  [&](const Vector& x) {
                    Vector g(m);
                    dae.CalcGamma(*ws, t, x, v, g);
                    return g;
                  },
                  q),
              report);
    }

    Matrix phi_q_dot(m, n);
    dae.CalcPhiQDot(*ws, t, q, v, phi_q_dot);
    Compare("d/dt Phi_q", phi_q_dot,
            (phi_q(t + hs, q + hs * v) - phi_q(t - hs, q - hs * v)) / (2 * hs), report);

    Matrix k(n, n);
    dae.CalcReactionStiffness(*ws, t, q, lambda, k);
    Compare("d(Phi_q^T lambda)/dq", k,
            Jacobian([&](const Vector& x) { return Vector(phi_q(t, x).transpose() * lambda); }, q),
            report);
  }

  auto forces = [&](const Vector& qq, const Vector& vv) {
    Vector out(n);
    dae.CalcForces(*ws, t, qq, vv, out);
    return out;
  };
  Matrix dq(n, n), dv(n, n);
  dae.CalcForceJacobians(*ws, t, q, v, dq, dv);
  Compare("dQ/dq", dq, Jacobian([&](const Vector& x) { return forces(x, v); }, q), report);
  Compare("dQ/dv", dv, Jacobian([&](const Vector& x) { return forces(q, x); }, v), report);

  const Vector a_probe = Vector::LinSpaced(n, 1.0, 2.0);
  Matrix dma(n, n);
  dae.CalcMassTimesAccelerationJacobian(*ws, q, a_probe, dma);
  Compare("d(M a)/dq", dma,
          Jacobian(
              [&](const Vector& x) {
                Matrix mass(n, n);
                dae.CalcMassMatrix(*ws, x, mass);
                return Vector(mass * a_probe);
              },
              q),
          report);

  if (acceleration && lambda_solution) {
    // Along a solution, dE/dt = P + lambda . Phi_t (no explicitly time-dependent potential).
    const Vector& a = *acceleration;
    const double hs = kRelativeStep;
    auto central = [&](double h, double& e_plus) {
      e_plus = dae.CalcEnergy(*ws, t + h, q + h * v + 0.5 * h * h * a, v + h * a);
      const double e_minus = dae.CalcEnergy(*ws, t - h, q - h * v + 0.5 * h * h * a, v - h * a);
      return (e_plus - e_minus) / (2 * h);
    };
    // Richardson extrapolation of the central differences at hs and 2 hs: the O(hs^2)
    // truncation cancels (E''' hs^2 / 6 reached 1.1e-3 for the planar pair in joint
    // coordinates, a body turning at 100 rad/s, against a tolerance of 2.7e-4).
    double e_plus = 0.0, e_plus_2 = 0.0;
    const double rate_h = central(hs, e_plus), rate_2h = central(2.0 * hs, e_plus_2);
    const double rate = (4.0 * rate_h - rate_2h) / 3.0;
    // Rounding of E (a sum of many terms) in the quotients: ~ 10 eps |E| / hs, times 1.5
    // for the extrapolation (4/3 + 1/6) (3.6e-4 for the cylindrical pair's E = 1.1e5 J,
    // whose rate is 0; observed error 2.2e-5).
    const double roundoff =
        15.0 * std::numeric_limits<double>::epsilon() * std::max(std::abs(e_plus), 1.0) / hs;
    double expected = dae.CalcAppliedPower(*ws, t, q, v);
    if (m > 0) {
      Vector phi_t(m);
      dae.CalcPhiT(*ws, t, q, phi_t);
      expected += lambda_solution->dot(phi_t);
    }
    Compare("energy rate dE/dt", Matrix::Constant(1, 1, expected), Matrix::Constant(1, 1, rate),
            report, roundoff);
  }
  return report;
}

}  // namespace mbb
