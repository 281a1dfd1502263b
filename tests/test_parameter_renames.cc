// A method parameter renamed keeps its former spelling working (the CLI and the result
// documents are contracts): ida's DAE form is `dae_form` (`formulation` names the coordinate
// set everywhere else), `--set formulation=index1` still runs and records dae_form, and a
// result or baseline written before the rename compares equal to one written after.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "harness/configuration.h"
#include "harness/json_io.h"
#include "harness/regression.h"
#include "harness/runner.h"
#include "methods/method.h"
#include "problems/core/problem.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

const std::vector<ParameterSpec>& IdaSpecs() { return FindMethod("ida").parameters; }

TEST_CASE("a former parameter name reads as the current one", "[parameters]") {
  const ParameterSet given({{"formulation", "index1"}, {"max_order", "3"}});
  const ParameterSet current = given.WithCurrentNames(IdaSpecs(), "method ida");
  CHECK(current.values() ==
        std::map<std::string, std::string>{{"dae_form", "index1"}, {"max_order", "3"}});
  // Both spellings at once: which one runs would be a guess, so it is refused, naming both.
  const ParameterSet both({{"formulation", "index1"}, {"dae_form", "index3"}});
  CHECK_THROWS_WITH(both.WithCurrentNames(IdaSpecs(), "method ida"),
                    Catch::Contains("dae_form") && Catch::Contains("formulation"));
  // A method without renames, or an unknown one, is left alone.
  CHECK(WithCurrentParameterNames("no-such-method", {{"formulation", "x"}}) ==
        std::map<std::string, std::string>{{"formulation", "x"}});
}

TEST_CASE("a run given the former name records the current one and runs the same", "[parameters]") {
  const RunRecord former =
      Execute(Spec("planar_pendulum", "ida", {}, {{"formulation", "index1"}}, 0.2));
  const RunRecord current =
      Execute(Spec("planar_pendulum", "ida", {}, {{"dae_form", "index1"}}, 0.2));
  REQUIRE(former.status == RunStatus::kOk);
  CHECK(former.method_parameters.at("dae_form") == "index1");
  CHECK(former.method_parameters.count("formulation") == 0);
  CHECK(former.counters.steps == current.counters.steps);
  CHECK(former.final_q == current.final_q);
  // index1 is not the default: had the former name been dropped, the run would be index2.
  const RunRecord index2 = Execute(Spec("planar_pendulum", "ida", {}, {}, 0.2));
  CHECK(index2.method_parameters.at("dae_form") == "index2");
  CHECK(index2.final_q != former.final_q);
}

TEST_CASE("a stored configuration under the former name compares equal after the rename",
          "[parameters]") {
  const RunSpec spec = Spec("planar_pendulum", "ida", {}, {{"dae_form", "index1"}}, 0.2);
  const std::string now = ConfigurationKey(DescribeRun(ResolveRun(spec)), spec);
  std::string before = now;
  const std::string renamed = "\"dae_form\"";
  before.replace(before.find(renamed), renamed.size(), "\"formulation\"");
  REQUIRE(before != now);
  CHECK(WithCurrentParameterNames(before) == now);
  CHECK(WithCurrentParameterNames(std::string("not json")) == "not json");
}

TEST_CASE("a committed baseline written before the rename reads under the current name",
          "[parameters]") {
  const BaselineValues b =
      ReadBaselineValues(std::string(MBBENCH_SOURCE_DIR) + "/results/baselines/four_bar_ida.json");
  CHECK(b.method_parameters.count("formulation") == 0);
  CHECK(b.method_parameters.at("dae_form") == "index2");
}

}  // namespace
}  // namespace mbb
