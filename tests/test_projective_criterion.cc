// The projective criterion of paper 003 (23a), (23b): the physical pendulum's closed form
// (26), independence of the partition that builds D, the complement identity of (15), a
// singular mass matrix, and the SVD score.
#include <catch2/catch.hpp>

#include <Eigen/SVD>
#include <cmath>

#include "methods/partitioning/projective_criterion.h"
#include "problems/problem.h"

namespace mbb {
namespace {

struct Evaluated {
  Matrix mass, phi_q;
};

Evaluated At(const Problem& p, const Vector& q) {
  auto ws = p.dae->MakeWorkspace();
  Evaluated e{Matrix(p.n(), p.n()), Matrix(p.m(), p.n())};
  p.dae->CalcMassMatrix(*ws, q, e.mass);
  p.dae->CalcPhiQ(*ws, 0.0, q, e.phi_q);
  return e;
}

// Rounding of a few 3 x 3 solves on O(1) entries: ~1e-15; the acceptance bound is 1e-12.
constexpr double kClosedFormTolerance = 1e-12;

}  // namespace

TEST_CASE("physical pendulum: (23a) and (23b) reproduce eq (26) over gamma in [0, pi/2]",
          "[partitioning][criterion]") {
  // Two (m, J, rho) sets: the catalogue's uniform rod, and a heavy compact body far out.
  const std::map<std::string, std::string> sets[] = {
      {{"mass", "1"}, {"rho", "0.5"}, {"J", "1/12"}},
      {{"mass", "3.5"}, {"rho", "1.7"}, {"J", "0.4"}}};
  for (const auto& set : sets) {
    const Problem p = BuildProblem("physical_pendulum", ParameterSet(set));
    const double m = std::stod(set.at("mass")), rho = std::stod(set.at("rho"));
    const double j = set.at("J") == "1/12" ? 1.0 / 12.0 : std::stod(set.at("J"));
    ProjectiveCriterion criterion(3, 2);
    Vector alpha(3), beta(3);
    double worst = 0.0;
    for (int s = 0; s <= 90; ++s) {
      const double g = 0.5 * M_PI * s / 90.0;
      Vector q(3);
      q[0] = rho * std::cos(g);
      q[1] = rho * std::sin(g);
      q[2] = g;
      const Evaluated e = At(p, q);
      REQUIRE(criterion.CosAlpha(e.mass, e.phi_q, alpha));
      REQUIRE(criterion.CosBeta(e.mass, e.phi_q, beta));
      const double f = m * rho * rho / (m * rho * rho + j);  // eq (26)
      Vector expected(3);
      expected[0] = f * std::sin(g) * std::sin(g);
      expected[1] = f * std::cos(g) * std::cos(g);
      expected[2] = j / (m * rho * rho + j);
      worst = std::max(worst, (alpha - expected).lpNorm<Eigen::Infinity>());
      // (15): the tangent and orthogonal subspaces complement each other in the metric of
      // M, so cos^2 alpha_i + cos^2 beta_i = 1.
      worst = std::max(worst, (alpha + beta - Vector::Ones(3)).lpNorm<Eigen::Infinity>());
    }
    INFO("m = " << m << ", rho = " << rho << ", J = " << j);
    CHECK(worst <= kClosedFormTolerance);
  }
}

TEST_CASE("(23a) does not depend on the partition that builds D", "[partitioning][criterion]") {
  const Problem p = BuildProblem("physical_pendulum", ParameterSet());
  const double g = 0.7;
  Vector q(3);
  q << 0.5 * std::cos(g), 0.5 * std::sin(g), g;
  const Evaluated e = At(p, q);
  PartitionKinematics kin(3, 2);
  Partition part;
  REQUIRE(kin.FindRows(e.phi_q, part) == 2);
  Eigen::Vector3d reference = Eigen::Vector3d::Zero();
  for (int independent = 0; independent < 3; ++independent) {
    part.independent = {independent};
    part.dependent.clear();
    for (int i = 0; i < 3; ++i)
      if (i != independent) part.dependent.push_back(i);
    REQUIRE(kin.Factor(e.phi_q, part));
    const Matrix& d = kin.d();
    CHECK((e.phi_q * d.transpose()).norm() <= 1e-14);  // D C^T = 0 (s2)
    const Matrix md = d * e.mass * d.transpose();
    const Matrix m_inv = e.mass.inverse();
    Eigen::Vector3d cos2;
    for (int i = 0; i < 3; ++i) cos2[i] = d(0, i) * d(0, i) / md(0, 0) / m_inv(i, i);
    if (independent == 0) reference = cos2;
    CHECK((cos2 - reference).lpNorm<Eigen::Infinity>() <= 1e-14);
  }
}

TEST_CASE("(23a) on the stiff pendulum's singular M = diag(m, m, 0)", "[partitioning][criterion]") {
  // x = L sin(theta), y = -L cos(theta): the tangent direction is (L cos, L sin, 1). With no
  // inertia on theta, (26) with J -> 0 gives cos^2 alpha_x = cos^2 theta, cos^2 alpha_y =
  // sin^2 theta and cos^2 alpha_theta = 0 (the massless coordinate's covector is infinitely
  // long in the metric of M).
  const Problem p = BuildProblem("stiff_pendulum", ParameterSet());
  ProjectiveCriterion criterion(3, 2);
  Vector alpha(3), beta(3);
  const double angles[] = {0.0, 0.4, 1.1, 2.5};
  for (const double th : angles) {
    Vector q(3);
    q[0] = std::sin(th);
    q[1] = -std::cos(th);
    q[2] = th;
    const Evaluated e = At(p, q);
    REQUIRE(criterion.CosAlpha(e.mass, e.phi_q, alpha));
    CHECK(std::abs(alpha[0] - std::cos(th) * std::cos(th)) <= kClosedFormTolerance);
    CHECK(std::abs(alpha[1] - std::sin(th) * std::sin(th)) <= kClosedFormTolerance);
    CHECK(alpha[2] == 0.0);
    CHECK_FALSE(criterion.CosBeta(e.mass, e.phi_q, beta));  // (23b) needs M^-1
  }
}

TEST_CASE("the SVD score is the squared row norm of the SVD's null-space basis",
          "[partitioning][criterion]") {
  Matrix c(2, 4);
  c << 1.0, 0.3, -2.0, 0.5, 0.2, 1.5, 0.7, -1.0;
  ProjectiveCriterion criterion(4, 2);
  Vector score(4);
  REQUIRE(criterion.SvdScore(c, score));
  Eigen::JacobiSVD<Matrix> svd(c, Eigen::ComputeFullV);
  const Matrix v2 = svd.matrixV().rightCols(2);
  for (int i = 0; i < 4; ++i) CHECK(std::abs(score[i] - v2.row(i).squaredNorm()) <= 1e-14);
  // The projective criterion with M = I is the same number.
  Vector alpha(4);
  REQUIRE(criterion.CosAlpha(Matrix::Identity(4, 4), c, alpha));
  CHECK((alpha - score).lpNorm<Eigen::Infinity>() <= 1e-14);
}

}  // namespace mbb
