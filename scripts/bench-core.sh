#!/usr/bin/env bash
# Benchmarks of the core's hot paths on 100k generated pods, medians of COUNT runs.
# Usage: scripts/bench-core.sh [COUNT]   (default 5; about 6 minutes on 2 cores)
# Prints a benchstat table; BENCHMARKS.md quotes it.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
out=$(mktemp -d)
go test -c -o "$out/wc.test" ./watchcache
run() { # name benchtime
  "$out/wc.test" -test.run '^$' -test.bench "$1" -test.benchtime "$2" -test.count "$count" -test.benchmem -test.timeout 60m
}
{
  run '^(BenchmarkApply|BenchmarkApplyUnindexed|BenchmarkListPage|BenchmarkListContinueOld|BenchmarkListContinueOldDecoded|BenchmarkIndexedPage|BenchmarkIndexedFieldAndLabel|BenchmarkIndexedContinueOld|BenchmarkIndexedContinueOldDecoded|BenchmarkUnindexedLabelPage)$' 1s
  run '^(BenchmarkListFull|BenchmarkUnindexedLabelFull|BenchmarkReplace100k)$' 5x
  run '^BenchmarkApplyWatchers$' 5000x
  run '^BenchmarkExactUnpublished$' 100x
  run '^BenchmarkWatchLatency$' 20000x
  run '^(BenchmarkHeapPerObject|BenchmarkWatcherMemory)$' 1x
} | tee "$out/core.txt"
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out/core.txt"
