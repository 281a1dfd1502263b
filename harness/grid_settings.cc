// The --all-methods grid's settings (grid_settings.h). CPU times below are of the instrumented
// run's thread (metrics.cpu_time_s), measured on this 2-core machine at a load average of 7-11
// on 2026-11-28 (commit 19214d2; the arkode-dirk entries re-measured at 8c067ca, load about 1;
// the arkode-erk order on Bricard and the n_four_bar budgets of 2000 on 2026-11-29, load 1);
// step counts do not depend on the machine.
#include "harness/grid_settings.h"

#include <string>

namespace mbb {

const std::vector<GridSetting>& GridSettings() {
  static const std::vector<GridSetting> settings = {
      // The 2-norm condition number of constrained-em's (n + m) x (n + m) Newton matrix by an
      // SVD at every step is a diagnostic that costs more than the step: the first 0.5 s of
      // Bricard 2.91 s against 0.18 s, of the flyball governor 8.4 s against 0.73 s, the first
      // second of n_four_bar 2.85 s against 0.26 s (there 20 s reached t = 6.9); the
      // steps are the same to the bit (RunSettings::diagnostics skips it in timed repeats).
      // metrics.iteration_matrix_condition then holds the first step's.
      {"constrained-em", "", "condition", "first-step",
       "the condition number's SVD at every step costs more than the step"},
      // The stiff governor (spring-dampers k = 8e5, c = 4e4) at its h = 2e-4 takes 50000 steps
      // over 10 s with every fixed-step method: 5.4 s (odeint-rk4) to 11 s (continued-qr,
      // null-space-em) each, and the adaptive explicit ones need more (odeint-rkf78 61198 steps,
      // 15.6 s). The grid runs its first second.
      {"", "flyball_governor", "t_end", "1",
       "every method takes 5000 steps or more per second of the stiff governor"},
      // The spatial slider-crank at its h = 2e-4 takes 50000 steps over 10 s: 1.9 s
      // (odeint-rk4) to 7.9 s (partitioning-projective) a method, constrained-em (h = 1e-4,
      // 100000 steps) about 10 s with the condition number at the first step only. The grid
      // runs its first 2 s.
      {"", "slider_crank_3d", "t_end", "2",
       "every fixed-step method takes 50000 steps or more over the slider-crank's 10 s"},
      // arkode-dirk on the governor: its step falls to about 2e-5 s; 43224 steps (971
      // Jacobians) and 21 s for the first second (with the projection as ARKODE's step
      // post-processing, which keeps the Jacobian).
      {"arkode-dirk", "flyball_governor", "max_steps", "2000",
       "arkode-dirk's step on the governor falls to about 2e-5 s: measured 43224 steps (21 s) for "
       "the first second"},
      // Explicit ERK below its stability limit on the stiff spring-dampers: 125615 steps to
      // t = 3.19 (h about 2.5e-5), 20 s.
      {"arkode-erk", "flyball_governor", "max_steps", "10000",
       "explicit ERK on the stiff governor steps at its stability limit, h about 2.5e-5: about "
       "40000 steps for the first second, measured 125615 steps to t = 3.19"},
      // Through the double four-bar's singular positions arkode-erk fails at t = 1.678;
      // arkode-dirk passes the one near t = 1.66, then its step collapses: 367415 steps to
      // t = 2.236 (76 s), where its error test fails at h = 7e-18.
      {"arkode-dirk", "double_four_bar", "max_steps", "10000",
       "arkode-dirk's step collapses after the singular positions near t = 1.66: measured 367415 "
       "steps to t = 2.236 of 10 s, where the error test fails at h = 7e-18"},
      // The chain of four-bars reaches a singular position near t = 0.72 (ida and continued-qr
      // fail there): arkode-dirk passes it but its step collapses, 1047726 steps to t = 3.30
      // (479 s), where its error test fails; arkode-erk took 224271 steps to t = 0.741.
      // The adaptive methods need few steps up to it (to t = 0.7: odeint-dopri5 76, rkf78 13,
      // arkode-erk 650, arkode-dirk 331), so a budget of 2000 stops each in the collapse
      // (at t = 0.718 to 0.727); budgets of 10000 and 20000 took them only to t = 0.72-0.78,
      // for 1.5-2.2 s a cell.
      {"arkode-dirk", "n_four_bar", "max_steps", "2000",
       "arkode-dirk's step collapses from the singular position near t = 0.72 on: measured "
       "1047726 steps to t = 3.30 of 10 s, where the error test fails"},
      {"arkode-erk", "n_four_bar", "max_steps", "2000",
       "arkode-erk's step collapses at the singular position near t = 0.72 (650 steps to t = "
       "0.7): measured 224271 steps to t = 0.741 of 10 s"},
      {"odeint-rkf78", "n_four_bar", "max_steps", "2000",
       "odeint-rkf78's step collapses from the singular position near t = 0.72 on (13 steps to "
       "t = 0.7): measured 77401 steps to t = 1.16 (14 s), where it fails on a step size "
       "underflow"},
      {"odeint-dopri5", "n_four_bar", "max_steps", "2000",
       "odeint-dopri5's step collapses from the singular position near t = 0.72 on (76 steps to "
       "t = 0.7): measured 205103 steps to t = 1.91 of 10 s"},
      // ARKODE's default order-4 ERK table (Zonneveld 5-3-4) on Bricard at rtol 1e-10: 44192
      // steps (265240 right-hand sides, 8.2 s) for a J4 error of 2.1e-9 m against the
      // reference; its order-5 table (Cash-Karp 6-4-5): 1922 steps (13629, 0.44 s) for 9.3e-10 m.
      // The order-4 table's steps grow as rtol^-0.3 on this problem (t_end 1: 81, 320, 1355,
      // 5482 at rtol 1e-4 to 1e-10), odeint-dopri5's as rtol^-0.18 (13, 29, 60, 151).
      {"arkode-erk", "bricard", "order", "5",
       "ARKODE's default order-4 ERK table takes 44192 steps (8.2 s) on Bricard for a J4 error of "
       "2.1e-9 m, its order-5 table 1922 steps (0.44 s) for 9.3e-10 m"},
      // Not a collapse: 35 coordinates make each step a 5-stage DIRK whose Newton solves
      // are dense 70 x 70 (0.82 ms a step): 11005 steps and 9.1 s for the 1 s horizon.
      {"arkode-dirk", "six_body_linkage", "max_steps", "1000",
       "arkode-dirk's dense 70 x 70 Newton solves cost 0.82 ms a step: measured 11005 steps "
       "(9.1 s) for the 1 s horizon"},
  };
  return settings;
}

void ApplyGridSettings(RunSpec& spec) {
  for (const GridSetting& s : GridSettings()) {
    if ((!s.method.empty() && s.method != spec.method) ||
        (!s.problem.empty() && s.problem != spec.problem))
      continue;
    if (s.key == "t_end") {
      if (spec.t_end == 0.0) spec.t_end = std::stod(s.value);  // recorded in settings.t_end
    } else if (s.key == "max_steps") {
      if (spec.settings.max_steps != RunControls{}.max_steps) continue;  // the user's wins
      spec.settings.max_steps = std::stol(s.value);
      spec.notes.push_back("the grid's step budget max_steps = " + s.value + ": " + s.why +
                           " (docs/reports.md, \"The full matrix\")");
    } else if (!spec.method_parameters.Has(s.key)) {
      spec.method_parameters.Set(s.key, s.value);  // recorded in method.parameters
    }
  }
}

}  // namespace mbb
