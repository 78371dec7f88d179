#!/usr/bin/env bash
# Records kube-apiserver 1.37.2's answers in protobuf and YAML (and JSON where they are compared):
# gets, lists with limit/continue, watches and watch-lists, error Statuses, writes, custom
# resources, Tables and metadata-only requests, for the Accept headers client-go and kubectl send.
# Written to kubeapi/testdata/encodings/recorded.jsonl.gz (one JSON object per answer, described in
# reference/observed-encodings.md). Run against a freshly started oracle:
#
#   export ORACLE_WORK=/root/oracle-proto
#   bash /work/shared/oracle/start.sh
#   bash reference/record-encodings.sh
#   bash /work/shared/oracle/stop.sh
#
# then, for the 410s (an RV the restarted apiserver's watch cache does not hold, compacted in etcd):
#
#   source $ORACLE_WORK/run/env; curl -s -X POST $ETCD_URL/v3/kv/compaction -d '{"revision":"100"}'
#   bash /work/shared/oracle/stop.sh; KEEP_DATA=1 bash /work/shared/oracle/start.sh
#   GONE=1 bash reference/record-encodings.sh      # kubeapi/testdata/encodings/gone.jsonl.gz
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
OW=${ORACLE_WORK:?set ORACLE_WORK to the oracle run directory}
# shellcheck disable=SC1091
source "$OW/run/env"
OUT=${OUT:-$ROOT/kubeapi/testdata/encodings}
mkdir -p "$OUT"
UA="kubectl/v1.37.2 (linux/amd64) kubernetes/record"
PB=application/vnd.kubernetes.protobuf
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LINES=$TMP/lines.jsonl
: >"$LINES"

# send METHOD PATH BODY [CONTENT-TYPE]: a write whose answer is not recorded; fails on an error.
send() {
  local code
  code=$(curl -sk -A "$UA" -o "$TMP/send" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $TOKEN" \
    -H "Content-Type: ${4:-application/json}" -d "$3" "$KAS_URL$2")
  if [ "$code" -ge 300 ]; then echo "$1 $2: $code $(cat "$TMP/send")" >&2; return 1; fi
}

# rec NAME METHOD PATH ACCEPT [BODY] [CONTENT-TYPE]: one answer, recorded with its status, the
# headers that matter and its body (text for JSON and YAML, base64 otherwise).
rec() {
  local name=$1 method=$2 path=$3 accept=$4 body=${5:-} ctype=${6:-application/json}
  local args=(-sk -A "$UA" -X "$method" -D "$TMP/hdr" -o "$TMP/body" -H "Authorization: Bearer $TOKEN")
  [ -n "$accept" ] && args+=(-H "Accept: $accept")
  [ -n "$body" ] && args+=(-H "Content-Type: $ctype" --data-binary "$body")
  curl "${args[@]}" "$KAS_URL$path" || true
  local status ct
  status=$(head -1 "$TMP/hdr" | awk '{print $2}')
  ct=$(grep -i '^content-type:' "$TMP/hdr" | sed 's/^[^:]*: //' | tr -d '\r' || true)
  local hdrs
  hdrs=$(grep -i -E '^(content-type|transfer-encoding|content-length|warning|retry-after|x-content-type-options):' "$TMP/hdr" |
    tr -d '\r' | jq -R -s -c 'split("\n")|map(select(.!=""))')
  case "$ct" in
  application/json* | application/yaml* | text/*)
    jq -n -c --arg name "$name" --arg method "$method" --arg path "$path" --arg accept "$accept" \
      --argjson status "$status" --argjson headers "$hdrs" --rawfile body "$TMP/body" \
      '{name:$name,method:$method,path:$path,accept:$accept,status:$status,headers:$headers,body:$body}' >>"$LINES"
    ;;
  *)
    base64 -w0 "$TMP/body" >"$TMP/b64"
    jq -n -c --arg name "$name" --arg method "$method" --arg path "$path" --arg accept "$accept" \
      --argjson status "$status" --argjson headers "$hdrs" --rawfile b64 "$TMP/b64" \
      '{name:$name,method:$method,path:$path,accept:$accept,status:$status,headers:$headers,base64:$b64}' >>"$LINES"
    ;;
  esac
  echo "$name: $status $ct $(wc -c <"$TMP/body") bytes"
}

if [ "${GONE:-0}" = 1 ]; then
  NS=/api/v1/namespaces/enc
  for acc in "$PB" application/yaml application/json; do
    tag=$(echo "$acc" | tr -c 'a-zA-Z0-9' '_')
    rec "gone-list-$tag" GET "$NS/configmaps?resourceVersion=2&resourceVersionMatch=Exact" "$acc"
    rec "gone-watch-$tag" GET "$NS/configmaps?watch=true&resourceVersion=2&timeoutSeconds=1" "$acc"
  done
  gzip -9 -n -c "$LINES" >"$OUT/gone.jsonl.gz"
  exit 0
fi

rv() { curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" "$KAS_URL$1" | jq -r .metadata.resourceVersion; }

NS=/api/v1/namespaces/enc
A=/apis/apps/v1/namespaces/enc
send POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"enc"}}'
send POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-enc","labels":{"zone":"a"}}}'
START=$(rv $NS/configmaps)
for i in 1 2 3; do
  send POST $NS/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-'$i'","labels":{"app":"enc","n":"'$i'"},"annotations":{"note":"line one\nline two"}},"data":{"key":"value '$i'","empty":"","number":"0042","yes":"true"},"binaryData":{"bin":"AAEC"}}'
done
send PUT $NS/configmaps/cm-3 '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-3","labels":{"app":"enc","n":"3"}},"data":{"key":"changed"}}'
send DELETE $NS/configmaps/cm-3 ''
for i in 1 2; do
  send POST $NS/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-'$i'","labels":{"app":"enc"}},"spec":{"nodeName":"node-enc","containers":[{"name":"c","image":"nginx:1.27","ports":[{"containerPort":8080}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"env":[{"name":"A","value":"1"}]}]}}'
done
send POST $A/deployments '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dep-1"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"dep"}},"template":{"metadata":{"labels":{"app":"dep"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}}'
send POST $A/deployments '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dep-2"},"spec":{"selector":{"matchLabels":{"app":"dep2"}},"template":{"metadata":{"labels":{"app":"dep2"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}'
send POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.enc.example.com"},"spec":{"group":"enc.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}'
sleep 3 # the CRD becomes established
W=/apis/enc.example.com/v1/namespaces/enc/widgets
send POST $W '{"apiVersion":"enc.example.com/v1","kind":"Widget","metadata":{"name":"w-1"},"spec":{"color":"red","size":3}}'
AFTER=$(rv $NS/configmaps)

MIXED_PB="$PB, */*"                                      # client-go with ContentType protobuf
MIXED_Q="application/json;q=0.5, $PB;q=0.9"               # protobuf preferred by q
MIXED_YQ="application/yaml;q=0.9, application/json;q=0.8" # YAML preferred by q
MIXED_JQ="$PB;q=0.5, application/json"                    # JSON preferred by q
TABLE='application/json;as=Table;v=v1;g=meta.k8s.io'

# --- gets
for acc in "$PB" application/yaml "$MIXED_PB" "$MIXED_Q" "$MIXED_YQ" "$MIXED_JQ" '*/*' 'application/*' "$PB;q=0" application/json; do
  tag=$(echo "$acc" | tr -c 'a-zA-Z0-9' '_')
  rec "get-configmap-$tag" GET $NS/configmaps/cm-1 "$acc"
done
rec get-pod-pb GET $NS/pods/pod-1 "$PB"
rec get-pod-yaml GET $NS/pods/pod-1 application/yaml
rec get-pod-json GET $NS/pods/pod-1 application/json
rec get-deployment-pb GET $A/deployments/dep-1 "$PB"
rec get-deployment-yaml GET $A/deployments/dep-1 application/yaml
rec get-deployment-json GET $A/deployments/dep-1 application/json
rec get-node-pb GET /api/v1/nodes/node-enc "$PB"
rec get-node-yaml GET /api/v1/nodes/node-enc application/yaml

# --- lists
for r in configmaps pods; do
  rec "list-$r-pb" GET "$NS/$r" "$PB"
  rec "list-$r-yaml" GET "$NS/$r" application/yaml
  rec "list-$r-json" GET "$NS/$r" application/json
  rec "list-$r-limit1-pb" GET "$NS/$r?limit=1" "$PB"
  rec "list-$r-limit1-yaml" GET "$NS/$r?limit=1" application/yaml
  rec "list-$r-limit1-json" GET "$NS/$r?limit=1" application/json
  CONT=$(curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" "$KAS_URL$NS/$r?limit=1" | jq -r .metadata.continue)
  rec "list-$r-continue-pb" GET "$NS/$r?limit=1&continue=$CONT" "$PB"
  rec "list-$r-continue-json" GET "$NS/$r?limit=1&continue=$CONT" application/json
done
rec list-deployments-pb GET $A/deployments "$PB"
rec list-deployments-yaml GET $A/deployments application/yaml
rec list-deployments-json GET $A/deployments application/json
rec list-deployments-limit1-pb GET "$A/deployments?limit=1" "$PB"
rec list-configmaps-empty-pb GET "$NS/configmaps?labelSelector=none%3Dnone" "$PB"
rec list-configmaps-empty-yaml GET "$NS/configmaps?labelSelector=none%3Dnone" application/yaml
rec list-nodes-pb GET "/api/v1/nodes?labelSelector=zone%3Da" "$PB"

# --- watches: replay from START (ADDED, MODIFIED, DELETED of the configmaps), a watch-list, YAML
rec watch-configmaps-pb GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" "$PB"
rec watch-configmaps-mixed GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" "$MIXED_PB"
rec watch-configmaps-json GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" application/json
rec watch-configmaps-yaml GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" application/yaml
rec watch-configmaps-yaml-json GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" "application/yaml, application/json;q=0.5"
rec watchlist-pods-pb GET "$NS/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1" "$PB"
rec watchlist-pods-json GET "$NS/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1" application/json
rec watchlist-deployments-pb GET "$A/deployments?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1" "$PB"
rec watchlist-nodes-pb GET "/api/v1/nodes?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1" "$PB"
rec watch-configmaps-gone-pb GET "$NS/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1" "$PB"
rec watch-configmaps-gone-json GET "$NS/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1" application/json
rec watch-named-pb GET "$NS/configmaps?watch=true&fieldSelector=metadata.name%3Dcm-1&resourceVersion=$START&timeoutSeconds=1" "$PB"

# --- errors
rec error-404-pb GET $NS/configmaps/missing "$PB"
rec error-404-yaml GET $NS/configmaps/missing application/yaml
rec error-404-json GET $NS/configmaps/missing application/json
rec error-404-mixed GET $NS/configmaps/missing "$MIXED_PB"
rec error-409-pb POST $NS/configmaps "$PB" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-1"}}'
rec error-409-yaml POST $NS/configmaps application/yaml '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-1"}}'
rec error-400-pb GET "$NS/configmaps?limit=abc" "$PB"
rec error-410-continue-pb GET "$NS/configmaps?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MiwiZXhwaXJlZCI6dHJ1ZSwic3RhcnQiOiJjbS0xXHUwMDAwIn0" "$PB"
rec error-xml-406 GET $NS/configmaps application/xml
rec error-xml-406-get GET $NS/configmaps/cm-1 application/xml

# --- writes with a protobuf or YAML Accept (JSON bodies)
rec create-configmap-pb POST $NS/configmaps "$PB" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-w"},"data":{"a":"1"}}'
rec update-configmap-pb PUT $NS/configmaps/cm-w "$PB" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-w"},"data":{"a":"2"}}'
rec patch-configmap-pb PATCH $NS/configmaps/cm-w "$PB" '{"data":{"b":"3"}}' application/merge-patch+json
rec patch-configmap-yaml PATCH $NS/configmaps/cm-w application/yaml '{"data":{"c":"4"}}' application/merge-patch+json
rec delete-configmap-pb DELETE $NS/configmaps/cm-w "$PB"
rec create-pod-yaml POST $NS/pods application/yaml '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-w"},"spec":{"nodeName":"node-enc","containers":[{"name":"c","image":"nginx"}]}}'
rec delete-pod-pb DELETE $NS/pods/pod-w "$PB"
rec create-xml-406 POST $NS/configmaps application/xml '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-xml"}}'
rec create-xml-406-after GET $NS/configmaps/cm-xml application/json

# --- custom resources
rec cr-get-pb GET $W/w-1 "$PB"
rec cr-get-yaml GET $W/w-1 application/yaml
rec cr-get-mixed GET $W/w-1 "$MIXED_PB"
rec cr-list-pb GET $W "$PB"
rec cr-list-yaml GET $W application/yaml
rec cr-list-json GET $W application/json
rec cr-watch-pb GET "$W?watch=true&resourceVersion=$START&timeoutSeconds=1" "$PB"
rec cr-watch-yaml GET "$W?watch=true&resourceVersion=$START&timeoutSeconds=1" application/yaml
rec cr-error-404-pb GET $W/missing "$PB"
rec cr-meta-get-pb GET $W/w-1 "$PB;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
rec cr-meta-list-pb GET $W "$PB;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
rec cr-table-yaml GET $W "application/yaml;as=Table;v=v1;g=meta.k8s.io"

# --- Tables and metadata only
rec table-pb GET $NS/configmaps "$PB;as=Table;v=v1;g=meta.k8s.io"
rec table-yaml GET $NS/configmaps "application/yaml;as=Table;v=v1;g=meta.k8s.io"
rec table-json GET $NS/configmaps "$TABLE"
rec table-get-yaml GET $NS/configmaps/cm-1 "application/yaml;as=Table;v=v1;g=meta.k8s.io"
rec table-pb-json GET $NS/configmaps "$PB;as=Table;v=v1;g=meta.k8s.io, $TABLE"
rec meta-get-pb GET $NS/pods/pod-1 "$PB;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
rec meta-get-yaml GET $NS/pods/pod-1 "application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
rec meta-list-pb GET "$NS/pods?limit=1" "$PB;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
rec meta-list-v1beta1-pb GET "$NS/pods" "$PB;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1"
rec meta-list-clientgo GET "$NS/pods" "$PB;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
rec meta-watch-pb GET "$NS/configmaps?watch=true&resourceVersion=$START&timeoutSeconds=1" "$PB;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
rec meta-watchlist-pb GET "$NS/pods?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1" "$PB;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

# --- discovery (for the record: the façade's discovery stays JSON)
rec discovery-api-pb GET /api/v1 "$PB"

gzip -9 -n -c "$LINES" >"$OUT/recorded.jsonl.gz"
echo "wrote $OUT/recorded.jsonl.gz ($(wc -l <"$LINES") answers, $(wc -c <"$OUT/recorded.jsonl.gz") bytes); START=$START AFTER=$AFTER"
