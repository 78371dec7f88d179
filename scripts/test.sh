#!/usr/bin/env bash
# The project's test command (README): go vet and the race-enabled tests (with seed corpora) of
# every module, the apiserver's storage suite against our cache (the storagetest module, -short),
# and a short bounded run of each fuzz target. FUZZTIME=0 skips fuzzing; STORAGETEST=0 skips the
# storage suite; CTRLCACHE=0 skips the ctrlcache module.
#
# The modules: the root (the core, apistatus, kubeapi, source/kube, the suites) and those that need
# what a module embedding the core must not get: source/etcd (etcd's client; etcd's server in its
# tests), cmd/watchcache (source/etcd; etcd's server in its tests), ctrlcache (controller-runtime),
# bench and storagetest (k8s.io/apiserver, etcd's server), fake/crdcel (k8s.io/apiserver's CEL), promcollector (prometheus/client_golang),
# internal/embedcheck (a module importing
# only watchcache and source/kube; internal/depcheck asserts its `go list -m all`). Each is tested
# as its own go.mod resolves it (GOWORK=off), not through go.work, which merges every module's
# requirements.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOWORK=off
: >/tmp/watchcache-test.log
failed_steps=""
# module [-norace] DIR [PATTERN...]: go vet and go test -race of the packages of the module in DIR.
module() {
  local race=-race
  if [ "$1" = -norace ]; then race=""; shift; fi
  local dir=$1
  shift
  local pkgs=("${@:-./...}")
  echo "== $dir: go vet ${pkgs[*]}"
  if ! (cd "$dir" && go vet "${pkgs[@]}"); then failed_steps="$failed_steps $dir:vet"; fi
  echo "== $dir: go test $race ${pkgs[*]}"
  # controller-runtime's manager logs every informer start at INFO; the log keeps go test's lines.
  (cd "$dir" && go test $race -count=1 "${pkgs[@]}") 2>&1 | grep -v ' INFO kube: ' | tee -a /tmp/watchcache-test.log || true
}
module . ./... ./internal/testdata
module source/etcd
module cmd/watchcache
if [ "${CTRLCACHE:-1}" != "0" ]; then module ctrlcache; fi
module internal/embedcheck
# encryption reads values encrypted at rest through k8s.io/apiserver's transformers.
module encryption
# examples/operator: a controller-runtime operator over a CRD, tested against fake.Environment.
module examples/operator
# examples/kubectl: kubectl (its library, run as a child process) against `watchcache serve`;
# without -race, since the work is kubectl's and serve's, in processes of their own.
module -norace examples/kubectl
# promcollector exports caches' and sources' figures through prometheus/client_golang.
module promcollector
# fake/crdcel validates the fake's CRDs and custom resources with apiextensions-apiserver's own
# code (CEL rules, ratcheting), which imports k8s.io/apiserver.
module fake/crdcel
# bench's tests check that the peers it measures agree (ours, client-go's Indexer, etcd, the
# apiserver's cacher). Without -race for the reason given for storagetest below: the race build of
# k8s.io/apiserver adds minutes on 2 cores. 36 s of CPU (113 s on a shared, loaded machine).
module -norace bench

# storagetest is its own module (it depends on k8s.io/apiserver and etcd's server). Its suite runs
# without -race (the race build of k8s.io/apiserver would add minutes on 2 cores; `./run.sh -short
# -race` passes too) and with -short (the 5 cases that wait out TTLs, bookmarks and progress
# notifications are skipped). Measured on 2 shared cores: 100 s in this script from a cold build
# cache (the main module's steps before it have built most of its dependencies), 6.7 min alone from a
# cold cache (5.3 of them go vet compiling the dependencies), 40 s warm. run.sh judges the result:
# the suite's test binary fails by construction (etcd3, the apiserver's cache and ours each have
# recorded failures), so run.sh exits 0 iff every result of ours is the one
# storagetest/cmd/summarize/notes.go records. Full run: (cd storagetest && ./run.sh).
storagetest=${STORAGETEST:-1}
st_status=ok
: >/tmp/watchcache-storagetest.log
st_start=$(date +%s)
if [ "$storagetest" != "0" ]; then
  echo "== storagetest: go vet ./..."
  if (cd storagetest && go vet ./...) 2>&1 | tee /tmp/watchcache-storagetest.log; then
    echo "== storagetest: ./run.sh -short"
    (cd storagetest && ./run.sh -short) 2>&1 | tee -a /tmp/watchcache-storagetest.log || st_status="run.sh exit $?"
  else
    st_status="go vet failed"
  fi
fi
st_elapsed=$(( $(date +%s) - st_start ))

fuzztime=${FUZZTIME:-10s}
fuzz_failed=""
if [ "$fuzztime" != "0" ]; then
  echo "== fuzz targets, $fuzztime each"
  fuzz_log=$(mktemp)
  while read -r dir pkg; do
    for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
      echo "-- $pkg $target"
      ok=0
      for attempt in 1 2 3; do
        if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$fuzz_log" 2>&1; then
          ok=1
          break
        fi
        # Go 1.26's fuzzing coordinator can fail a target at the -fuzztime deadline with a bare
        # "context deadline exceeded" and no input (go.dev/issue/75804, fixed in Go 1.27), more
        # often on a loaded machine (twice in a row seen once): run such a target again, up to three
        # times in all. A failure that wrote a failing input is never retried.
        if [ "$attempt" -lt 3 ] && grep -q 'context deadline exceeded' "$fuzz_log" && ! grep -q 'Failing input written to' "$fuzz_log"; then
          echo "   (fuzzing engine stopped at its deadline without a failing input: go.dev/issue/75804; running again)"
          continue
        fi
        break
      done
      if [ "$ok" = 1 ]; then
        tail -2 "$fuzz_log"
      else
        # The whole failure: the failing input, where it was written, or why the engine stopped.
        grep -v '^fuzz: elapsed' "$fuzz_log" | tail -40
        fuzz_failed="$fuzz_failed $pkg.$target"
      fi
    done
  done < <(go list -f '{{.Dir}} {{.ImportPath}}' ./...)
  rm -f "$fuzz_log"
fi
echo "== summary"
grep -E '^(ok|FAIL|---|panic)' /tmp/watchcache-test.log | sed 's/^/  /'
failed=0
if grep -qE '^(FAIL|panic)' /tmp/watchcache-test.log; then failed=1; fi
if [ "$storagetest" != "0" ]; then
  if [ "$st_status" = ok ]; then
    echo "  ok  	storagetest	${st_elapsed}s (go vet, ./run.sh -short: every result of ours as recorded in cmd/summarize/notes.go)"
  else
    # run.sh exits 1 when a result of ours is not the recorded one, 2 when the suite did not run.
    echo "  FAIL	storagetest	${st_elapsed}s ($st_status)"
    failed=1
  fi
  grep -E '^(- |unexpected:|run.sh:)' /tmp/watchcache-storagetest.log | sed 's/^/    /' || true
fi
for step in $failed_steps; do
  echo "  FAIL	${step}"
  failed=1
done
for f in $fuzz_failed; do
  echo "  FAIL	fuzz ${f} (output above)"
  failed=1
done
if [ "$failed" = 1 ]; then echo "TESTS FAILED"; exit 1; fi
echo "ALL TESTS PASSED"
