#!/usr/bin/env bash
# Records kube-apiserver's answers to patches and server-side applies into testdata/oracle/, one
# JSON file per request: the object before (GET), the request, the status code and the body.
# TestOracle replays each file through the Patcher and compares.
#
# Needs a running oracle (../../../../../shared/oracle/start.sh) and its env:
#   source $ORACLE_WORK/run/env && bash testdata/record.sh
set -euo pipefail
: "${KAS_URL:?source the oracle run/env first}" "${TOKEN:?}"
cd "$(dirname "$0")"
OUT=oracle
rm -rf "$OUT"; mkdir -p "$OUT"
UA="oracle-client/v1.0 (linux/amd64) record"
N=0
HEADERS=$(mktemp) BODY=$(mktemp)
trap 'rm -f "$HEADERS" "$BODY"' EXIT

api() { # METHOD PATH CONTENT-TYPE BODY [QUERY] -> prints "CODE<TAB>BODY"
	local m=$1 path=$2 ct=$3 body=$4 q=${5:-}
	local url="$KAS_URL$path"; [ -n "$q" ] && url="$url?$q"
	local tmp; tmp=$(mktemp)
	local code
	printf '%s' "$body" >"$BODY"
	code=$(curl -sk -o "$tmp" -D "$HEADERS" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOKEN" -H "User-Agent: $UA" \
		-H "Accept: application/json" ${ct:+-H "Content-Type: $ct"} ${body:+--data-binary "@$BODY"} "$url")
	printf '%s\t' "$code"; cat "$tmp"; rm -f "$tmp"
}

get() { api GET "$1" "" ""; }

# warnings prints the Warning headers of the last api call as a JSON array of their raw values.
warnings() { tr -d '\r' <"$HEADERS" | sed -n 's/^[Ww]arning: //p' | jq -Rs 'split("\n") | map(select(. != ""))'; }

# record NAME KIND PATH SUBRESOURCE CONTENT-TYPE BODY [QUERY]
# KIND is group/version/Kind (core group: /v1/Kind); PATH is the object's path without subresource.
record() {
	local name=$1 kind=$2 path=$3 sub=$4 ct=$5 body=$6 q=${7:-}
	N=$((N + 1))
	local file; file=$(printf '%s/%03d-%s.json' "$OUT" "$N" "$name")
	local cur; cur=$(get "$path")
	local curcode=${cur%%$'\t'*} curbody=${cur#*$'\t'}
	[ "$curcode" = 200 ] || curbody=null
	local full=$path; [ -n "$sub" ] && full="$path/$sub"
	local res; res=$(api PATCH "$full" "$ct" "$body" "$q")
	local code=${res%%$'\t'*} rbody=${res#*$'\t'} warn; warn=$(warnings)
	echo "$rbody" | jq . >/dev/null 2>&1 || rbody=$(jq -Rn --arg s "$rbody" '$s')
	jq -n --arg name "$name" --arg kind "$kind" --arg path "$path" --arg sub "$sub" --arg ct "$ct" \
		--rawfile body "$BODY" --arg q "$q" --arg ua "$UA" --argjson cur "$curbody" --argjson code "$code" \
		--argjson res "$rbody" --argjson warn "$warn" \
		'{name:$name, kind:$kind, path:$path, subresource:$sub, contentType:$ct, query:$q, userAgent:$ua, patch:$body, current:$cur, code:$code, warnings:$warn, response:$res}' >"$file"
	echo "$N $name -> $code"
}

# write VERB NAME KIND PATH BODY: a POST (VERB create, PATH the collection) or PUT (VERB update)
# recorded like a patch, for Patcher.Update(old, new, ...).
write() {
	local verb=$1 name=$2 kind=$3 path=$4 body=$5 sub=${6:-} method=POST cur=null
	N=$((N + 1))
	local file; file=$(printf '%s/%03d-%s.json' "$OUT" "$N" "$name")
	if [ "$verb" = update ]; then method=PUT; cur=$(get "$path" | cut -f2-); fi
	local res; res=$(api $method "$path${sub:+/$sub}" application/json "$body")
	local code=${res%%$'\t'*} rbody=${res#*$'\t'}
	jq -n --arg verb "$verb" --arg name "$name" --arg kind "$kind" --arg path "$path" --rawfile body "$BODY" --arg ua "$UA" \
		--arg sub "$sub" --argjson cur "$cur" --argjson code "$code" --argjson res "$rbody" \
		'{name:$name, kind:$kind, path:$path, subresource:$sub, verb:$verb, userAgent:$ua, patch:$body, current:$cur, code:$code, response:$res}' >"$file"
	echo "$N $name -> $code"
}
create() { write create "$@"; }
update() { write update "$@"; }

# strip removes what the server sets, so the defaulted object can be created again from its body.
strip() { jq -c 'del(.metadata.uid,.metadata.resourceVersion,.metadata.creationTimestamp,.metadata.managedFields,.metadata.generation,.status)'; }

NS=/api/v1/namespaces/default
APPS=/apis/apps/v1/namespaces/default
CM=/v1/ConfigMap DEP=apps/v1/Deployment POD=/v1/Pod
JP=application/json-patch+json MP=application/merge-patch+json SMP=application/strategic-merge-patch+json
AP=application/apply-patch+yaml

# --- ConfigMap ------------------------------------------------------------------------------------
create cm-create $CM $NS/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"app":"a"}},"data":{"a":"1","b":"2"}}'
record cm-json-replace $CM $NS/configmaps/cm1 "" $JP '[{"op":"replace","path":"/data/a","value":"10"}]'
record cm-json-add $CM $NS/configmaps/cm1 "" $JP '[{"op":"add","path":"/data/c","value":"3"},{"op":"test","path":"/data/a","value":"10"}]' fieldManager=json-mgr
record cm-json-test-fails $CM $NS/configmaps/cm1 "" $JP '[{"op":"test","path":"/data/a","value":"nope"}]'
record cm-json-unknown-op $CM $NS/configmaps/cm1 "" $JP '[{"op":"frobnicate","path":"/data/a"}]'
record cm-json-missing-path $CM $NS/configmaps/cm1 "" $JP '[{"op":"remove","path":"/data/missing"}]'
record cm-json-replace-missing $CM $NS/configmaps/cm1 "" $JP '[{"op":"replace","path":"/nosuch/field","value":1}]'
record cm-json-not-array $CM $NS/configmaps/cm1 "" $JP '{"op":"add","path":"/data/x","value":"1"}'
record cm-json-no-path $CM $NS/configmaps/cm1 "" $JP '[{"op":"add","value":"1"}]'
record cm-malformed-json $CM $NS/configmaps/cm1 "" $JP '[{"op":'
record cm-malformed-merge $CM $NS/configmaps/cm1 "" $MP '{"data":'
record cm-malformed-smp $CM $NS/configmaps/cm1 "" $SMP 'not json'
record cm-wrong-content-type $CM $NS/configmaps/cm1 "" text/plain '{"data":{"x":"1"}}'
record cm-merge $CM $NS/configmaps/cm1 "" $MP '{"data":{"b":null,"d":"4"},"metadata":{"labels":{"tier":"web"}}}'
record cm-smp $CM $NS/configmaps/cm1 "" $SMP '{"data":{"e":"5"}}' fieldManager=smp-mgr
record cm-merge-noop $CM $NS/configmaps/cm1 "" $MP '{"data":{"e":"5"}}' fieldManager=smp-mgr
record cm-merge-wrong-type $CM $NS/configmaps/cm1 "" $MP '{"data":{"a":5}}'
record cm-merge-not-object $CM $NS/configmaps/cm1 "" $MP '[1,2]'
record cm-merge-stale-rv $CM $NS/configmaps/cm1 "" $MP '{"metadata":{"resourceVersion":"1"},"data":{"f":"6"}}'
record cm-merge-name $CM $NS/configmaps/cm1 "" $MP '{"metadata":{"name":"other"}}'
record cm-merge-namespace $CM $NS/configmaps/cm1 "" $MP '{"metadata":{"namespace":"kube-system"}}'
record cm-merge-uid $CM $NS/configmaps/cm1 "" $MP '{"metadata":{"uid":"00000000-0000-0000-0000-000000000001"}}'
record cm-merge-creation-timestamp $CM $NS/configmaps/cm1 "" $MP '{"metadata":{"creationTimestamp":"2001-01-01T00:00:00Z"}}'
record cm-merge-unknown-field $CM $NS/configmaps/cm1 "" $MP '{"spec":{"x":1}}'
record cm-merge-unknown-field-strict $CM $NS/configmaps/cm1 "" $MP '{"spec":{"x":1}}' fieldValidation=Strict
record cm-merge-force $CM $NS/configmaps/cm1 "" $MP '{"data":{"g":"7"}}' force=true
record cm-merge-missing $CM $NS/configmaps/nosuch "" $MP '{"data":{"g":"7"}}'
record cm-smp-missing $CM $NS/configmaps/nosuch "" $SMP '{"data":{"g":"7"}}'
record cm-json-missing $CM $NS/configmaps/nosuch "" $JP '[{"op":"add","path":"/data/g","value":"7"}]'
record cm-apply-no-manager $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  a: "1"\n'
record cm-apply-create $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  labels:\n    owner: alice\ndata:\n  a: "1"\n  b: "2"\n' fieldManager=alice
record cm-apply-same $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  labels:\n    owner: alice\ndata:\n  a: "1"\n  b: "2"\n' fieldManager=alice
record cm-apply-conflict $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  labels:\n    owner: bob\ndata:\n  a: "100"\n  c: "3"\n' fieldManager=bob
record cm-apply-shared $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  a: "1"\n  c: "3"\n' fieldManager=bob
record cm-apply-force $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  labels:\n    owner: bob\ndata:\n  a: "100"\n  c: "3"\n' fieldManager=bob\&force=true
record cm-apply-drop-field $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  b: "2"\n' fieldManager=alice
record cm-apply-json-body $CM $NS/configmaps/cm2 "" $AP '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm2"},"data":{"z":"26"}}' fieldManager=carol
record cm-apply-update-owned $CM $NS/configmaps/cm1 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: "changed"\n  d: "4"\n' fieldManager=applier
record cm-apply-update-owned-force $CM $NS/configmaps/cm1 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: "changed"\n  d: "4"\n' fieldManager=applier\&force=true
record cm-apply-bad-yaml $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: [ConfigMap\n' fieldManager=alice
record cm-apply-wrong-version $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: cm2\n' fieldManager=alice
record cm-apply-wrong-kind $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: Secret\nmetadata:\n  name: cm2\n' fieldManager=alice
record cm-apply-managed-fields $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  managedFields:\n  - manager: x\n    operation: Apply\n' fieldManager=alice
record cm-apply-wrong-name $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm3\n' fieldManager=alice
record cm-apply-unknown-field $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\nspec:\n  x: 1\n' fieldManager=alice
record cm-apply-wrong-type $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  a: [1]\n' fieldManager=alice
record cm-apply-create-uid $CM $NS/configmaps/cm4 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm4\n  uid: 00000000-0000-0000-0000-000000000001\n' fieldManager=alice
record cm-apply-force-conflict-noop $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  b: "2"\n' fieldManager=alice\&force=true
record cm-apply-own-create $CM $NS/configmaps/cm5 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm5\ndata:\n  a: "1"\n  b: "2"\n' fieldManager=alice
record cm-apply-own-drop $CM $NS/configmaps/cm5 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm5\ndata:\n  a: "1"\n' fieldManager=alice
update cm-update $CM $NS/configmaps/cm2 "$(get $NS/configmaps/cm2 | cut -f2- | jq -c '.data.b="22" | .data.new="n" | del(.metadata.managedFields)')"

record cm-json-strict-unknown-op-field $CM $NS/configmaps/cm1 "" $JP '[{"op":"add","path":"/data/x","value":"1","bogus":1}]' fieldValidation=Strict
record cm-json-warn-unknown-op-field $CM $NS/configmaps/cm1 "" $JP '[{"op":"add","path":"/data/x","value":"1","bogus":1}]'
record cm-merge-warn-duplicate $CM $NS/configmaps/cm1 "" $MP '{"data":{"y":"1","y":"2"},"spec":{"x":1}}'
record cm-smp-warn-unknown $CM $NS/configmaps/cm1 "" $SMP '{"data":{"z":"1"},"spec":{"x":1}}'
record cm-json-too-many-ops $CM $NS/configmaps/cm1 "" $JP "$(jq -cn '[range(10001) | {op:"test",path:"/kind",value:"ConfigMap"}]')"
record cm-apply-no-name $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\ndata:\n  q: "1"\n' fieldManager=alice
record cm-apply-warn-unknown $CM $NS/configmaps/cm2 "" $AP $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  w: "1"\n  w: "2"\n' fieldManager=alice

# --- Deployment -----------------------------------------------------------------------------------
api POST $APPS/deployments application/json '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"seed"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c1","image":"nginx:1"}]}}}}' >/dev/null
DBODY=$(get $APPS/deployments/seed | cut -f2- | strip | jq -c '.metadata.name="d1" | del(.metadata.annotations)')
create dep-create $DEP $APPS/deployments "$DBODY"
D=$APPS/deployments/d1
record dep-smp-image $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:2"}]}}}}'
record dep-smp-add-container $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c2","image":"busybox","imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]}}}}' fieldManager=adder
record dep-smp-add-container-defaults $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c3","image":"busybox"}]}}}}' fieldManager=adder
record dep-smp-delete-directive $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"c3"}]}}}}'
record dep-smp-env-merge $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}}'
record dep-smp-env-delete $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c1","env":[{"$patch":"delete","name":"A"}]}]}}}}'
record dep-smp-replace-directive $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"name":"c2","image":"busybox:2","imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},{"$patch":"replace"}]}}}}'
record dep-smp-unknown-directive $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[{"$patch":"frobnicate","name":"c2"}]}}}}'
record dep-smp-deletefromprimitivelist $DEP $D "" $SMP '{"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}'
record dep-smp-setelementorder $DEP $D "" $SMP '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c2"}],"containers":[{"name":"c2","image":"busybox:3"}]}}}}'
record dep-smp-retainkeys $DEP $D "" $SMP '{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}'
record dep-smp-wrong-type $DEP $D "" $SMP '{"spec":{"replicas":"three"}}'
record dep-smp-list-of-lists $DEP $D "" $SMP '{"spec":{"template":{"spec":{"containers":[[1]]}}}}'
record dep-json-replicas $DEP $D "" $JP '[{"op":"replace","path":"/spec/replicas","value":3}]'
record dep-merge-labels $DEP $D "" $MP '{"metadata":{"labels":{"team":"x"}}}'
record dep-merge-replace-list $DEP $D "" $MP '{"spec":{"template":{"spec":{"containers":[{"name":"c2","image":"busybox:4","imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]}}}}'
record dep-merge-status-main $DEP $D "" $MP '{"status":{"replicas":7}}'
record dep-merge-status-sub $DEP $D status $MP '{"status":{"replicas":7},"spec":{"replicas":9},"metadata":{"labels":{"from":"status"},"annotations":{"from":"status"}}}' fieldManager=status-mgr
record dep-apply-conflict-update $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  replicas: 2\n' fieldManager=ssa-a
record dep-apply-force $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: c2\n        image: busybox:5\n' fieldManager=ssa-a\&force=true
record dep-apply-two-managers $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  replicas: 4\n  template:\n    spec:\n      containers:\n      - name: c2\n        image: busybox:6\n' fieldManager=ssa-b
record dep-apply-status $DEP $D status $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nstatus:\n  observedGeneration: 1\n  conditions:\n  - type: Available\n    status: "True"\n    reason: Oracle\n' fieldManager=ssa-status
record dep-apply-status-spec $DEP $D status $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  replicas: 11\n' fieldManager=ssa-status
record dep-apply-status-on-main $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nstatus:\n  replicas: 5\n' fieldManager=ssa-main-status
record dep-apply-create $DEP $APPS/deployments/d2 "" $AP "$(echo "$DBODY" | jq -c '.metadata.name="d2"')" fieldManager=ssa-create
record dep-apply-create-minimal $DEP $APPS/deployments/d3 "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d3\nspec:\n  selector:\n    matchLabels:\n      app: d3\n  template:\n    metadata:\n      labels:\n        app: d3\n    spec:\n      containers:\n      - name: c\n        image: nginx\n' fieldManager=ssa-create
record dep-apply-duplicate-key $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  template:\n    spec:\n      containers:\n      - name: c1\n        image: a\n      - name: c1\n        image: b\n' fieldManager=ssa-dup
record dep-apply-status-missing $DEP $APPS/deployments/nosuch status $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nosuch\nstatus:\n  replicas: 1\n' fieldManager=ssa-status
update dep-update-status $DEP $D "$(get $D | cut -f2- | jq -c '.status.observedGeneration=99 | .spec.replicas=42 | del(.metadata.managedFields)')" status
record dep-apply-env-a $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  template:\n    spec:\n      containers:\n      - name: c2\n        env:\n        - name: FROM_A\n          value: a\n' fieldManager=env-a
record dep-apply-env-b $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  template:\n    spec:\n      containers:\n      - name: c2\n        env:\n        - name: FROM_B\n          value: b\n' fieldManager=env-b
record dep-apply-env-a-drop $DEP $D "" $AP $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  template:\n    spec:\n      containers:\n      - name: c2\n' fieldManager=env-a
record dep-json-uid $DEP $D "" $JP '[{"op":"replace","path":"/metadata/uid","value":"00000000-0000-0000-0000-000000000002"}]'
record dep-json-name $DEP $D "" $JP '[{"op":"replace","path":"/metadata/name","value":"d9"}]'
record dep-json-noop $DEP $D "" $JP '[{"op":"test","path":"/metadata/name","value":"d1"}]'

# --- Pod ------------------------------------------------------------------------------------------
api POST $NS/pods application/json '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"seed"},"spec":{"nodeName":"node-1","containers":[{"name":"c1","image":"nginx:1"}]}}' >/dev/null
PBODY=$(get $NS/pods/seed | cut -f2- | strip | jq -c '.metadata.name="p1"')
create pod-create $POD $NS/pods "$PBODY"
P=$NS/pods/p1
record pod-smp-image $POD $P "" $SMP '{"spec":{"containers":[{"name":"c1","image":"nginx:2"}]}}'
record pod-smp-immutable $POD $P "" $SMP '{"spec":{"containers":[{"name":"c1","workingDir":"/tmp"}]}}'
record pod-merge-labels $POD $P "" $MP '{"metadata":{"labels":{"a":"b"},"annotations":{"k":"v"}}}' fieldManager=labeler
record pod-json-add-label $POD $P "" $JP '[{"op":"add","path":"/metadata/labels/c","value":"d"}]'
record pod-apply-labels $POD $P "" $AP $'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  labels:\n    a: z\n' fieldManager=ssa-pod
record pod-apply-annotations $POD $P "" $AP $'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  annotations:\n    ssa: "yes"\n' fieldManager=ssa-pod
record pod-apply-status $POD $P status $AP $'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\nstatus:\n  conditions:\n  - type: Ready\n    status: "False"\n    reason: Oracle\n' fieldManager=kubelet-ish
record pod-smp-status $POD $P status $SMP '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Patched"}]}}' fieldManager=kubelet-ish

# --- A custom resource: a map without a schema of its own ------------------------------------------
api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions application/json '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}' >/dev/null
for _ in $(seq 1 50); do [ "$(get /apis/example.com/v1/namespaces/default/widgets | cut -f1)" = 200 ] && break; sleep 0.2; done
W=/apis/example.com/v1/namespaces/default/widgets
WK=example.com/v1/Widget
create cr-create $WK $W '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":{"cpu":1,"mem":"1Gi"},"tags":["a","b"],"nested":{"deep":{"x":1}}}}'
record cr-merge-map $WK $W/w1 "" $MP '{"spec":{"size":{"cpu":2,"mem":null,"disk":"10Gi"},"tags":["c"],"nested":{"deep":{"y":2}}}}' fieldManager=merger
record cr-json-patch $WK $W/w1 "" $JP '[{"op":"add","path":"/spec/tags/-","value":"d"},{"op":"remove","path":"/spec/nested"}]'
record cr-smp-unsupported $WK $W/w1 "" $SMP '{"spec":{"tags":["e"]}}'
record cr-apply $WK $W/w1 "" $AP $'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size:\n    cpu: 4\n  owner: ann\n' fieldManager=ann
record cr-apply-conflict $WK $W/w1 "" $AP $'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size:\n    cpu: 8\n  tags: ["z"]\n' fieldManager=ben
record cr-apply-create $WK $W/w2 "" $AP $'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  a: 1\n' fieldManager=ann

echo "recorded $N requests into $(pwd)/$OUT"
