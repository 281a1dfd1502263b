// mbbench's command line with this repository's method registered beside the built-in ones:
// `mybench list methods`, `mybench run -m explicit-midpoint -p stiff_pendulum`, sweep,
// stability, fastest, report... all work on it.
#include "explicit_midpoint.h"
#include "harness/cli.h"

int main(int argc, char** argv) {
  mbb::RegisterMethods({ExplicitMidpointEntry()});
  return mbb::RunCli(argc, argv);
}
