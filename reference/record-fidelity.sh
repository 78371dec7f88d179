#!/usr/bin/env bash
# Records kube-apiserver 1.37.2's exact bodies for the objects of a small cluster, as the golden
# files the façade is compared with (kubeapi/testdata/oracle/) and the OpenAPI documents it serves
# (kubeapi/openapi/). Run against a freshly started oracle storing JSON:
#
#   export ORACLE_WORK=/work/oracle-fidelity; mkdir -p $ORACLE_WORK
#   ln -sfn /root/.cache/kube-oracle/bin $ORACLE_WORK/bin
#   KAS_EXTRA_ARGS="--storage-media-type=application/json" bash /work/shared/oracle/start.sh
#   bash reference/record-fidelity.sh
#   bash /work/shared/oracle/stop.sh
#
# Every answer goes to kubeapi/testdata/oracle/<name>.http: the status line, the Content-Type, a
# blank line, the body exactly as received. Raw etcd values go to <name>.etcd (the value, then the
# mod revision on the last line). Nothing is rewritten.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
OW=${ORACLE_WORK:?set ORACLE_WORK to the oracle run directory}
# shellcheck disable=SC1091
source "$OW/run/env"
OUT=${OUT:-$ROOT/kubeapi/testdata/oracle}
API=${API_OUT:-$ROOT/kubeapi/openapi}
mkdir -p "$OUT" "$API"

META='application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'
METAB='application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1'
METAL='application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'
METALB='application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1'
TABLE='application/json;as=Table;v=v1;g=meta.k8s.io'
TABLEB='application/json;as=Table;v=v1beta1;g=meta.k8s.io'
# The apiserver indents JSON for curl and wget user agents (k8s.io/apiserver responsewriters);
# a client-go user agent gets what clients get.
UA="kubectl/v1.37.2 (linux/amd64) kubernetes/record"
KUBECTL='application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'

# rec NAME PATH [ACCEPT] [MAXTIME]: GET and save status, content type and body.
rec() {
  local name=$1 path=$2 accept=${3:-application/json} maxtime=${4:-20} hdr body
  hdr=$(mktemp) body=$(mktemp)
  curl -sk -A "$UA" --max-time "$maxtime" -D "$hdr" -o "$body" -H "Authorization: Bearer $TOKEN" -H "Accept: $accept" "$KAS_URL$path" || true
  {
    head -1 "$hdr" | tr -d '\r'
    grep -i '^content-type:' "$hdr" | tr -d '\r' || true
    echo
    cat "$body"
  } >"$OUT/$name.http"
  rm -f "$hdr" "$body"
  echo "$name: $(head -1 "$OUT/$name.http")"
}

# send METHOD PATH BODY: a write through the apiserver; prints the answer.
send() {
  curl -sk -A "$UA" -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d "$3" "$KAS_URL$2"
}

# etcdval NAME KEY: the raw value etcd holds under KEY, and its mod revision.
etcdval() {
  local k
  k=$(printf '%s' "$2" | base64 -w0)
  curl -s -X POST -d "{\"key\":\"$k\"}" "$ETCD_URL/v3/kv/range" >"$OUT/$1.range"
  python3 - "$OUT/$1.range" "$OUT/$1.etcd" <<'PY'
import base64, json, sys
kv = json.load(open(sys.argv[1]))["kvs"][0]
with open(sys.argv[2], "wb") as f:
    f.write(base64.b64decode(kv["value"]))
    f.write(b"\n" + kv["mod_revision"].encode() + b"\n")
PY
  rm -f "$OUT/$1.range"
}

# The cluster: a namespace with a pod, a configmap and a service, and a node.
send POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fid","labels":{"team":"a"}}}' >/dev/null
send POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-fid","labels":{"zone":"z1"}},"spec":{"podCIDR":"10.1.0.0/24"}}' >/dev/null
send POST /api/v1/namespaces/fid/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-1","labels":{"app":"web"},"annotations":{"note":"x"}},"data":{"a":"1","b":"2"}}' >/dev/null
send POST /api/v1/namespaces/fid/services '{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-1","labels":{"app":"web"}},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}}' >/dev/null
send POST /api/v1/namespaces/fid/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","labels":{"app":"web"},"annotations":{"a":"b"},"finalizers":["example.com/f"]},"spec":{"nodeName":"node-fid","containers":[{"name":"c","image":"nginx:1.27","ports":[{"containerPort":8080}]}]}}' >/dev/null
send POST /api/v1/namespaces/fid/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"gen-","labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"redis"}]}}' >/dev/null

for r in pods configmaps services; do
  rec "list-$r-fid" "/api/v1/namespaces/fid/$r"
done
rec list-namespaces /api/v1/namespaces
rec list-nodes /api/v1/nodes
rec list-services /api/v1/services
rec list-pods-limit1 '/api/v1/namespaces/fid/pods?limit=1'
rec get-pod /api/v1/namespaces/fid/pods/pod-1
rec get-configmap /api/v1/namespaces/fid/configmaps/cm-1
rec get-service /api/v1/namespaces/fid/services/svc-1
rec get-namespace /api/v1/namespaces/fid
rec get-node /api/v1/nodes/node-fid
etcdval pod /registry/pods/fid/pod-1
etcdval configmap /registry/configmaps/fid/cm-1
etcdval service /registry/services/specs/fid/svc-1
etcdval namespace /registry/namespaces/fid
etcdval node /registry/minions/node-fid

# Metadata only.
rec meta-get-pod /api/v1/namespaces/fid/pods/pod-1 "$META"
rec meta-get-pod-v1beta1 /api/v1/namespaces/fid/pods/pod-1 "$METAB"
rec meta-get-pod-as-list /api/v1/namespaces/fid/pods/pod-1 "$METAL"
rec meta-list-pods /api/v1/namespaces/fid/pods "$METAL"
rec meta-list-pods-v1beta1 /api/v1/namespaces/fid/pods "$METALB"
rec meta-list-pods-as-object /api/v1/namespaces/fid/pods "$META"
rec meta-list-pods-limit1 '/api/v1/namespaces/fid/pods?limit=1' "$METAL"
rec meta-list-nodes /api/v1/nodes "$METAL"
rec meta-list-clientgo /api/v1/namespaces/fid/configmaps "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
rec notacceptable-xml /api/v1/namespaces/fid/configmaps application/xml
rec notacceptable-meta-yaml /api/v1/namespaces/fid/configmaps "application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2"
rec meta-bad-version /api/v1/namespaces/fid/configmaps "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2"

# Tables.
for r in pods configmaps services; do
  rec "table-$r-fid" "/api/v1/namespaces/fid/$r" "$TABLE"
done
rec table-namespaces /api/v1/namespaces "$TABLE"
rec table-nodes /api/v1/nodes "$TABLE"
rec table-services-all /api/v1/services "$KUBECTL"
rec table-get-configmap /api/v1/namespaces/fid/configmaps/cm-1 "$TABLE"
rec table-configmaps-object '/api/v1/namespaces/fid/configmaps?includeObject=Object' "$TABLE"
rec table-configmaps-none '/api/v1/namespaces/fid/configmaps?includeObject=None' "$TABLE"
rec table-configmaps-v1beta1 /api/v1/namespaces/fid/configmaps "$TABLEB"
rec table-secrets-fid /api/v1/namespaces/fid/secrets "$TABLE"
rec table-serviceaccounts-fid /api/v1/namespaces/fid/serviceaccounts "$TABLE"
rec table-events-fid /api/v1/namespaces/fid/events "$TABLE"

# Watch: events of a create, an update and a delete, from the list's resourceVersion.
RV=$(sed -n '4,$p' "$OUT/list-configmaps-fid.http" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
for kind in plain meta metab table; do
  case $kind in
    plain) a=application/json ;; meta) a=$META ;; metab) a=$METAB ;; table) a=$TABLE ;;
  esac
  rec "watch-configmaps-$kind" "/api/v1/namespaces/fid/configmaps?watch=1&resourceVersion=$RV&timeoutSeconds=4" "$a" 8 &
done
rec watch-configmaps-metalist "/api/v1/namespaces/fid/configmaps?watch=1&resourceVersion=$RV&timeoutSeconds=4" "$METAL" 8 &
sleep 1
send POST /api/v1/namespaces/fid/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-2"},"data":{"k":"v"}}' >/dev/null
curl -sk -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/merge-patch+json' -d '{"data":{"k":"w"}}' "$KAS_URL/api/v1/namespaces/fid/configmaps/cm-2" >/dev/null
curl -sk -X DELETE -H "Authorization: Bearer $TOKEN" "$KAS_URL/api/v1/namespaces/fid/configmaps/cm-2" >/dev/null
wait

# Watch-list: initial events, then the bookmark that ends them.
WL='watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2'
rec watchlist-pods "/api/v1/namespaces/fid/pods?$WL" application/json 6
rec watchlist-pods-meta "/api/v1/namespaces/fid/pods?$WL" "$META" 6
rec watchlist-nodes "/api/v1/nodes?$WL" application/json 6

# timeoutSeconds out of range.
rec watch-timeout-negative '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=-1' application/json 6
rec watch-timeout-negative-table '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=-5' "$TABLE" 6
rec watch-timeout-overflow '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=9223372036854775807' application/json 6
rec watch-timeout-huge '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=10000000000' application/json 6
rec watch-timeout-toolarge '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=99999999999999999999' application/json 6
rec watch-timeout-abc '/api/v1/namespaces/fid/configmaps?watch=1&timeoutSeconds=abc' application/json 6

# OpenAPI: /openapi/v2 and the group-version documents of /openapi/v3 (not the per-group ones,
# /version's or apiregistration's: the façade serves none of them), stored gzipped as received
# (the façade embeds them; kubeapi/openapi.go).
rm -f "$API"/*.json.gz
curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json" -D "$OUT/openapi-v2.headers" "$KAS_URL/openapi/v2" | gzip -9n >"$API/v2.json.gz"
rec openapi-v3 /openapi/v3
for gv in $(sed -n '4,$p' "$OUT/openapi-v3.http" | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["paths"]))' | grep -E '^(api/v1|apis/[^/]+/[^/]+)$' | grep -v apiregistration); do
  f=$(echo "$gv" | tr / _)
  curl -sk -A "$UA" -H "Authorization: Bearer $TOKEN" -H "Accept: application/json" "$KAS_URL/openapi/v3/$gv" | gzip -9n >"$API/v3_$f.json.gz"
done
curl -sk -D "$OUT/openapi-v3-api_v1.headers" -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Accept: application/json' "$KAS_URL/openapi/v3/api/v1"
for h in "$OUT"/openapi-*.headers; do
  tr -d '\r' <"$h" | grep -iv '^date:\|^audit-id:\|^x-kubernetes-pf\|^expires:' >"$h.tmp" && mv "$h.tmp" "$h"
done
du -ch "$API"/*.json.gz | tail -1
