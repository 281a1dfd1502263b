// The one number formatter of the suite's messages (errors, run messages, warnings): a
// double in %g style with `significant` digits and a short exponent, so that 1e-8 reads
// "1e-8" and 0.001 reads "0.001" (std::to_string printed both as "0.000000" / "0.001000").
// Integers keep std::to_string.
#pragma once

#include <string>

namespace mbb {

/// x with `significant` significant digits (%g: fixed or exponent form, whichever is
/// shorter; no trailing zeros), the exponent without '+' or leading zeros ("2.5e-7", "1e12").
std::string FormatNumber(double x, int significant = 6);

/// x printed with a printf `format` of one double ("%.3g", "%8.2e"): the tables' cells.
std::string FormatWith(const char* format, double x);

/// `text` on one line, runs of whitespace (newlines, tabs, spaces) collapsed to one space and
/// trimmed: a library's multi-line message (SimTK exceptions, MuJoCo's compiler errors) for
/// a result's message and the tables that quote it.
std::string OneLine(const std::string& text);

}  // namespace mbb
