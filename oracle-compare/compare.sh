#!/usr/bin/env bash
# Side-by-side comparison of watchcache serve --etcd-endpoints with a real kube-apiserver 1.37.2 on
# the same etcd (the oracle of /work/shared/oracle), and list latency of both.
#
#   bash oracle-compare/compare.sh all        # every step below, in order (~10 min)
#   bash oracle-compare/compare.sh <step>...  # start load ours main snapshot grow main20k latency afterwrite expired late kubectl stop
#
# Steps:
#   start     build ours + the comparator; start the oracle storing JSON, compacting every 2 min
#   load      2,000 pods over ns-0..ns-9 and node-0..node-99 (bin/load create), 100 Node objects
#   ours      start watchcache serve --etcd-endpoints $ETCD_URL next to the apiserver
#   main      read-only cases (pagination, RV semantics, selectors, errors, 504s) -> out/main.md
#   snapshot  writes through the apiserver, then lists at the RV before them -> out/snapshot.md
#   grow      18,000 more pods (20,000 in all)
#   main20k   the read-only cases again at 20,000 pods -> out/main20k.md
#   latency   medians of 20 requests per case, both servers -> out/latency.md
#   afterwrite  ours' consistent node-7 page right after a write to a resource it does not watch
#             (a Lease, through the apiserver), 40 times back to back and 40 times 150 ms apart
#             -> out/afterwrite.md
#   expired   wait until etcd compacted the main phase's RV, then old tokens/RVs -> out/expired.md
#   late      the read-only cases once more, after compaction (the apiserver's cache then sends
#             exact-RV and continue pages of a quiet resource to etcd) -> out/main-late.md
#   kubectl   kubectl (the oracle's) against both: api-resources, get of every resource ours
#             serves (-A where namespaced) and -o wide, -o yaml of five objects, explain; diffed
#             with ages masked and column padding folded -> out/kubectl.md, outputs in out/kubectl/
#   stop      stop ours and the oracle
#
# Needs: the oracle built (bash /work/shared/oracle/build.sh etcd kas load; kubectl), go, curl.
# Files: out/ (ignored by nothing: delete it freely), out/raw.jsonl holds every answer compared.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
ORACLE=${ORACLE:-/work/shared/oracle}
OW=${ORACLE_WORK:-$HOME/.cache/kube-oracle}
OUT=$HERE/out
mkdir -p "$OUT"
CMP="$OUT/oracle-compare"

env_() {
  # shellcheck disable=SC1091
  source "$OW/run/env"
  export KAS_URL TOKEN ETCD_URL KUBECONFIG
  [ -f "$OUT/ours.url" ] && OURS_URL=$(cat "$OUT/ours.url") && export OURS_URL
  return 0
}

step_start() {
  (cd "$ROOT" && go build -o "$OUT/watchcache" ./cmd/watchcache && go build -o "$CMP" ./oracle-compare)
  rm -f "$OUT/state.json" "$OUT/raw.jsonl"
  KAS_EXTRA_ARGS="--storage-media-type=application/json" COMPACTION_INTERVAL=${COMPACTION_INTERVAL:-2m} bash "$ORACLE/start.sh" >"$OUT/oracle-start.log"
  tail -1 "$OUT/oracle-start.log" >/dev/null
  date +%s >"$OUT/oracle-started-at"
  env_
  echo "oracle: $KAS_URL (etcd $ETCD_URL)"
}

step_load() {
  env_
  "$OW/bin/load" create -kubeconfig "$KUBECONFIG" -pods 2000 -namespaces 10 -nodes 100 -workers 32
  # Node objects node-0..node-99 (load only sets spec.nodeName): zone=z0..z2, every 10th unschedulable.
  local items=() i
  for i in $(seq 0 99); do
    items+=("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-$i\",\"labels\":{\"zone\":\"z$((i % 3))\"}},\"spec\":{\"unschedulable\":$([ $((i % 10)) = 0 ] && echo true || echo false)}}")
  done
  (IFS=,; echo "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[${items[*]}]}") >"$OUT/nodes.json"
  "$OW/bin/kubectl" --kubeconfig "$KUBECONFIG" create -f "$OUT/nodes.json" | tail -1
}

step_ours() {
  env_
  "$OUT/watchcache" serve --listen 127.0.0.1:0 --etcd-endpoints "$ETCD_URL" >"$OUT/ours.out" 2>"$OUT/ours.log" &
  echo $! >"$OUT/ours.pid"
  for _ in $(seq 1 300); do
    if [ -s "$OUT/ours.out" ]; then break; fi
    kill -0 "$(cat "$OUT/ours.pid")" || { cat "$OUT/ours.log" >&2; exit 1; }
    sleep 0.1
  done
  head -1 "$OUT/ours.out" >"$OUT/ours.url"
  echo "ours: $(cat "$OUT/ours.url") (pid $(cat "$OUT/ours.pid"))"
  grep -E 'loaded|ready' "$OUT/ours.log" || true
  # A kubeconfig for client-go tools (bin/load bench) pointing at ours.
  cat >"$OUT/ours.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: ours, cluster: {server: "$(cat "$OUT/ours.url")"}}]
users: [{name: anon, user: {}}]
contexts: [{name: ours, context: {cluster: ours, user: anon}}]
current-context: ours
KC
}

compare_phase() { # phase file
  env_
  "$CMP" compare -phase "$1" -state "$OUT/state.json" -raw "$OUT/raw.jsonl" | tee "$OUT/$2"
}

step_main() { compare_phase main main.md; }
step_snapshot() { compare_phase snapshot snapshot.md; }
step_main20k() { compare_phase main20k main20k.md; }
step_late() { compare_phase main-late main-late.md; }

step_grow() {
  env_
  "$OW/bin/load" create -kubeconfig "$KUBECONFIG" -start 2000 -pods 18000 -namespaces 10 -nodes 100 -workers 48
}

step_latency() {
  env_
  {
    echo "### Latency: apiserver over HTTP/2 + TLS (as client-go), ours over HTTP/1.1"
    echo
    "$CMP" latency -n 20
    echo
    echo "### Latency: apiserver over HTTP/1.1 + TLS, ours over HTTP/1.1"
    echo
    "$CMP" latency -n 20 -kas-http1
    echo
    echo "### bin/load bench (client-go RESTClient DoRaw, -n 20): apiserver"
    echo
    "$OW/bin/load" bench -kubeconfig "$KUBECONFIG" -n 20
    echo
    echo "### bin/load bench (client-go RESTClient DoRaw, -n 20): ours"
    echo
    "$OW/bin/load" bench -kubeconfig "$OUT/ours.kubeconfig" -n 20
  } | tee "$OUT/latency.md"
}

# A consistent read of ours after a write to another resource waits until a progress notification
# brings the pods cache to etcd's revision (rule 3.3): this measures that wait, which the latency step
# (a quiet etcd) does not see.
step_afterwrite() {
  env_
  local lease="$KAS_URL/apis/coordination.k8s.io/v1/namespaces/default/leases" pause i
  local q='api/v1/pods?limit=500&fieldSelector=spec.nodeName%3Dnode-7'
  curl -sk -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X POST \
    -d '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"oracle-compare"},"spec":{"holderIdentity":"0"}}' "$lease"
  {
    echo "| ours, spec.nodeName=node-7, RV unset, after a Lease write | median | p90 | max |"
    echo "|---|---|---|---|"
    for pause in 0 0.15; do
      for i in $(seq 1 40); do
        curl -sk -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/merge-patch+json' -X PATCH \
          -d "{\"spec\":{\"holderIdentity\":\"$i\"}}" "$lease/oracle-compare"
        curl -s -o /dev/null -w '%{time_total}\n' "$OURS_URL/$q"
        sleep "$pause"
      done | sort -n | awk -v p="$pause" '{a[NR] = $1 * 1000}
        END {printf "| %s | %.2f ms | %.2f ms | %.2f ms |\n", (p == 0 ? "back to back" : p * 1000 " ms apart"), a[int(NR / 2) + 1], a[int(NR * 0.9)], a[NR]}'
    done
  } | tee "$OUT/afterwrite.md"
}

step_expired() {
  env_
  local r tok
  r=$(jq -r .main.R "$OUT/state.json")
  tok=$(jq -r .main.TOK "$OUT/state.json")
  echo "waiting until the apiserver has compacted revision $r (COMPACTION_INTERVAL, then its cache's compactor)..."
  for i in $(seq 1 120); do
    code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$KAS_URL/api/v1/pods?limit=3&continue=$tok")
    [ "$code" = 410 ] && { echo "410 after ${i}x5s"; break; }
    sleep 5
  done
  compare_phase expired expired.md
}

# unpadded prints kubectl's output with its ages ("5m3s", "2d") replaced by AGE and runs of
# spaces folded, so that outputs taken a second apart, whose ages and column widths differ, compare.
unpadded() {
  sed -E 's/[[:space:]]+/ /g; s/ $//' "$1" |
    sed -E 's/(^| )[0-9]+[smhdy]([0-9]+[smhdy])?( |$)/\1AGE\3/g; s/(^| )[0-9]+[smhdy]([0-9]+[smhdy])?( |$)/\1AGE\3/g'
}

step_kubectl() {
  env_
  local K="$OW/bin/kubectl" D="$OUT/kubectl" r A n same=0 diffs=() o
  rm -rf "$D" && mkdir -p "$D"
  kas() { "$K" --kubeconfig "$KUBECONFIG" "$@"; }
  ours() { "$K" --server "$OURS_URL" --cache-dir "$D/cache" "$@"; }
  # check NAME ARGS...: the same kubectl command against both; compares unpadded outputs.
  check() {
    n=$1; shift
    kas "$@" >"$D/kas-$n.txt" 2>&1 || true
    ours "$@" >"$D/ours-$n.txt" 2>&1 || true
    if diff <(unpadded "$D/kas-$n.txt") <(unpadded "$D/ours-$n.txt") >"$D/diff-$n.txt"; then
      same=$((same + 1)); rm -f "$D/diff-$n.txt"
    else
      diffs+=("$n")
    fi
  }
  check api-resources api-resources
  ours api-resources --verbs=list -o name >"$D/resources.txt"
  ours api-resources --verbs=list --namespaced=true -o name >"$D/namespaced.txt"
  while read -r r; do
    A=(); grep -qx "$r" "$D/namespaced.txt" && A=(-A)
    check "get-$r" get "$r" "${A[@]}"
    check "wide-$r" get "$r" "${A[@]}" -o wide
  done <"$D/resources.txt"
  for o in "pod -n ns-3 pod-000003" "node node-7" "namespace ns-3" "service -n default kubernetes" "flowschema exempt"; do
    # shellcheck disable=SC2086
    check "yaml-${o// /_}" get $o -o yaml
  done
  for o in pod.spec pod.spec.containers.resources deployment.spec.strategy configmap; do check "explain-$o" explain "$o"; done
  {
    echo "kubectl $("$K" version --client -o json | jq -r .clientVersion.gitVersion) against kube-apiserver ($KAS_URL) and ours ($OURS_URL), $(date -u +%FT%TZ):"
    echo "$((same + ${#diffs[@]})) commands over $(wc -l <"$D/resources.txt") served resources: $same the same output (ages masked, padding folded), ${#diffs[@]} different${diffs[*]:+: ${diffs[*]}}"
    for n in "${diffs[@]}"; do echo; echo "### $n"; echo '```'; head -20 "$D/diff-$n.txt"; echo '```'; done
  } | tee "$OUT/kubectl.md"
}

step_stop() {
  if [ -f "$OUT/ours.pid" ]; then kill "$(cat "$OUT/ours.pid")" 2>/dev/null || true; rm -f "$OUT/ours.pid"; fi
  bash "$ORACLE/stop.sh" || true
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && { sed -n '2,20p' "$0"; exit 2; }
[ "${steps[0]}" = all ] && steps=(start load ours main snapshot grow main20k latency afterwrite expired late stop)
for s in "${steps[@]}"; do
  echo "=== $s"
  "step_$s"
done
