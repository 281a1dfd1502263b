#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds examples/consumer against it with
# find_package(mbbench REQUIRED) in a temporary directory, and runs it.
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cp -r "$source_dir/examples/consumer" "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer"
