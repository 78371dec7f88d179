#!/usr/bin/env bash
# Records a kube-apiserver's discovery documents into this directory: the legacy ones (/api,
# /api/v1, /apis, /apis/<group>/<version>) and the aggregated ones (/api and /apis with
# Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList), as served.
# The fake's registry is the aggregated pair (registry.go).
#
# Usage: source $ORACLE_WORK/run/env && bash fake/testdata/discovery/record.sh
set -euo pipefail
cd "$(dirname "$0")"
: "${KAS_URL:?source the run env of the oracle}" "${TOKEN:?}"
get() { curl -sfk -H "Authorization: Bearer $TOKEN" -H "Accept: $2" "$KAS_URL$1"; }
agg='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
get /api "$agg" | jq . > aggregated-api.json
get /apis "$agg" | jq . > aggregated-apis.json
get /api application/json | jq . > api.json
get /api/v1 application/json | jq . > api-v1.json
get /apis application/json | jq . > apis.json
rm -f apis-*.json
for gv in $(jq -r '.groups[].versions[].groupVersion' apis.json); do
	get "/apis/$gv" application/json | jq . > "apis-${gv//\//-}.json"
done
