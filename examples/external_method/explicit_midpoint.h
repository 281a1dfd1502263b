// The registry entry of the explicit midpoint method (explicit_midpoint.cc).
#pragma once

#include "methods/method.h"

mbb::MethodEntry ExplicitMidpointEntry();
