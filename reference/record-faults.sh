#!/usr/bin/env bash
# Records the answers of reference/observed-faults.md from the oracle (../shared/oracle).
# Usage: ORACLE_WORK=... bash reference/record-faults.sh compaction|inflight  > out.txt
# compaction: start the oracle with COMPACTION_INTERVAL=10s (and WATCH_CACHE=false for the etcd path).
# inflight:   start it with KAS_EXTRA_ARGS="--enable-priority-and-fairness=false --max-requests-inflight=1".
set -euo pipefail
source "$ORACLE_WORK/run/env"
c() { curl -sk --http1.1 -A record-faults -D - -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json' "$@" | grep -iv '^\(audit-id\|date\|x-kubernetes-pf\)'; echo; }
ns=${NS:-faults}
case "$1" in
compaction)
  c -X POST -H 'Content-Type: application/json' "$KAS_URL/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null
  for i in 1 2 3 4 5; do
    c -X POST -H 'Content-Type: application/json' "$KAS_URL/api/v1/namespaces/$ns/configmaps" -d "{\"metadata\":{\"name\":\"cm-$i\"}}" >/dev/null
  done
  page=$(curl -sk -H "Authorization: Bearer $TOKEN" "$KAS_URL/api/v1/namespaces/$ns/configmaps?limit=2")
  tok=$(jq -r .metadata.continue <<<"$page"); rv=$(jq -r .metadata.resourceVersion <<<"$page")
  echo "### page 1: rv=$rv continue=$tok ($(base64 -d <<<"$tok==" 2>/dev/null || true))"
  # Writes after the page, then two compaction intervals: the apiserver compacts to the revision it saw
  # one interval earlier.
  for i in 6 7 8; do
    c -X POST -H 'Content-Type: application/json' "$KAS_URL/api/v1/namespaces/$ns/configmaps" -d "{\"metadata\":{\"name\":\"cm-$i\"}}" >/dev/null
    sleep 12
  done
  sleep 12
  echo "### continue with the old token"
  c "$KAS_URL/api/v1/namespaces/$ns/configmaps?limit=2&continue=$tok"
  echo "### watch from the page's rv"
  c "$KAS_URL/api/v1/namespaces/$ns/configmaps?watch=1&resourceVersion=$rv&timeoutSeconds=2"
  echo "### list at the page's rv, Exact"
  c "$KAS_URL/api/v1/namespaces/$ns/configmaps?resourceVersion=$rv&resourceVersionMatch=Exact"
  echo "### get at the page's rv"
  c "$KAS_URL/api/v1/namespaces/$ns/configmaps/cm-1?resourceVersion=$rv"
  ;;
inflight)
  # system:masters is exempt from the in-flight limit, so these go as plain-user (token plain-token, added
  # with --token-auth-file=<a copy of run/tokens.csv with the line plain-token,plain-user,plain-uid,"plain">).
  # A list at a resourceVersion the server has not reached holds the one slot for ~3 s (then 504).
  curl -sk --http1.1 -o /dev/null -H "Authorization: Bearer plain-token" "$KAS_URL/api/v1/namespaces/default/configmaps?resourceVersion=999999999" &
  sleep 0.5
  curl -sk --http1.1 -A record-faults -D - -H "Authorization: Bearer plain-token" "$KAS_URL/api/v1/namespaces/default/configmaps" \
    -o /tmp/faults-inflight.body | grep -iv '^\(audit-id\|date\|x-kubernetes-pf\)'
  od -c /tmp/faults-inflight.body
  rm -f /tmp/faults-inflight.body
  wait
  ;;
esac
