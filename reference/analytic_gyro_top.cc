// Analytic reference for gyro_top (paper 002 s5.1): steady precession without nutation.
// With the initial state of eqs (164)-(171) and the spin rate of eq (165), the top turns
// at the constant rate omega_p about e3 and at omega_s about its axis d3 at a constant
// nutation theta, so its rotation is R(t) = Rz(omega_p t) Rx(theta) Rz(omega_s t)
// (angular velocity omega_p e3 + omega_s d3, eq 171), the Euler parameters are the
// quaternion product q_z(omega_p t) q_x(theta) q_z(omega_s t) (continuous in t from the
// catalogue's start value), and the centre of mass is L d3(t) (eq 169):
//   x = L sin(theta) sin(omega_p t), y = -L sin(theta) cos(omega_p t), z = L cos(theta).
// Closed form in a few trigonometric evaluations: we claim 13 digits (as the pendulum
// references), far beyond what a test uses. Refused unless the problem starts on this
// motion: omega_s (if given) equal to eq (165) and q0, v0 equal to the closed form at t = 0.
#include <Eigen/Geometry>
#include <cmath>

#include "problems/catalogue/gyro_top.h"
#include "reference/reference.h"

namespace mbb {

std::optional<Reference> GyroTopReference(const Problem& problem) {
  if (problem.id != "gyro_top") return std::nullopt;
  const double theta = std::stod(problem.parameters.at("theta"));
  const double omega_p = std::stod(problem.parameters.at("omega_p"));
  const GyroTopData d = GyroTopDataFor(theta, omega_p);
  const auto spin = problem.parameters.find("omega_s");
  if (spin != problem.parameters.end() && !spin->second.empty() &&
      std::abs(std::stod(spin->second) - d.omega_s) > 1e-12 * std::abs(d.omega_s))
    return std::nullopt;  // not the steady-precession spin rate of eq (165)
  const double length = d.length, omega_s = d.omega_s;
  auto evaluate = [theta, omega_p, omega_s, length](double t, Vector& q) {
    const Eigen::Quaterniond e =
        Eigen::Quaterniond(Eigen::AngleAxisd(omega_p * t, Eigen::Vector3d::UnitZ())) *
        Eigen::Quaterniond(Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitX())) *
        Eigen::Quaterniond(Eigen::AngleAxisd(omega_s * t, Eigen::Vector3d::UnitZ()));
    const Eigen::Vector3d cm = length * (e * Eigen::Vector3d::UnitZ());  // eq (169)
    q.head<3>() = cm;
    q[3] = e.w();
    q[4] = e.x();
    q[5] = e.y();
    q[6] = e.z();
  };
  // The catalogue start must be this motion (a changed start makes it another motion).
  if (problem.q0.size() != 7) return std::nullopt;
  Vector q(7);
  evaluate(0.0, q);
  if ((q - problem.q0).lpNorm<Eigen::Infinity>() > 1e-12) return std::nullopt;
  Reference ref;
  ref.id = "gyro_top/analytic";
  ref.provenance =
      "steady precession, 002 eqs (164)-(171): R(t) = Rz(omega_p t) Rx(theta) Rz(omega_s t), "
      "omega_s from eq (165)";
  ref.digits = 13.0;
  ref.t_max = 1e3;
  ref.evaluate = evaluate;
  return ref;
}

}  // namespace mbb
