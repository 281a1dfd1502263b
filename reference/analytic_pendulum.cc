// Analytic references for the pendulums released from rest, by Jacobi elliptic functions
// (e.g. Lawden, "Elliptic Functions and Applications", 1989, s8.1): for a pendulum with
// small-oscillation frequency w and amplitude phi0 about the downward vertical,
//   sin(phi(t)/2) = k sn(K(k) - w t, k),   k = sin(phi0/2),
// which starts at phi0 at rest. Boost.Math evaluates sn and K to about 1e-15 relative;
// we claim 13 digits for the positions.
//   planar_pendulum (000 eq 30):  point mass, w^2 = g/l, phi measured from -z,
//                                  x = l sin(phi), z = -l cos(phi).
//   physical_pendulum (003 s3):    w^2 = m g rho / (J + m rho^2), gamma = phi - pi/2,
//                                  x = rho cos(gamma), y = rho sin(gamma).
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>

#include "reference/reference.h"

namespace mbb {
namespace {

struct PendulumSolution {
  double omega, k, quarter_period_parameter;
  double Angle(double t) const {  // phi(t), angle from the downward vertical
    const double sn = boost::math::jacobi_sn(k, quarter_period_parameter - omega * t);
    return 2.0 * std::asin(k * sn);
  }
};

PendulumSolution MakeSolution(double omega, double phi0) {
  const double k = std::sin(phi0 / 2.0);
  return {omega, k, boost::math::ellint_1(k)};
}

double Param(const Problem& p, const char* key) { return std::stod(p.parameters.at(key)); }

}  // namespace

std::optional<Reference> PendulumReference(const Problem& problem) {
  Reference ref;
  ref.digits = 13.0;
  ref.t_max = 1e3;
  // simple_pendulum_iftomm (model layer, q = (x, y) of the bob) is the same point-mass
  // pendulum; it starts at phi0 = -pi/2 and is evaluated by symmetry, phi(t) = -phi|phi0|(t).
  if (problem.id == "planar_pendulum" || problem.id == "simple_pendulum_iftomm") {
    const double l = Param(problem, "length");
    const double phi0 = std::atan2(problem.q0[0], -problem.q0[1]);
    if (problem.v0.norm() != 0.0) return std::nullopt;
    const double sign = phi0 < 0.0 ? -1.0 : 1.0;
    const auto s = MakeSolution(std::sqrt(Param(problem, "g") / l), std::abs(phi0));
    ref.id = problem.id + "/analytic";
    ref.provenance = "Jacobi elliptic closed form, sin(phi/2) = k sn(K - w t, k), Boost.Math";
    ref.evaluate = [s, l, sign](double t, Vector& q) {
      const double phi = sign * s.Angle(t);
      q[0] = l * std::sin(phi);
      q[1] = -l * std::cos(phi);
    };
    return ref;
  }
  if (problem.id == "physical_pendulum") {
    if (problem.v0.norm() != 0.0) return std::nullopt;
    const double m = Param(problem, "mass"), rho = Param(problem, "rho"), g = Param(problem, "g");
    const double j =
        problem.parameters.count("J") ? Param(problem, "J") : m * 4.0 * rho * rho / 12.0;
    const double phi0 = problem.q0[2] + M_PI / 2.0;
    const auto s = MakeSolution(std::sqrt(m * g * rho / (j + m * rho * rho)), phi0);
    ref.id = "physical_pendulum/analytic";
    ref.provenance =
        "Jacobi elliptic closed form of the equivalent simple pendulum, "
        "w^2 = m g rho / (J + m rho^2), Boost.Math";
    ref.evaluate = [s, rho](double t, Vector& q) {
      const double gamma = s.Angle(t) - M_PI / 2.0;
      q[0] = rho * std::cos(gamma);
      q[1] = rho * std::sin(gamma);
      q[2] = gamma;
    };
    return ref;
  }
  return std::nullopt;
}

}  // namespace mbb
