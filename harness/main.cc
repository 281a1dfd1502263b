#include <string>
#include <vector>

#include "harness/cli.h"

int main(int argc, char** argv) {
  return mbb::RunCli(std::vector<std::string>(argv + 1, argv + argc));
}
