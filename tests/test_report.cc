// The comparison report (docs/reports.md): method configurations as series and the fitted
// observed orders against the declared ones, on physical_pendulum, whose reference is the
// analytic solution (so the error is the true global error).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/cli.h"
#include "harness/export.h"
#include "harness/json_io.h"
#include "harness/report.h"
#include "harness/report_analysis.h"
#include "harness/report_verdicts.h"
#include "harness/sweep_file.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;

fs::path SweepInto(const std::string& experiment, const std::string& scratch) {
  const fs::path out = ScratchDirectory(scratch);
  const std::string file = std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/" + experiment;
  REQUIRE(RunCli({"sweep", file, "--out", out.string(), "--jobs", "2"}) == 0);
  return out;
}

}  // namespace

TEST_CASE("a log-log fit recovers the exponent of a power law", "[report]") {
  // y = 3 x^2.5 exactly: the least-squares slope is 2.5 to rounding.
  std::vector<std::pair<double, double>> points;
  for (double x : {0.1, 0.05, 0.02, 0.01}) points.push_back({x, 3.0 * std::pow(x, 2.5)});
  REQUIRE(FitLogLogSlope(points).value() == Approx(2.5).margin(1e-12));
  CHECK_FALSE(FitLogLogSlope({{0.1, 1.0}}).has_value());
  CHECK_FALSE(FitLogLogSlope({{0.1, 1.0}, {0.1, 2.0}}).has_value());
}

TEST_CASE("an ida sweep over two formulations x three rtol gives two labelled lines", "[report]") {
  const fs::path out = SweepInto("ida_formulations.json", "report_ida");
  const auto rows = ReadResultSummaries(out.string());
  REQUIRE(rows.size() == 6);
  std::map<std::string, std::set<std::string>> swept_by_configuration;
  for (const auto& r : rows) swept_by_configuration[ConfigurationLabel(r)].insert(SweptValue(r));
  REQUIRE(swept_by_configuration.size() == 2);
  for (const auto& [label, swept] : swept_by_configuration) {
    INFO(label);
    CHECK(swept == std::set<std::string>{"rtol=1e-05", "rtol=1e-07", "rtol=1e-09"});
  }
  CHECK(swept_by_configuration.count("ida dae_form=index1") == 1);
  REQUIRE(WriteReport(out.string()) == 6);
  const std::string md = ReadAll(out / "report.md");
  // In the report both lines name the swept parameter, the default one too.
  CHECK(md.find("| ida dae_form=index1 | rtol=1e-07 |") != std::string::npos);
  CHECK(md.find("| ida dae_form=index2 | rtol=1e-07 |") != std::string::npos);
  std::vector<ResultSummary> labelled = rows;
  LabelConfigurations(labelled);
  std::set<std::string> labels;
  for (const auto& r : labelled) labels.insert(ConfigurationLabel(r));
  CHECK(labels == std::set<std::string>{"ida dae_form=index1", "ida dae_form=index2"});
  CHECK(md.find("Method x problem grid") != std::string::npos);
  CHECK(md.find("## Environment") != std::string::npos);
}

TEST_CASE("runs in another formulation share the problem's grid row; other parameters split it",
          "[report]") {
  auto summary = [](std::string problem, std::string method,
                    std::map<std::string, std::string> parameters) {
    ResultSummary r;
    r.problem = std::move(problem);
    r.method = std::move(method);
    r.problem_parameters = std::move(parameters);
    return r;
  };
  std::vector<ResultSummary> rows = WithProblemLabels({
      summary("four_bar", "odeint-rk4", {{"formulation", "planar"}}),
      summary("four_bar", "null-space-em", {{"formulation", "directors"}}),
      summary("slider_crank_3d", "odeint-rk4", {{"crank_com", "pivot"}}),
      summary("slider_crank_3d", "odeint-rk4", {{"crank_com", "mid"}}),
  });
  LabelConfigurations(rows);
  CHECK(rows[0].problem == "four_bar");
  CHECK(rows[1].problem == "four_bar");
  CHECK(ConfigurationLabel(rows[0]) == "odeint-rk4 [planar]");
  CHECK(ConfigurationLabel(rows[1]) == "null-space-em [directors]");
  CHECK(rows[2].problem == "slider_crank_3d crank_com=pivot");
  CHECK(rows[3].problem == "slider_crank_3d crank_com=mid");
  CHECK(ConfigurationLabel(rows[3]) == "odeint-rk4");  // one formulation: nothing added
}

TEST_CASE("fixed-step sweeps give the declared orders of odeint-rk4 (4) and tangent-newmark (2)",
          "[report]") {
  const fs::path out = SweepInto("fixed_step_orders.json", "report_orders");
  const auto fits = FitObservedOrders(ReadResultSummaries(out.string()));
  std::map<std::string, OrderFit> by_configuration;
  for (const auto& f : fits) by_configuration[f.configuration] = f;
  REQUIRE(by_configuration.count("odeint-rk4") == 1);
  REQUIRE(by_configuration.count("tangent-newmark") == 1);
  // RK4 is of order 4 and the Newmark trapezoidal rule of order 2 (their papers); with h from
  // 1e-2 to 1.25e-3 the errors (1e-7..4e-11 and 2e-3..3e-5) are in the asymptotic range and
  // far above the analytic reference's rounding, so the fit is within 0.2 of the declared
  // order (tighter than the conformance suite's slack of 0.3, which a clean fit needs not).
  CHECK(by_configuration["odeint-rk4"].declared == 4);
  CHECK(by_configuration["tangent-newmark"].declared == 2);
  CHECK(by_configuration["odeint-rk4"].points == 4);
  CHECK(std::abs(by_configuration["odeint-rk4"].observed - 4.0) < 0.2);
  CHECK(std::abs(by_configuration["tangent-newmark"].observed - 2.0) < 0.2);
  REQUIRE(WriteReport(out.string()) == 8);
  CHECK(ReadAll(out / "report.md").find("observed order") != std::string::npos);
}

TEST_CASE("the declared order of a fit is the run's order parameter where it has one", "[report]") {
  // Two fixed-step arkode-erk runs a factor 2 apart whose errors fall 32-fold: observed 5.
  auto run = [](double h, double error, const std::string& order) {
    ResultSummary r;
    r.problem = "planar_pendulum";
    r.method = "arkode-erk";
    r.status = "ok";
    r.h = h;
    r.error_rel = error;
    if (!order.empty()) r.method_parameters["order"] = order;
    return r;
  };
  for (const std::string order : {"", "5"}) {
    INFO("order parameter '" << order << "'");
    const auto fits = FitObservedOrders({run(0.02, 3.2e-6, order), run(0.01, 1e-7, order)});
    REQUIRE(fits.size() == 1);
    CHECK(std::abs(fits[0].observed - 5.0) < 1e-9);
    CHECK(fits[0].declared == (order.empty() ? 4 : 5));  // 4: the registry's default table
  }
}

TEST_CASE("a stability result in the directory appears as a row of the stability table",
          "[report]") {
  const fs::path out = ScratchDirectory("report_stability");
  REQUIRE(RunCli({"stability", "-p", "stiff_pendulum", "-m", "odeint-rk4", "--out",
                  out.string()}) == 0);
  REQUIRE(RunCli({"run", "-p", "stiff_pendulum", "-m", "odeint-rk4", "--repeats", "0", "--out",
                  out.string()}) == 0);
  const auto limits = ReadStabilitySummaries(out.string());
  REQUIRE(limits.size() == 1);
  REQUIRE(limits[0].h_max_stable.has_value());
  REQUIRE(WriteReport(out.string()) == 1);  // the stability file is not counted as a run
  const std::string md = ReadAll(out / "report.md");
  CHECK(md.find("## Stability limits") != std::string::npos);
  CHECK(md.find("| stiff_pendulum | odeint-rk4 |") != std::string::npos);
  // The environment table counts the search beside the run (same build, same machine): the
  // row ends with 1 run and 1 stability search.
  CHECK(md.find("| 1 | 1 |\n") != std::string::npos);
}

TEST_CASE("without a reference, methods that end in different states are flagged", "[report]") {
  // Two adaptive runs at rtol 1e-8 on a pendulum started upright: one stays up (theta = pi),
  // one falls (theta = 0). Their tolerances are 100 (rtol + atol)(1 + |median|) ~ 1e-5, so an
  // O(1) difference is a disagreement; the same runs 1e-9 apart agree.
  ResultSummary up, down;
  up.problem = down.problem = "my_slider_crank";
  up.status = down.status = "ok";
  up.method = "ida";
  down.method = "odeint-dopri5";
  up.rtol = down.rtol = 1e-8;
  up.atol = down.atol = 1e-10;
  up.outputs["theta"] = 3.14159;
  down.outputs["theta"] = 0.0;
  auto rows = CompareOutputsAcrossMethods({up, down});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].disagree);
  down.outputs["theta"] = 3.14159 + 1e-9;
  rows = CompareOutputsAcrossMethods({up, down});
  REQUIRE(rows.size() == 1);
  CHECK_FALSE(rows[0].disagree);
  up.error_rel = 1e-9;  // a reference exists: the reference judges, not the agreement table
  CHECK(CompareOutputsAcrossMethods({up, down}).empty());
}

TEST_CASE("the all_methods experiment is every registered method on every problem", "[report]") {
  const SweepFile sweep = ReadSweepFile(std::string(MBBENCH_EXPERIMENTS_DIR) + "/all_methods.json");
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& item : sweep.items) pairs.insert({item.spec.problem, item.spec.method});
  CHECK(sweep.items.size() == ProblemCatalogue().size() * MethodRegistry().size());
  for (const auto& p : ProblemCatalogue())
    for (const auto& m : MethodRegistry()) {
      INFO(p.id << " " << m.name);
      CHECK(pairs.count({p.id, m.name}) == 1);
    }
}

// Splits one CSV line without quoted commas (the numeric columns never hold any).
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

TEST_CASE("export writes one tidy row per run, numbers as numbers, and index.json is typed",
          "[report]") {
  const fs::path out = SweepInto("ida_formulations.json", "report_export");
  REQUIRE(RunCli({"export", out.string(), "--csv"}) == 0);
  std::ifstream csv(out / "results.csv");
  std::string header_line;
  REQUIRE(std::getline(csv, header_line));
  const auto header = SplitCsv(header_line);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(SplitCsv(line));
  REQUIRE(rows.size() == 6);
  // The columns a pandas user reads as float64: every non-empty cell parses as a number.
  int numeric_columns = 0;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    const bool numeric = name == "rtol" || name == "atol" || name == "t_end" ||
                         name == "set.max_order" || name.rfind("metrics.", 0) == 0;
    if (!numeric) continue;
    ++numeric_columns;
    for (const auto& row : rows) {
      REQUIRE(row.size() == header.size());
      INFO(name << " = '" << row[c] << "'");
      if (row[c].empty()) continue;
      char* end = nullptr;
      std::strtod(row[c].c_str(), &end);
      CHECK(*end == '\0');
    }
  }
  CHECK(numeric_columns > 10);
  const auto index = nlohmann::json::parse(std::ifstream(out / "index.json"));
  const auto& run = index.at("runs").at(0);
  CHECK(run.at("method_parameters").at("max_order").is_number());
  // The sweep file spells ida's DAE form by its former name; the result records the current.
  CHECK(run.at("method_parameters").at("dae_form").is_string());
  CHECK(run.at("metrics").at("error.position_max_rel").is_number());
  CHECK(run.at("settings").at("rtol").is_number());
  CHECK(run.at("status") == "ok");  // the old keys stay
}

}  // namespace mbb

namespace mbb {

TEST_CASE("numbers that round to zero print without a sign", "[report]") {
  // scd = -log10(error) is slightly negative for an error just above 1.
  CHECK(FormatNumber(-0.02, "%.1f") == "0.0");
  CHECK(FormatNumber(-0.0, "%.2e") == "0.00e+00");
  CHECK(FormatNumber(-0.5, "%.1f") == "-0.5");
  CHECK(FormatNumber(-1e-5, "%.1e") == "-1.0e-05");
  CHECK(FormatNumber(std::nullopt, "%g") == "-");
}

TEST_CASE("ok but inaccurate: any error above the threshold, drift, or not meaningful",
          "[report]") {
  ResultSummary r;
  r.status = "ok";
  r.error_rel = 1e-8;
  CHECK(StatusClass(r) == "ok");
  r.output_error_rel = 0.43;  // positions fine, an output 43 % off: no approximation of it
  CHECK(StatusClass(r) == "inaccurate");
  CHECK(StatusText(r) == "ok (inaccurate)");
  r.output_error_rel = 1e-8;
  r.outputs_meaningful = false;
  CHECK(InaccuracyReasons(r) == std::vector<std::string>{"outputs_meaningful: false"});
  r.status = "failed";  // a failed run is failed, not inaccurate
  CHECK(StatusClass(r) == "failed");
  CHECK(InaccuracyReasons(r).empty());
}

TEST_CASE("the order flag uses the conformance suite's slack", "[report]") {
  OrderFit fit;
  fit.declared = 4;
  fit.observed = 3.52;  // 0.48 below the declared 4: beyond the slack, flagged
  CHECK(OrderFlag(fit) == "below");
  fit.observed = 4.0 - 0.9 * kOrderSlack;
  CHECK(OrderFlag(fit).empty());
  fit.observed = 4.0 + 1.1 * kOrderSlack;
  CHECK(OrderFlag(fit) == "above");
  fit.declared = 0;  // nothing declared, nothing to flag
  CHECK(OrderFlag(fit).empty());
}

TEST_CASE("a tight run is not a disagreement for sitting within its tolerance of the truth",
          "[report]") {
  // A tight run (IDA at rtol 1e-10, 5.6e-7 from a median set by looser runs) must not be
  // flagged against its own tolerance (3.4e-7) alone. Here one run at rtol 1e-10
  // (tolerance 100 (1e-10 + 1e-12) (1 + 1) ~ 2e-8) at 1.0 and two at rtol 1e-6
  // (tolerance ~ 2e-4) 5e-5 and 6e-5 above:
  // the tight run is 5e-5 from the median, far beyond its own tolerance, yet every pair lies
  // within the sum of its two tolerances.
  auto run = [](const std::string& method, double rtol, double value) {
    ResultSummary r;
    r.problem = "no_reference";
    r.status = "ok";
    r.method = method;
    r.rtol = rtol;
    r.atol = rtol / 100.0;
    r.outputs["x"] = value;
    return r;
  };
  std::vector<ResultSummary> runs = {run("ida", 1e-10, 1.0), run("odeint-dopri5", 1e-6, 1.00005),
                                     run("arkode-erk", 1e-6, 1.00006)};
  auto rows = CompareOutputsAcrossMethods(runs);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].max_deviation > rows[0].tolerance);  // the old rule would have said DISAGREE
  CHECK_FALSE(rows[0].disagree);
  CHECK(rows[0].outlier.empty());
  // A third loose run that fell to another branch contradicts both others and is named.
  runs.push_back(run("arkode-dirk", 1e-6, 0.0));
  rows = CompareOutputsAcrossMethods(runs);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].disagree);
  CHECK(rows[0].outlier == "arkode-dirk rtol=1e-06");
  CHECK(rows[0].outlier_conflicts == 3);
}

TEST_CASE("an ok run far from its reference is marked inaccurate, with its warnings", "[report]") {
  // RK4 at h = 0.3 s on physical_pendulum (period about 1.6 s): ok, but the run leaves the
  // analytic solution; the result's warnings (energy drift, left the reference) must reach
  // the report in full, and the plots' error measure is chosen from what results record.
  const fs::path out = ScratchDirectory("report_verdicts");
  REQUIRE(RunCli({"run", "-p", "physical_pendulum", "-m", "odeint-rk4", "--h", "0.3", "--repeats",
                  "3", "--out", out.string()}) == 0);
  const auto rows = ReadResultSummaries(out.string());
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].error_rel.value() > kInaccurateError);
  CHECK(StatusClass(rows[0]) == "inaccurate");
  REQUIRE(WriteReport(out.string()) == 1);
  const std::string md = ReadAll(out / "report.md");
  CHECK(md.find("| ok (inaccurate) |") != std::string::npos);
  for (const auto& warning : rows[0].warnings) {
    INFO(warning);
    CHECK(md.find("warning: " + warning) != std::string::npos);  // whole, not cut
  }
  const std::string html = ReadAll(out / "report.html");
  CHECK(html.find("<td class='inaccurate'>ok (inaccurate)") != std::string::npos);
  CHECK(html.find("td.inaccurate{background:") != std::string::npos);
  // Error bars: the wall-time plot's data has the min and max of the repeats as columns.
  const std::string data = ReadAll(out / "plots" / "physical_pendulum_work_time.dat");
  std::istringstream line(data.substr(data.find('\n') + 1));
  double x = 0, y = 0, low = 0, high = 0;
  line >> x >> y >> low >> high;
  CHECK(low == Approx(rows[0].wall_min.value()));
  CHECK(high == Approx(rows[0].wall_max.value()));
  CHECK(RunCli({"report", out.string(), "--error", "energy"}) == 0);
  CHECK(RunCli({"report", out.string(), "--error", "final"}) == 2);  // not recorded: refused
  CHECK(RunCli({"report", out.string(), "--error", "l2"}) == 2);
}

}  // namespace mbb
