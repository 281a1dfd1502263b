#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds examples/consumer against it with
# find_package(mbbench REQUIRED) in a temporary directory, and runs it.
set -euo pipefail
build_dir=$1
source_dir=$2
# A sanitized build (MBBENCH_SANITIZE) installs instrumented libraries: the consumer links
# the sanitizer runtimes too (third argument: extra linker flags).
link_flags=${3:-}
. "$(dirname "$0")/temp_install.sh" "$build_dir"  # $work, this build in $work/prefix
cp -r "$source_dir/examples/consumer" "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXE_LINKER_FLAGS="$link_flags" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer"
