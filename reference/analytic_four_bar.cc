// Analytic reference for the parallelogram four-bar chains, double_four_bar (N = 2) and
// n_four_bar (any N): N + 1 equal cranks of length L on pivots spaced L apart, joined by N
// couplers of length L. On the regular branch every crank turns by the same angle phi and
// the couplers translate, so the chain is one rigid degree of freedom:
//   T = I phi'^2 / 2,  I = (N + 1)(J + m L^2 / 4) + N m L^2,
//   V = G sin(phi),     G = g m L ((N + 1) / 2 + N),
// and phi'' = -(G / I) cos(phi). With theta = phi + pi/2 this is the pendulum
// theta'' = -w^2 sin(theta), w^2 = G / I, started inverted (theta = pi) with theta' = omega0:
// a rotating pendulum. Its energy integral gives, for psi = theta / 2,
//   psi'^2 = (E/2) (1 - k^2 sin^2 psi),  E = omega0^2 / 2 + 2 w^2,  k^2 = 2 w^2 / E < 1,
// so psi(t) = am(K(k) + sign(omega0) sqrt(E/2) t, k) (Lawden, "Elliptic Functions and
// Applications", 1989, s8.2; am = Jacobi amplitude, unwrapped). Boost.Math evaluates sn, cn
// and K to about 1e-15 relative; we claim 12 digits for the positions over 10 s.
//
// This is the solution on the branch the mechanism starts on. At the singular positions
// (cranks horizontal) a numerical run can switch to a folded branch and still conserve
// energy (docs/problems.md): the error against this reference is what detects it.
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>

#include "reference/reference.h"

namespace mbb {
namespace {

// The chain's data, fixed in problems/catalogue/double_four_bar.cc (FourBarChainModel).
constexpr double kBarMass = 1.0, kBarLength = 1.0;
constexpr double kBarInertia = kBarMass * kBarLength * kBarLength / 12.0;

struct RotatingPendulum {
  double k, quarter_period, rate, sign;
  // The Jacobi amplitude am(u, k), continuous in u: atan2(sn, cn) jumps by 2 pi where am
  // passes an odd multiple of pi, at u = 2K (mod 4K).
  double Amplitude(double u) const {
    double cn = 0.0, dn = 0.0;
    const double sn = boost::math::jacobi_elliptic(k, u, &cn, &dn);
    return std::atan2(sn, cn) + 2.0 * M_PI * std::round(u / (4.0 * quarter_period));
  }
  double CrankAngle(double t) const {  // phi(t), from +x, phi(0) = pi/2
    const double psi = Amplitude(quarter_period + sign * rate * t);
    return 2.0 * psi - M_PI / 2.0;
  }
};

// Positions of the model's bodies, in its order: cranks 1..N+1 (x, y, theta) then couplers
// 1..N (x, y, theta), planar formulation.
void ChainPositions(int windows, double phi, Vector& q) {
  const double c = std::cos(phi), s = std::sin(phi);
  for (int i = 0; i <= windows; ++i) {
    q[3 * i] = i * kBarLength + 0.5 * kBarLength * c;
    q[3 * i + 1] = 0.5 * kBarLength * s;
    q[3 * i + 2] = phi;
  }
  for (int i = 0; i < windows; ++i) {
    const int b = 3 * (windows + 1 + i);
    q[b] = (i + 0.5) * kBarLength + kBarLength * c;
    q[b + 1] = kBarLength * s;
    q[b + 2] = 0.0;
  }
}

}  // namespace

std::optional<Reference> FourBarChainReference(const Problem& problem) {
  int windows = 0;
  if (problem.id == "double_four_bar") windows = 2;
  if (problem.id == "n_four_bar") windows = std::stoi(problem.parameters.at("N"));
  if (windows < 1) return std::nullopt;
  const double omega0 = std::stod(problem.parameters.at("omega0"));
  const double g = std::stod(problem.parameters.at("g"));
  if (omega0 == 0.0) return std::nullopt;  // k = 1: the unstable equilibrium, no reference

  const double inertia = (windows + 1) * (kBarInertia + kBarMass * kBarLength * kBarLength / 4.0) +
                         windows * kBarMass * kBarLength * kBarLength;
  const double gravity_moment = g * kBarMass * kBarLength * ((windows + 1) / 2.0 + windows);
  const double w2 = gravity_moment / inertia;
  const double energy = omega0 * omega0 / 2.0 + 2.0 * w2;
  const double k = std::sqrt(2.0 * w2 / energy);
  const RotatingPendulum solution{k, boost::math::ellint_1(k), std::sqrt(energy / 2.0),
                                  omega0 > 0.0 ? 1.0 : -1.0};

  // Refuse if the problem's start is not the configuration this solution assumes.
  Vector q(problem.q0.size());
  if (q.size() != 6 * windows + 3) return std::nullopt;
  ChainPositions(windows, solution.CrankAngle(0.0), q);
  if ((q - problem.q0).lpNorm<Eigen::Infinity>() > 1e-12) return std::nullopt;

  Reference ref;
  ref.id = problem.id + "/analytic";
  ref.provenance =
      "parallelogram chain reduced to one rotating pendulum, phi = 2 am(K + sqrt(E/2) t, k) - "
      "pi/2 (Jacobi amplitude, Boost.Math); reference/analytic_four_bar.cc";
  ref.digits = 12.0;
  ref.t_max = 1e3;
  ref.evaluate = [solution, windows](double t, Vector& out) {
    ChainPositions(windows, solution.CrankAngle(t), out);
  };
  return ref;
}

}  // namespace mbb
