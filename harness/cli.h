// The mbbench command line (docs/design.md "CLI"): list, run, stability, sweep.
// Exit codes: 0 ok, 1 a run failed or was unstable, 2 bad usage or bad input.
#pragma once

#include <string>
#include <vector>

namespace mbb {

int RunCli(const std::vector<std::string>& args);

/// The whole CLI from a program's own main: argv[0] is the program, the rest its arguments.
/// A consumer with its own methods calls RegisterMethods (methods/method.h) first; they are
/// then listed, run, swept and reported beside the built-in ones.
inline int RunCli(int argc, char** argv) {
  return RunCli(std::vector<std::string>(argv + 1, argv + argc));
}

}  // namespace mbb
