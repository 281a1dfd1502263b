# Sourced by the tests of an installed copy (`. tests/temp_install.sh BUILD_DIR`): a temporary
# directory $work, removed on exit, with BUILD_DIR installed into $work/prefix.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$1" --prefix "$work/prefix" >/dev/null
