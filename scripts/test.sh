#!/usr/bin/env bash
# The project's test command (README): vet, the race-enabled test suite with seed corpora, and a
# short bounded run of each fuzz target. FUZZTIME=0 skips fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== go vet ./..."
go vet ./... ./internal/testdata
echo "== go test -race ./..."
go test -race -count=1 ./... ./internal/testdata 2>&1 | tee /tmp/watchcache-test.log
fuzztime=${FUZZTIME:-10s}
if [ "$fuzztime" != "0" ]; then
  echo "== fuzz targets, $fuzztime each"
  go list -f '{{.Dir}} {{.ImportPath}}' ./... | while read -r dir pkg; do
    for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
      echo "-- $pkg $target"
      go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tail -2
    done
  done
fi
echo "== summary"
grep -E '^(ok|FAIL|---|panic)' /tmp/watchcache-test.log | sed 's/^/  /'
if grep -qE '^(FAIL|panic)' /tmp/watchcache-test.log; then echo "TESTS FAILED"; exit 1; fi
echo "ALL TESTS PASSED"
