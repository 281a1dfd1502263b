// The gyro top's data (paper 002 s5.1), shared by the catalogue entry and its analytic
// reference (reference/analytic_gyro_top.cc).
#pragma once

namespace mbb {

struct GyroTopData {
  double mass, length, j1, j3, g;  // M, L (tip to centre of mass), J1 = J2, J3, gravity
  double theta, omega_p, omega_s;  // nutation, precession rate, steady spin rate (eq 165)
};

/// The cone of 002 s5.1 with nutation `theta` and precession rate `omega_p`; omega_s is the
/// steady-precession spin rate of eq (165).
GyroTopData GyroTopDataFor(double theta, double omega_p);

}  // namespace mbb
