#!/usr/bin/env bash
# Runs the kube-apiserver's storage test suite (k8s.io/apiserver/pkg/storage/testing) against the
# apiserver's etcd3 store, the apiserver's watch cache and ours (adapter.Store), each on its own
# embedded etcd, and prints the results table.
#
#   ./run.sh            full run (40-60 s on 2 cores once built; building from a cold cache: 4-6 min more)
#   ./run.sh -short     skips the 5 cases that wait out TTLs, bookmarks, progress notifications (~35 s);
#                       what CI runs (scripts/test.sh)
#   ./run.sh -race      under the race detector (~60 s once built)
#   UPDATE=1 ./run.sh   also rewrites the tables in RESULTS.md and ../README.md (use a full run)
#   KEEP=out.json ./run.sh   keeps the go test -json output
#   STORAGETEST_PARALLEL=n ./run.sh   cases run at once (default 6)
#
# Exit status: 0 when every result of ours is the expected one (notes in cmd/summarize/notes.go),
# 1 when ours has an unexpected failure or an expected failure now passes, 2 when the run broke.
set -uo pipefail
cd "$(dirname "$0")"

out=${KEEP:-$(mktemp -t storagetest.XXXXXX.json)}
start=$(date +%s)
# The suite's expected failures make go test exit 1; the summary decides. -parallel: the cases
# mostly wait (timeouts, TTLs, watch deliveries), so more of them than cores run at once
# (STORAGETEST_PARALLEL, default 6; a later -parallel among the arguments wins).
go test -json -count=1 -timeout 15m -parallel "${STORAGETEST_PARALLEL:-6}" "$@" . >"$out" 2>&1
elapsed=$(( $(date +%s) - start ))

if ! grep -q '"Test":"TestStorage/' "$out"; then
	echo "run.sh: the suite did not run; go test said:" >&2
	grep -v '^{' "$out" | head -50 >&2
	exit 2
fi

update=()
[[ "${UPDATE:-}" == 1 ]] && update=(-update RESULTS.md -readme ../README.md)
go run ./cmd/summarize "${update[@]}" "$out"
status=$?
echo "- run.sh: ${elapsed}s including the build"
[[ -z "${KEEP:-}" ]] && rm -f "$out"
exit $status
