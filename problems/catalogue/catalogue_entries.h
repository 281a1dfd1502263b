// One factory per catalogue file; problems/catalogue/catalogue.cc lists them in one place.
#pragma once

#include <cmath>
#include <string>

#include "problems/core/format.h"
#include "problems/core/problem.h"

namespace mbb {

ProblemEntry DoublePendulumEntry();
ProblemEntry AndrewsSqueezerEntry();
ProblemEntry BricardEntry();
ProblemEntry CylindricalPairEntry();
ProblemEntry DoubleFourBarEntry();
ProblemEntry FlyballGovernorEntry();
ProblemEntry FourBarEntry();
ProblemEntry NFourBarEntry();
ProblemEntry GyroTopEntry();
ProblemEntry PhysicalPendulumEntry();
ProblemEntry PlanarPairEntry();
ProblemEntry PlanarPendulumEntry();
ProblemEntry SimplePendulumIftommEntry();
ProblemEntry SixBodyLinkageEntry();
ProblemEntry SliderCrank3dEntry();
ProblemEntry SmallMassOscillatorEntry();
ProblemEntry SpatialPendulumEntry();
ProblemEntry SpinTopEntry();
ProblemEntry StiffPendulumEntry();
ProblemEntry ZeroMassChainAEntry();
ProblemEntry ZeroMassChainBEntry();
ProblemEntry PendulumChainEntry();

/// The planar chain of N four-bars (double_four_bar.cc): N + 1 cranks, N couplers.
struct ModelDescription;
ModelDescription FourBarChainModel(int windows, const ParameterSet& p);

/// Throws InputError unless `value` > 0 (parameters are finite by validation).
inline void RequirePositive(double value, const std::string& key) {
  if (!(value > 0.0))
    throw InputError("parameter '" + key + "' = " + FormatNumber(value) + ": must be > 0");
}

/// Throws InputError unless `value` >= 0.
inline void RequireNonNegative(double value, const std::string& key) {
  if (!(value >= 0.0))
    throw InputError("parameter '" + key + "' = " + FormatNumber(value) + ": must be >= 0");
}

}  // namespace mbb
