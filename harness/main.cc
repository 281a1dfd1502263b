#include "harness/cli.h"

int main(int argc, char** argv) { return mbb::RunCli(argc, argv); }
