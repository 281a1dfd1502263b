// The shared mid-point scheme of paper 002 eq 10 with the Gonzalez discrete gradient
// (discrete_gradient.h).
#include "methods/energy_momentum/discrete_gradient.h"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

#include "problems/core/constraint_factorization.h"

namespace mbb {
namespace {

// Largest |Phi(q + s) + Phi(q - s) - 2 Phi(q)| / 2 over a few directions s: the part of Phi
// beyond quadratic order shows as a non-zero remainder in Phi(q + s) - Phi(q) - G(q) s
// - (Phi(q + s) + Phi(q - s) - 2 Phi(q)) / 2 (zero for a polynomial of degree <= 2).
double BeyondQuadraticRemainder(const MechanicalDae& dae, DaeWorkspace& ws, double t,
                                const Vector& q, double& scale) {
  const int n = dae.num_coordinates(), m = dae.num_constraints();
  Matrix g(m, n);
  dae.CalcPhiQ(ws, t, q, g);
  Vector phi0(m), phi_plus(m), phi_minus(m);
  dae.CalcPhi(ws, t, q, phi0);
  double worst = 0.0;
  scale = 1e-300;
  for (int k = 0; k < 3; ++k) {
    Vector s(n);
    for (int i = 0; i < n; ++i)  // deterministic, irregular directions of size ~0.1
      s[i] = 0.1 * std::sin(1.0 + 7.3 * (i + 1) * (k + 1)) * (1.0 + std::abs(q[i]));
    dae.CalcPhi(ws, t, q + s, phi_plus);
    dae.CalcPhi(ws, t, q - s, phi_minus);
    const Vector second = 0.5 * (phi_plus + phi_minus) - phi0;
    const Vector remainder = phi_plus - phi0 - g * s - second;
    worst = std::max(worst, remainder.lpNorm<Eigen::Infinity>());
    scale = std::max(scale, (g * s).lpNorm<Eigen::Infinity>() + second.lpNorm<Eigen::Infinity>());
  }
  return worst;
}

}  // namespace

std::string CheckMidpointSchemeApplicable(const Problem& problem) {
  const MechanicalDae& dae = *problem.dae;
  const std::string in =
      problem.formulation.empty() ? std::string() : " (formulation '" + problem.formulation + "')";
  if (!dae.has_constant_mass_matrix())
    return "the energy-momentum mid-point scheme (paper 002 eq 10) needs a constant mass "
           "matrix; this problem's depends on q" +
           in + " (model-layer problems have one with --param formulation=directors)";
  auto ws = dae.MakeWorkspace();
  if (!dae.capabilities().potential)
    return "the problem does not separate its potential V from the other forces (the "
           "discrete gradient needs V)";
  if (dae.num_constraints() > 0) {
    double scale = 0.0;
    const double remainder = BeyondQuadraticRemainder(dae, *ws, problem.t0, problem.q0, scale);
    // Round-off of a quadratic Phi stays near 1e-16 * scale; anything above 1e-9 relative
    // is a term of third or higher order, for which G(q_{1/2}) is not a discrete derivative.
    if (remainder > 1e-9 * scale)
      return "the constraints are not at most quadratic in q (remainder " +
             std::to_string(remainder / scale) +
             " relative): the mid-point Jacobian is then not their discrete derivative "
             "(paper 002 eq 67)" +
             in +
             (problem.formulation.empty() || problem.formulation == "directors"
                  ? std::string()
                  : " (model-layer problems have quadratic constraints with --param "
                    "formulation=directors)");
  }
  return {};
}

MidpointBalance::MidpointBalance(const Problem& problem)
    : dae_(*problem.dae),
      ws_(dae_.MakeWorkspace()),
      n_(dae_.num_coordinates()),
      mass_(n_, n_),
      dq_(n_, n_),
      dv_(n_, n_),
      jacobian_(n_, n_),
      q0_(n_),
      v0_(n_),
      v1_(n_),
      q_mid_(n_),
      v_mid_(n_),
      grad_mid_(n_),
      grad_scratch_(n_),
      forces_(n_),
      dv_bar_(n_),
      step_(n_),
      q1_(n_),
      step_velocity_(n_),
      hessians_(dae_, *ws_, problem.t0, problem.q0) {
  dae_.CalcMassMatrix(*ws_, problem.q0, mass_);
}

ConstraintHessians::ConstraintHessians(const MechanicalDae& dae, DaeWorkspace& ws, double t0,
                                       const Vector& q0)
    : dae_(dae) {
  const int n = dae.num_coordinates(), m = dae.num_constraints();
  if (m == 0) return;
  Vector unit = Vector::Zero(m);
  Matrix k(n, n);
  for (int r = 0; r < m; ++r) {
    unit[r] = 1.0;
    dae.CalcReactionStiffness(ws, t0, q0, unit, k);
    unit[r] = 0.0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (k(i, j) != 0.0) entries_.push_back({r, i, j, k(i, j)});
  }
  // The check: K of generic multipliers at a later time and an irregularly displaced
  // configuration (size ~0.1, as the quadratic check's) against the sum over the Hessians
  // taken at (t0, q0); a Hessian that varies with t or q shows with probability 1.
  const double t1 = t0 + 0.37;
  Vector q1(n), mu(m);
  for (int i = 0; i < n; ++i) q1[i] = q0[i] + 0.1 * std::sin(2.0 + 5.1 * (i + 1));
  for (int r = 0; r < m; ++r) mu[r] = std::cos(1.0 + 3.7 * (r + 1));
  Matrix from_entries(n, n);
  dae.CalcReactionStiffness(ws, t1, q1, mu, k);
  constant_ = true;
  ReactionStiffness(ws, t1, q1, mu, from_entries);
  // Round-off of AD on quadratics stays near 1e-16 of the entries; 1e-12 of the largest is
  // far from any term that varies.
  const double scale = std::max(k.lpNorm<Eigen::Infinity>(), 1e-300);
  if ((from_entries - k).lpNorm<Eigen::Infinity>() > 1e-12 * scale) {
    constant_ = false;
    entries_.clear();
  }
}

void ConstraintHessians::ReactionStiffness(DaeWorkspace& ws, double t, const Vector& q,
                                           const Vector& mu, Matrix& k) const {
  if (!constant_) {
    dae_.CalcReactionStiffness(ws, t, q, mu, k);
    return;
  }
  k.setZero();
  for (const Entry& e : entries_) k(e.i, e.j) += mu[e.row] * e.value;
}

void MidpointBalance::BeginStep(double t0, double h, const Vector& q0, const Vector& v0) {
  t0_ = t0;
  h_ = h;
  q0_ = q0;
  v0_ = v0;
  dae_.CalcPotential(*ws_, t0, q0, v0_potential_, grad_scratch_);
  // Force Jacobians at the mid-point of the predictor q0 + h v0.
  q_mid_ = q0 + 0.5 * h * v0;
  dae_.CalcForceJacobians(*ws_, t_mid(), q_mid_, v0, dq_, dv_);
  jacobian_ = (2.0 / h) * mass_ - 0.5 * h * dq_ - dv_;
}

void MidpointBalance::Residual(const Vector& q1, Vector& r) {
  step_ = q1 - q0_;
  ResidualFromStep(step_, r);
}

void MidpointBalance::ResidualFromStep(const Vector& step, Vector& r) {
  if (&step != &step_) step_ = step;
  const Vector& dq = step_;
  q1_ = q0_ + dq;
  const Vector& q1 = q1_;
  q_mid_ = q0_ + 0.5 * dq;
  v1_ = (2.0 / h_) * dq - v0_;  // (10.1)
  v_mid_ = 0.5 * (v0_ + v1_);
  // Gonzalez discrete gradient of V.
  double v_mid_potential = 0.0, v1_potential = 0.0;
  dae_.CalcPotential(*ws_, t_mid(), q_mid_, v_mid_potential, grad_mid_);
  dae_.CalcPotential(*ws_, t1(), q1, v1_potential, grad_scratch_);
  dv_bar_ = grad_mid_;
  const double dq2 = dq.squaredNorm();
  if (dq2 > 0.0) dv_bar_ += ((v1_potential - v0_potential_ - grad_mid_.dot(dq)) / dq2) * dq;
  // Q_nc = Q + grad V at the mid-point.
  dae_.CalcForces(*ws_, t_mid(), q_mid_, v_mid_, forces_);
  forces_ += grad_mid_;
  step_velocity_ = v1_ - v0_;
  r.noalias() = mass_ * step_velocity_;  // (10.2) without G^T lambda
  r += h_ * (dv_bar_ - forces_);
}

void SolveWithQr(const Eigen::ColPivHouseholderQR<Matrix>& qr, Vector& b, Vector& x) {
  const int r = static_cast<int>(qr.rank());
  // Q^T b through the first r reflectors, the only ones that touch b's first r entries.
  ApplyHouseholderReflectors(qr.matrixQR(), qr.hCoeffs(), r, b, /*transposed=*/true);
  qr.matrixQR().topLeftCorner(r, r).triangularView<Eigen::Upper>().solveInPlace(b.head(r));
  x.setZero();
  for (int i = 0; i < r; ++i) x(qr.colsPermutation().indices()(i)) = b(i);
}

double MidpointBalance::StepEnergyResidual() {
  const double e0 = dae_.CalcEnergy(*ws_, t0_, q0_, v0_);
  const double e1 = dae_.CalcEnergy(*ws_, t1(), q1_, v1_);
  return std::abs(e1 - e0 - h_ * v_mid_.dot(forces_));
}

double ConditionNumber2(const Matrix& a) {
  Eigen::JacobiSVD<Matrix> svd(a.rows(), a.cols());
  return ConditionNumber2(svd, a);
}

double ConditionNumber2(Eigen::JacobiSVD<Matrix>& svd, const Matrix& a) {
  svd.compute(a, 0);
  const auto& s = svd.singularValues();
  if (s.size() == 0) return 1.0;
  const double smallest = s[s.size() - 1];
  if (!(smallest > 0.0)) return std::numeric_limits<double>::infinity();
  return s[0] / smallest;
}

}  // namespace mbb
