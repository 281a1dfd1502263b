// Runs a catalogue problem with a registered method through the mbbench libraries and
// prints what the result records: the smallest complete use of mbbench as a library.
#include <cstdio>

#include "harness/runner.h"

int main() {
  mbb::RunSpec spec;
  spec.problem = "planar_pendulum";
  spec.method = "odeint-rk4";
  spec.settings.h = 1e-3;
  spec.t_end = 1.0;
  spec.repeats = 0;
  const mbb::RunRecord record = mbb::Execute(spec);
  std::printf("%s %s: %s, %ld steps, energy drift %.3g\n", record.problem_id.c_str(),
              record.method_id.c_str(), mbb::ToString(record.status), record.counters.steps,
              record.metrics.energy_max_rel_drift);
  return record.status == mbb::RunStatus::kOk ? 0 : 1;
}
