// Coordinate partitioning methods of paper 003 (Blajer, Schiehlen, Schirm 1994):
//
//   partitioning-projective  independent coordinates chosen by the projective criterion
//                            (23a), re-evaluated after every step; a switch when another
//                            choice beats the current one by `hysteresis`;
//   partitioning-svd         the same with the geometry-only choice of the SVD of C
//                            (projective_criterion.h), the paper's comparison;
//   partitioning-fixed       the user's q_I (`independent`), never switched.
//
// All integrate the k + n first-order system (12) with (9) (partitioned_equations.h) with
// `integrator=rk4` (classical Runge-Kutta, fixed h), `dopri5` (Dormand-Prince 5(4), adaptive
// with rtol/atol [Hairer et al. 1993, s II.4]) or `ab4` (Adams-Bashforth 4 at fixed h, started
// by three RK4 steps). After every step the positions are projected onto Phi = 0 along q_D
// (`projection=on`). docs/methods/partitioning.md has the details.
#pragma once

#include <vector>

#include "methods/method.h"

namespace mbb {

/// The registry entries partitioning-projective, partitioning-svd, partitioning-fixed.
std::vector<MethodEntry> PartitioningMethodEntries();

/// Names of the coordinates of q for series columns: `alpha1`.. when the problem names them
/// (Problem::coordinate_names), `<body>_x`, `<body>_theta`, ... from the model structure's
/// body blocks, else q1, q2, ...
std::vector<std::string> CoordinateNames(const Problem& problem);

}  // namespace mbb
