#include "problems/core/format.h"

#include <cstdio>

namespace mbb {

std::string FormatNumber(double x, int significant) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, x);
  std::string s(buffer);
  // "1e-08" -> "1e-8", "1e+20" -> "1e20".
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  size_t digits = e + 1;
  std::string exponent;
  if (s[digits] == '-') exponent = "-";
  if (s[digits] == '+' || s[digits] == '-') ++digits;
  while (digits + 1 < s.size() && s[digits] == '0') ++digits;
  return s.substr(0, e + 1) + exponent + s.substr(digits);
}

std::string OneLine(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string FormatWith(const char* format, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, x);
  return buffer;
}

}  // namespace mbb
