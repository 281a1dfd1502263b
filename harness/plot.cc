#include "harness/plot.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gnuplot-iostream.h>

namespace mbb {

namespace fs = std::filesystem;

namespace {

// A title inside a gnuplot single-quoted string.
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// The script, with every file named relative to the plot directory.
std::string Script(const PlotSpec& spec, const std::string& terminal, const std::string& output) {
  std::ostringstream gp;
  gp << "set terminal " << terminal << "\nset output " << Quoted(output) << "\n";
  if (spec.logx) gp << "set logscale x\nset format x '%.0e'\n";
  if (spec.logy) gp << "set logscale y\nset format y '%.0e'\n";
  gp << "set xlabel " << Quoted(spec.xlabel) << "\nset ylabel " << Quoted(spec.ylabel)
     << "\nset title " << Quoted(spec.title) << "\nset key below\nset grid\n";
  std::string plot;
  for (size_t i = 0; i < spec.lines.size(); ++i) {
    const PlotLine& line = spec.lines[i];
    const std::string data = Quoted(spec.name + ".dat");
    const std::string index = data + " index " + std::to_string(i);
    const std::string lt = std::to_string(i + 1);
    plot += plot.empty() ? "" : ", \\\n  ";
    if (line.guide) {
      plot += index + " using 1:2 with lines dt 2 lc rgb 'gray40' title " + Quoted(line.title);
      continue;
    }
    plot += index + " using 1:2 with " + (spec.points ? "linespoints" : "lines") + " lt " + lt +
            " title " + Quoted(line.title);
    if (!line.x_ranges.empty())
      plot += ", \\\n  " + index + " using 1:2:3:4 with xerrorbars lt " + lt + " notitle";
    if (!line.labels.empty())
      plot += ", \\\n  " + index + " using 1:2:5 with labels offset 0,0.8 font ',8' tc lt " + lt +
              " notitle";
  }
  gp << "plot " << plot << "\n";
  return gp.str();
}

}  // namespace

bool HaveGnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

bool DrawPlot(const std::string& dir, const PlotSpec& spec) {
  fs::create_directories(dir);
  {
    std::ofstream data(dir + "/" + spec.name + ".dat");
    data.precision(10);
    for (const auto& line : spec.lines) {
      data << "# " << line.title << "\n";
      // Columns: x, y, x low, x high (x when no range), label ("" when none).
      for (size_t k = 0; k < line.points.size(); ++k) {
        const auto [x, y] = line.points[k];
        const auto range = k < line.x_ranges.size() ? line.x_ranges[k] : std::pair{x, x};
        data << x << " " << y << " " << range.first << " " << range.second << " \""
             << (k < line.labels.size() ? line.labels[k] : "") << "\"\n";
      }
      data << "\n\n";
    }
  }
  const std::string png_script =
      Script(spec, "pngcairo size 900,640 noenhanced", spec.name + ".png");
  const std::string svg_script = Script(spec, "svg size 900,640 noenhanced", spec.name + ".svg");
  std::ofstream(dir + "/" + spec.name + ".gp") << png_script;
  std::ofstream(dir + "/" + spec.name + ".svg.gp") << svg_script;
  if (!HaveGnuplot()) return false;
  const std::string png = dir + "/" + spec.name + ".png";
  fs::remove(png);
  {
    // docs/toolchain.md trap 3: ignore SIGPIPE while gnuplot-iostream writes to the pipe, so a
    // gnuplot that dies cannot take the process with it; the PNG's existence is the check.
    const auto previous = std::signal(SIGPIPE, SIG_IGN);
    try {
      Gnuplot gp("cd '" + dir + "' && gnuplot >/dev/null 2>&1");
      gp << png_script << svg_script;
      gp.flush();
    } catch (const std::exception&) {
      // fall through: no PNG, the report says the plot is missing
    }
    std::signal(SIGPIPE, previous);
  }  // ~Gnuplot closes the pipe and waits for gnuplot to finish
  return fs::exists(png);
}

}  // namespace mbb
