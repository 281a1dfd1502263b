// Internal invariants abort (problems/core/invariant.h) and the one message number formatter
// (problems/core/format.h).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <functional>

#include "problems/core/format.h"
#include "problems/core/problem.h"

namespace mbb {
namespace {

// Runs f in a child process; true if the child died of SIGABRT.
bool Aborts(const std::function<void()>& f) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);           // not Catch's handler: die of the signal
    std::freopen("/dev/null", "w", stderr);  // the expected invariant message
    f();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

// A DaeWorkspace no DAE made.
class ForeignWorkspace final : public DaeWorkspace {};

}  // namespace

TEST_CASE("FormatNumber: %g with a short exponent", "[format]") {
  CHECK(FormatNumber(1e-8) == "1e-8");  // std::to_string gave "0.000000"
  CHECK(FormatNumber(0.001) == "0.001");
  CHECK(FormatNumber(-2.5e-7) == "-2.5e-7");
  CHECK(FormatNumber(1.5e20) == "1.5e20");
  CHECK(FormatNumber(0.123456789) == "0.123457");
  CHECK(FormatNumber(2.0) == "2");
  CHECK(FormatNumber(0.000123456, 3) == "0.000123");
  CHECK(FormatNumber(1e100) == "1e100");
}

TEST_CASE("internal invariants abort on wrong output sizes and foreign workspaces", "[invariant]") {
  const Problem p = BuildProblem("spatial_pendulum", ParameterSet());
  const MechanicalDae& dae = *p.dae;
  auto ws = dae.MakeWorkspace();
  Vector phi(p.m());
  Matrix phi_q(p.m(), p.n());
  // The correct calls run (the check itself must not fire on them) ...
  CHECK_FALSE(Aborts([&] {
    dae.CalcPhi(*ws, 0.0, p.q0, phi);
    dae.CalcPhiQ(*ws, 0.0, p.q0, phi_q);
  }));
  // ... a wrong size or a workspace of another type aborts.
  CHECK(Aborts([&] {
    Vector short_phi(p.m() - 1);
    dae.CalcPhi(*ws, 0.0, p.q0, short_phi);
  }));
  CHECK(Aborts([&] {
    Matrix wide(p.m(), p.n() + 1);
    dae.CalcPhiQ(*ws, 0.0, p.q0, wide);
  }));
  CHECK(Aborts([&] {
    ForeignWorkspace foreign;
    dae.CalcPhiQ(foreign, 0.0, p.q0, phi_q);
  }));
}

}  // namespace mbb
