// Loop-closure constraints of the joint-tree formulation (problems/model/joint_tree_closure.cc):
// the general methods run the catalogue's closed loops in joint coordinates and meet the
// references made in body coordinates; the recursive methods refuse a loop naming its cut
// joint. (Phi_q, gamma, d(Phi_q)/dt and the reaction stiffness against finite differences:
// tests/test_derivatives.cc, which builds every problem in every formulation it offers.)
#include <catch2/catch.hpp>

#include "harness/runner.h"
#include "tests/run_spec.h"

namespace mbb {

TEST_CASE("joint-tree loop closure: the general methods meet the references in joint coordinates",
          "[joint-tree][reference]") {
  // Default tolerances and horizons. Measured output errors (relative): four_bar ida 7.0e-9
  // (its O4 is stated rocker -> ground, against the tree's direction), slider_crank_3d
  // dopri5 6.1e-9, bricard dopri5 9.9e-8 (a redundant closure row: Phi_q has rank 4 of 5),
  // six_body_linkage dopri5 1.0e-8. A wrong closure (a joint point or axis in the wrong
  // frame, a sign in gamma) gives O(1); 1e-6 leaves room for another step sequence.
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"four_bar", "ida"},
      {"slider_crank_3d", "odeint-dopri5"},
      {"bricard", "odeint-dopri5"},
      {"six_body_linkage", "odeint-dopri5"}};
  for (const auto& [problem, method] : runs) {
    INFO(problem << " " << method);
    const RunRecord r = Execute(Spec(problem, method, {{"formulation", "joint-tree"}}, {}, 0.0));
    INFO(r.message);
    REQUIRE(r.status == RunStatus::kOk);
    CHECK(r.problem_formulation == "joint-tree");
    CHECK(r.m > 0);
    REQUIRE(r.metrics.error);
    REQUIRE(r.metrics.error->output_max_rel);
    CHECK(*r.metrics.error->output_max_rel < 1e-6);
  }
}

TEST_CASE("joint-tree loop closure: the recursive methods refuse a loop, naming the cut joint",
          "[joint-tree][recursive]") {
  for (const char* method : {"recursive", "recursive-zero-mass", "joint-dense"}) {
    INFO(method);
    const RunRecord r = Execute(Spec("four_bar", method, {{"formulation", "joint-tree"}}, {}, 0.0));
    CHECK(r.status == RunStatus::kNotApplicable);
    CHECK_THAT(r.message, Catch::Contains("closed loop") && Catch::Contains("cut joint 'O3'"));
  }
}

}  // namespace mbb
