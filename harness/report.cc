#include "harness/report.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/json_io.h"

namespace mbb {

namespace {

namespace fs = std::filesystem;

std::string Num(const std::optional<double>& x, const char* format = "%.3g") {
  if (!x) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, *x);
  return buffer;
}

std::string Settings(const ResultSummary& r) {
  std::string s;
  if (r.h) s += "h=" + Num(r.h);
  if (r.rtol) s += std::string(s.empty() ? "" : " ") + "rtol=" + Num(r.rtol);
  for (const auto& [k, v] : r.method_parameters)
    s += std::string(s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// A file name or parser message in HTML text.
std::string Escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

bool HaveGnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// Error vs median wall time, one point series per method; returns the png name or "".
std::string PlotWorkPrecision(const std::string& dir, const std::string& problem,
                              const std::vector<ResultSummary>& rows) {
  std::map<std::string, std::vector<std::pair<double, double>>> points;
  for (const auto& r : rows)
    if (r.problem == problem && r.wall_median && r.error_rel && *r.error_rel > 0)
      points[r.method].push_back({*r.wall_median, *r.error_rel});
  if (points.empty()) return "";
  fs::create_directories(dir + "/plots");
  const std::string data = dir + "/plots/" + problem + ".dat";
  const std::string png = "plots/" + problem + ".png";
  std::ofstream out(data);
  std::string plot;
  int block = 0;
  for (const auto& [method, pts] : points) {
    out << "# " << method << "\n";
    for (const auto& [t, e] : pts) out << t << " " << e << "\n";
    out << "\n\n";
    plot += std::string(plot.empty() ? "" : ", ") + "'" + data + "' index " +
            std::to_string(block++) + " with linespoints title '" + method + "'";
  }
  out.close();
  const std::string script = dir + "/plots/" + problem + ".gp";
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 800,560 noenhanced\nset output '" << dir << "/" << png << "'\n"
     << "set logscale xy\nset format y '%.0e'\nset xlabel 'median wall time [s]'\n"
     << "set ylabel 'max relative position error'\nset title '" << problem
     << ": work-precision'\nset key outside\nplot " << plot << "\n";
  gp.close();
  // gnuplot-iostream would die by SIGPIPE without gnuplot (docs/toolchain.md trap 3): run the
  // script file instead and check the output exists.
  const std::string command = "gnuplot '" + script + "' >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0 || !fs::exists(dir + "/" + png)) return "";
  return png;
}

}  // namespace

int WriteReport(const std::string& dir) {
  std::vector<UnreadableResult> unreadable;
  const int count = WriteReport(dir, unreadable);
  if (!unreadable.empty())
    throw InputError(unreadable.front().file + ": " + unreadable.front().reason);
  return count;
}

int WriteReport(const std::string& dir, std::vector<UnreadableResult>& unreadable) {
  const size_t unreadable_before = unreadable.size();
  const std::vector<ResultSummary> rows = ReadResultSummaries(dir, &unreadable);
  std::set<std::string> problems, machines;
  for (const auto& r : rows) {
    problems.insert(r.problem);
    machines.insert(r.cpu + ", " + std::to_string(r.cores) + " cores, " + r.compiler);
  }
  const bool gnuplot = HaveGnuplot();
  std::ostringstream md, html;
  md << "# mbbench report: " << dir << "\n\n" << rows.size() << " results. Measured on:\n\n";
  html << "<!doctype html><meta charset='utf-8'><title>mbbench report</title>"
       << "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
       << "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}</style>"
       << "<h1>mbbench report: " << dir << "</h1><p>" << rows.size()
       << " results. Measured on:<ul>";
  for (const auto& m : machines) {
    md << "- " << m << "\n";
    html << "<li>" << m;
  }
  html << "</ul>";
  md << "\nTimes are medians of repeats (`metrics.wall_time_s`); errors are max relative "
        "position errors against the problem's reference.\n";
  for (const auto& problem : problems) {
    md << "\n## " << problem << "\n\n"
       << "| method | settings | status | steps | wall [s] | s/step | error | scd | energy "
          "drift | constraint |\n|---|---|---|---|---|---|---|---|---|---|\n";
    html << "<h2>" << problem << "</h2><table><tr><th>method<th>settings<th>status<th>steps"
         << "<th>wall [s]<th>s/step<th>error<th>scd<th>energy drift<th>constraint</tr>";
    for (const auto& r : rows) {
      if (r.problem != problem) continue;
      const std::string cells[] = {r.method,
                                   Settings(r),
                                   r.status,
                                   std::to_string(r.steps),
                                   Num(r.wall_median),
                                   Num(r.time_per_step),
                                   Num(r.error_rel, "%.2e"),
                                   Num(r.scd, "%.1f"),
                                   Num(r.energy_rel_drift, "%.2e"),
                                   Num(r.position_residual, "%.2e")};
      md << "|";
      html << "<tr>";
      for (const auto& c : cells) {
        md << " " << c << " |";
        html << "<td>" << c;
      }
      md << "\n";
      html << "</tr>";
    }
    html << "</table>";
    const std::string png = gnuplot ? PlotWorkPrecision(dir, problem, rows) : "";
    if (!png.empty()) {
      md << "\n![" << problem << " work-precision](" << png << ")\n";
      html << "<p><img src='" << png << "' alt='" << problem << " work-precision'>";
    }
  }
  if (unreadable.size() > unreadable_before) {
    md << "\n## Unreadable files\n\n";
    html << "<h2>Unreadable files</h2><ul>";
    for (size_t i = unreadable_before; i < unreadable.size(); ++i) {
      md << "- " << unreadable[i].file << ": " << unreadable[i].reason << "\n";
      html << "<li>" << Escape(unreadable[i].file) << ": " << Escape(unreadable[i].reason)
           << "</li>";
    }
    html << "</ul>";
  }
  WriteFileAtomically(dir + "/report.md", md.str());
  WriteFileAtomically(dir + "/report.html", html.str());
  return static_cast<int>(rows.size());
}

}  // namespace mbb
