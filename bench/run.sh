#!/bin/sh
# run.sh runs the comparison with the peers (client-go, etcd, the apiserver cacher) and writes ../BENCHMARKS.md.
#
#   bench/run.sh                      10k and 100k pods, 5 runs each (≈ 8–10 minutes on 2 cores)
#   BENCH_SIZES=10k,100k,1m run.sh    add 1M pods (≈ 25 GiB of RAM and much longer)
#   BENCH_COUNT=6 BENCH_TIME=300ms    more runs / longer runs per benchmark
#   REPORT_ONLY=1 run.sh              rewrite BENCHMARKS.md from the last run's results/ (e.g. after
#                                     editing NOTES.md or cmd/report)
#   APPENDICES_ONLY=1 run.sh          rewrite only the sections after the peers' comparison from
#                                     CORE.md, ../ctrlcache/BENCHMARKS.md and ../fake/BENCHMARKS.md
#
# Each (size, peer family) runs in a process of its own — ours, client-go, etcd, cacher — so one
# peer's heap does not slow another's garbage collection, and a process builds only the fixtures
# its peer needs. Memory is measured last, in a process of its own.
set -eu
cd "$(dirname "$0")"
SIZES="${BENCH_SIZES:-10k,100k}"
COUNT="${BENCH_COUNT:-5}"
BENCHTIME="${BENCH_TIME:-100ms}"
RES=results
READS='Ingest|IndexedPage|IndexedLabelPage|HeadPage|LabelPage|LabelList|FullList'
MUTATING='ContinuePage|WatchDispatch'
start=$(date +%s)

report() {
	go run ./cmd/report -csv "$RES/benchstat.csv" -text "$RES/benchstat.txt" \
		-machine "$(cat "$RES/machine.txt")" -cmd "$(cat "$RES/command.txt")" -notes NOTES.md >../BENCHMARKS.md
	appendices >>../BENCHMARKS.md
}
# appendices writes the sections measured outside this script, each kept in a file of its own.
appendices() {
	# The core's own hot paths, measured by scripts/bench-core.sh and kept in CORE.md.
	cat CORE.md
	# The controller caches (ctrlcache vs controller-runtime), measured by ctrlcache's benchmarks.
	cat ../ctrlcache/BENCHMARKS.md
	# The writable fake beside kube-apiserver + etcd, measured by fake's benchmarks.
	cat ../fake/BENCHMARKS.md
}
if [ -n "${APPENDICES_ONLY:-}" ]; then
	# Keeps the peers' comparison as the last run wrote it and rewrites what follows it.
	head="$(sed '/^## The core.s hot paths/,$d' ../BENCHMARKS.md)"
	{ printf '%s\n' "$head"; appendices; } >../BENCHMARKS.md.new
	mv ../BENCHMARKS.md.new ../BENCHMARKS.md
	echo "== rewrote BENCHMARKS.md's appendices from CORE.md, ctrlcache/ and fake/"
	exit 0
fi
if [ -n "${REPORT_ONLY:-}" ]; then
	report
	echo "== rewrote BENCHMARKS.md from $RES/"
	exit 0
fi

mkdir -p "$RES"
rm -f "$RES"/raw.txt "$RES"/benchstat.txt "$RES"/benchstat.csv

go vet ./...
go test -c -o "$RES/bench.test" .
echo "== correctness: every peer returns the same items"
"$RES/bench.test" -test.run . -test.count 1

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# bench <size> <workloads> <peer prefix>
bench() {
	echo "== n=$1 $2 peer=$3* ($(($(date +%s) - start))s)"
	BENCH_VERBOSE=1 BENCH_SIZES=$1 "$RES/bench.test" -test.run '^$' -test.bench "^Benchmark($2)\$/^n=$1\$/^peer=$3" \
		-test.count "$COUNT" -test.benchtime "$BENCHTIME" -test.timeout 60m | tee -a "$RES/raw.txt"
}
for size in $(echo "$SIZES" | tr ',' ' '); do
	# ours: the mutating workloads hold a cache of their own and 20,000 snapshots; in a process of
	# their own they do not make every forced GC of the read benchmarks slower.
	bench "$size" "$READS" ours
	bench "$size" "$MUTATING" ours
	for fam in client-go etcd cacher; do
		bench "$size" "$READS|$MUTATING" "$fam"
	done
done
echo "== memory ($(($(date +%s) - start))s)"
BENCH_SIZES=$SIZES "$RES/bench.test" -test.run '^$' -test.bench '^BenchmarkMemory$' \
	-test.count "$COUNT" -test.benchtime 1x -test.timeout 60m | tee -a "$RES/raw.txt"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

go tool benchstat "$RES/raw.txt" >"$RES/benchstat.txt"
go tool benchstat -format csv "$RES/raw.txt" >"$RES/benchstat.csv" 2>/dev/null
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
machine="$cpu, $(nproc) cores, $(go version | cut -d' ' -f3-), $(uname -sr); load average $load_before at start, $load_after at end (the cores are shared: other work ran alongside)"
tree="$(git -C .. rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty=$(git -C .. status --porcelain -- watchcache index selection rvclock 2>/dev/null | wc -l)
[ "$dirty" -gt 0 ] && tree="$tree + uncommitted changes in $dirty core files"
machine="$machine; tree $tree"
elapsed=$(($(date +%s) - start))
echo "$machine" >"$RES/machine.txt"
echo "bench/run.sh (BENCH_SIZES=$SIZES BENCH_COUNT=$COUNT BENCH_TIME=$BENCHTIME; ${elapsed}s)" >"$RES/command.txt"
report
echo "== wrote BENCHMARKS.md in ${elapsed}s"
