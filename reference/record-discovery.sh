#!/usr/bin/env bash
# Records kube-apiserver 1.37.2's aggregated discovery (apidiscovery.k8s.io) at /api and /apis:
# the answer to each Accept header clients send, the ETag and If-None-Match, the 406s, and the
# document after two CRDs are created and after they are deleted. Run against a freshly started
# oracle:
#
#   export ORACLE_WORK=/root/oracle-discovery; mkdir -p $ORACLE_WORK
#   ln -sfn /root/.cache/kube-oracle/bin $ORACLE_WORK/bin
#   bash /work/shared/oracle/start.sh
#   bash reference/record-discovery.sh
#   bash /work/shared/oracle/stop.sh
#
# Every answer goes to kubeapi/testdata/oracle/aggdisc-<name>.http: the status line, the headers
# that do not vary between runs (all but Date, Audit-Id and X-Kubernetes-Pf-*), a blank line, and
# the body exactly as received (a protobuf body as "base64:" and its base64). A body identical to an earlier file's is written as
# "=<that file>" instead, so the 30 KB document is stored once. The document with the CRDs is also
# copied to fake/testdata/discovery/aggdisc-apis-crds.json, which the fake is compared with (the
# documents without them are fake/testdata/discovery/aggregated-*.json, the fake's registry).
# Nothing is rewritten.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
OW=${ORACLE_WORK:?set ORACLE_WORK to the oracle run directory}
# shellcheck disable=SC1091
source "$OW/run/env"
OUT=${OUT:-$ROOT/kubeapi/testdata/oracle}
FAKE=${FAKE_OUT:-$ROOT/fake/testdata/discovery}
mkdir -p "$OUT" "$FAKE"

# The apiserver indents JSON for curl's user agent; a client-go user agent gets what clients get.
UA="kubectl/v1.37.2 (linux/amd64) kubernetes/record"
V2='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
V2B1='application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'
V3='application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'
NOPEER="$V2;profile=nopeer"
CLIENTGO="$V2,application/json"             # client-go v0.37.2 and kubectl v1.37.2 (discovery.AcceptV2 + AcceptV1)
OLDCLIENT="$V2,$V2B1,application/json"      # client-go v0.27 to v0.32
NOPEERGO="$NOPEER,$V2,application/json"     # client-go with NoPeerDiscovery

declare -A BODIES # sha256 of a body -> the first file that had it

# rec NAME PATH ACCEPT [HEADER...]: GET and save status, headers and body.
rec() {
  local name=$1 path=$2 accept=$3 hdr body sum file
  shift 3
  local extra=()
  for h in "$@"; do extra+=(-H "$h"); done
  hdr=$(mktemp) body=$(mktemp)
  curl -sk -A "$UA" -D "$hdr" -o "$body" -H "Authorization: Bearer $TOKEN" -H "Accept: $accept" "${extra[@]}" "$KAS_URL$path" || true
  file=aggdisc-$name.http
  {
    echo "GET $path"
    echo "Accept: $accept"
    for h in "$@"; do echo "$h"; done
    echo
    head -1 "$hdr" | tr -d '\r'
    sed 1d "$hdr" | tr -d '\r' | grep -v -i -E '^(date|audit-id|x-kubernetes-pf-[a-z-]*):' | grep -v '^$' | sort -f || true
    echo
    if [ -s "$body" ]; then
      sum=$(sha256sum "$body" | cut -d' ' -f1)
      if [ -n "${BODIES[$sum]:-}" ]; then
        echo "=${BODIES[$sum]}"
      elif grep -qi '^content-type: application/vnd.kubernetes.protobuf' "$hdr"; then
        BODIES[$sum]=$file
        echo "base64:$(base64 -w0 "$body")"
      else
        BODIES[$sum]=$file
        cat "$body"
      fi
    fi
  } >"$OUT/$file"
  cp "$body" "$OUT/.last-body"
  rm -f "$hdr" "$body"
  echo "$name: $(sed -n 4,5p "$OUT/$file" | grep HTTP || true)"
}
etag() { grep -i '^etag:' "$OUT/aggdisc-$1.http" | cut -d' ' -f2; }
send() {
  curl -sk -A "$UA" -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-binary "${3:-}" "$KAS_URL$2"
}

for p in api apis; do
  rec "$p-v2" "/$p" "$V2"
  rec "$p-clientgo" "/$p" "$CLIENTGO"
  rec "$p-oldclient" "/$p" "$OLDCLIENT"
  rec "$p-nopeer" "/$p" "$NOPEERGO"
  rec "$p-v2beta1-first" "/$p" "$V2B1,$V2,application/json"
  rec "$p-v2beta1-json" "/$p" "$V2B1,application/json"
  rec "$p-v2beta1-only" "/$p" "$V2B1"
  rec "$p-v3-only" "/$p" "$V3"
  rec "$p-v3-json" "/$p" "$V3,application/json"
  rec "$p-json-first" "/$p" "application/json,$V2"
  rec "$p-json-q" "/$p" "application/json;q=0.9,$V2"
  rec "$p-v2-q" "/$p" "$V2;q=0.5,application/json"
  rec "$p-v2-q0" "/$p" "$V2;q=0,application/json"
  rec "$p-yaml" "/$p" "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
  rec "$p-star" "/$p" "*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
  rec "$p-protobuf" "/$p" "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,$V2,application/json"
  rec "$p-legacy" "/$p" "application/json"
  rec "$p-none" "/$p" ""
  rec "$p-inm" "/$p" "$CLIENTGO" "If-None-Match: $(etag "$p-v2")"
  rec "$p-inm-other" "/$p" "$CLIENTGO" 'If-None-Match: "0123"'
  rec "$p-inm-unquoted" "/$p" "$CLIENTGO" "If-None-Match: $(etag "$p-v2" | tr -d '"')"
  rec "$p-inm-legacy" "/$p" "application/json" "If-None-Match: $(etag "$p-v2")"
done
# The paths below /apis are not aggregated: the aggregated type there is refused or skipped.
rec group-clientgo /apis/apps "$CLIENTGO"
rec group-v2 /apis/apps "$V2"
rec groupversion-v2 /apis/apps/v1 "$V2"
rec core-v2 /api/v1 "$V2"

# Two CRDs in one group (fake/testdata/discovery/crd-*.json): one namespaced with two served
# versions, status and scale, shortNames and categories; one cluster-scoped with status only,
# whose plural sorts first.
send POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "@$FAKE/crd-widgets.json" >/dev/null
send POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "@$FAKE/crd-gizmos.json" >/dev/null
# Wait until both are in the aggregated document (the discovery controller adds a CRD's group a
# moment after it is Established).
for _ in $(seq 1 50); do
  n=$(curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" -H "Accept: $V2" "$KAS_URL/apis" | jq '[.items[] | select(.metadata.name=="disc.example.com") | .versions[] | .resources[]] | length')
  [ "$n" = 3 ] && break
  sleep 0.2
done
rec apis-crds /apis "$CLIENTGO"
cp "$OUT/.last-body" "$FAKE/aggdisc-apis-crds.json"
rec apis-crds-inm-old /apis "$CLIENTGO" "If-None-Match: $(etag apis-v2)"
rec crd-group /apis/disc.example.com application/json
rec crd-v1 /apis/disc.example.com/v1 application/json
rec crd-v1beta1 /apis/disc.example.com/v1beta1 application/json
send DELETE /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.disc.example.com >/dev/null
send DELETE /apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.disc.example.com >/dev/null
for _ in $(seq 1 50); do
  n=$(curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" -H "Accept: $V2" "$KAS_URL/apis" | jq '[.items[] | select(.metadata.name=="disc.example.com")] | length')
  [ "$n" = 0 ] && break
  sleep 0.2
done
rec apis-crds-deleted /apis "$CLIENTGO"
rm -f "$OUT/.last-body"
