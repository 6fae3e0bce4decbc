#!/bin/sh
# bench/testcpu.sh: go test's -exec wrapper for bench/loop.sh. It runs a test binary as go
# test would, and appends a line to $LOOP_TESTCPU: the package's directory (go test runs
# each binary in its package's directory), its wall seconds and its CPU seconds (user +
# system, its child processes included). go test -json gives each package's wall time
# only; under load, wall says little, CPU says what the package costs.
log="${LOOP_TESTCPU:?bench/testcpu.sh: set LOOP_TESTCPU to the file to append to}"
exec /usr/bin/time -a -o "$log" -f "$PWD %e %U %S" "$@"
