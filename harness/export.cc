#include "harness/export.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <variant>

#include "harness/json_io.h"
#include "harness/report_analysis.h"

namespace mbb {

namespace {

using nlohmann::json;

// One cell: empty, a number or text.
using Value = std::variant<std::monostate, double, std::string>;
using Row = std::map<std::string, Value>;

Value Typed(const std::string& text) {
  if (LooksNumeric(text)) return std::strtod(text.c_str(), nullptr);
  return text;
}

Value Optional(const std::optional<double>& x) {
  if (!x) return std::monostate{};
  return *x;
}

// The columns of one result: fixed ones first in `order`, the rest sorted by name.
Row RowOf(const ResultSummary& r) {
  Row row;
  row["file"] = r.file;
  row["problem"] = r.problem;
  row["method"] = r.method;
  row["configuration"] = ConfigurationLabel(r);
  row["status"] = r.status;
  // Apart from numerical failures: a time or step limit (failure_class.h); null when ok.
  row["failure_class"] = r.failure_class.empty() ? Value(std::monostate{}) : Value(r.failure_class);
  row["h"] = Optional(r.h);
  row["rtol"] = Optional(r.rtol);
  row["atol"] = Optional(r.atol);
  row["t_end"] = r.t_end;
  for (const auto& [k, v] : r.problem_parameters) row["param." + k] = Typed(v);
  for (const auto& [k, v] : r.method_parameters) row["set." + k] = Typed(v);
  for (const auto& [k, v] : r.metrics) row["metrics." + k] = v;
  for (const auto& [k, v] : r.outputs) row["outputs." + k] = v;
  row["git_commit"] = r.git_commit;
  row["git_dirty"] = r.git_dirty ? "true" : "false";
  row["date"] = r.date;
  row["cpu"] = r.cpu;
  row["cores"] = static_cast<double>(r.cores);
  row["host"] = r.host;
  row["load_average_1min"] = Optional(r.load_average_1min);
  row["message"] = r.message;
  return row;
}

const std::vector<std::string> kFirst = {
    "file", "problem", "method", "configuration", "status",
    "h",    "rtol",    "atol",   "t_end",         "failure_class"};
const std::vector<std::string> kLast = {"git_commit", "git_dirty",         "date",   "cpu", "cores",
                                        "host",       "load_average_1min", "message"};

std::vector<std::string> Columns(const std::vector<Row>& rows) {
  std::set<std::string> middle;
  for (const auto& row : rows)
    for (const auto& [k, v] : row) middle.insert(k);
  for (const auto& k : kFirst) middle.erase(k);
  for (const auto& k : kLast) middle.erase(k);
  std::vector<std::string> columns = kFirst;
  columns.insert(columns.end(), middle.begin(), middle.end());
  columns.insert(columns.end(), kLast.begin(), kLast.end());
  return columns;
}

std::string CsvText(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string CsvCell(const Value& v) {
  if (std::holds_alternative<double>(v)) {
    const double x = std::get<double>(v);
    if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", x);
    return buffer;
  }
  if (std::holds_alternative<std::string>(v)) return CsvText(std::get<std::string>(v));
  return "";
}

std::vector<Row> Rows(const std::vector<ResultSummary>& results) {
  std::vector<Row> rows;
  for (const auto& r : results) rows.push_back(RowOf(r));
  return rows;
}

}  // namespace

std::string ResultsToCsv(const std::vector<ResultSummary>& results) {
  const std::vector<Row> rows = Rows(results);
  const std::vector<std::string> columns = Columns(rows);
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + CsvText(columns[c]);
  out += "\n";
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto it = row.find(columns[c]);
      out += (c ? "," : "") + (it == row.end() ? std::string() : CsvCell(it->second));
    }
    out += "\n";
  }
  return out;
}

std::string ResultsToJsonTable(const std::vector<ResultSummary>& results) {
  const std::vector<Row> rows = Rows(results);
  const std::vector<std::string> columns = Columns(rows);
  json table = json::array();
  for (const auto& row : rows) {
    json object = json::object();
    for (const auto& column : columns) {
      const auto it = row.find(column);
      if (it == row.end() || std::holds_alternative<std::monostate>(it->second))
        object[column] = nullptr;
      else if (std::holds_alternative<double>(it->second) &&
               std::isfinite(std::get<double>(it->second)))
        object[column] = std::get<double>(it->second);
      else if (std::holds_alternative<double>(it->second))
        object[column] = nullptr;  // JSON has no inf/nan
      else
        object[column] = std::get<std::string>(it->second);
    }
    table.push_back(object);
  }
  return table.dump(1) + "\n";
}

}  // namespace mbb
