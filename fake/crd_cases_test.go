package fake_test

// crdCases are the CustomResourceDefinition and custom-resource requests recorded from a
// kube-apiserver 1.37.2 into testdata/observed-crds.json.gz (TestRecordOracleCRDs) and replayed
// against the fake (TestObservedCRDs). Each case has a group of its own, {g} in a path or body
// ("<case>.example.com"), and a namespace of its own, {ns}; {uid} and {rv} are the last answer's.
var crdCases = []crdCase{
	{Name: "lifecycle", Steps: []crdStep{
		crdNamespace(),
		{Name: "create crd", Method: "POST", Path: crdPath, Body: widgetCRD},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"Established","status":"True"`},
		{Name: "already exists", Method: "POST", Path: crdPath, Body: widgetCRD},
		{Name: "discovery group", Method: "GET", Path: "/apis/{g}"},
		{Name: "discovery v1", Method: "GET", Path: "/apis/{g}/v1"},
		{Name: "discovery v1beta1", Method: "GET", Path: "/apis/{g}/v1beta1"},
		{Name: "discovery groups", Method: "GET", Path: "/apis", Pick: "{g}"},
		{Name: "create", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w1","labels":{"a":"1"}},"spec":{"color":"red","size":"small"},"status":{"replicas":5}}`},
		{Name: "create second", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"color":"blue","replicas":3}}`},
		{Name: "get as v1beta1", Method: "GET", Path: "/apis/{g}/v1beta1/namespaces/{ns}/widgets/w1"},
		{Name: "field selector", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets?fieldSelector=spec.color%3Dblue"},
		{Name: "field selector unknown", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets?fieldSelector=spec.size%3Dsmall"},
		{Name: "table", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets?includeObject=None", Accept: "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{Name: "update without resourceVersion", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"green"}}`},
		{Name: "update spec bumps generation", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w1","resourceVersion":"{rv}"},"spec":{"color":"green","replicas":2},"status":{"replicas":9}}`},
		{Name: "update status", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1/status", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w1","resourceVersion":"{rv}"},"spec":{"color":"blue"},"status":{"replicas":4,"selector":"app=w"}}`},
		{Name: "get scale", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1/scale"},
		{Name: "update scale", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1/scale", Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"{ns}"},"spec":{"replicas":7}}`},
		{Name: "after scale", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1"},
		{Name: "merge patch", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1", ContentType: "application/merge-patch+json", Body: `{"spec":{"size":"big"}}`},
		{Name: "strategic patch", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w1", ContentType: "application/strategic-merge-patch+json", Body: `{"spec":{"size":"big"}}`},
		{Name: "apply creates", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w3?fieldManager=mgr", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"color":"red","ports":[{"name":"http","port":80}]}}`},
		{Name: "apply merges list map", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w3?fieldManager=other", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"ports":[{"name":"https","port":443}]}}`},
		{Name: "apply conflict", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w3?fieldManager=other", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"color":"blue"}}`},
		{Name: "delete", Method: "DELETE", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/w2"},
		{Name: "get crd", Method: "GET", Path: crdPath + "/widgets.{g}"},
		{Name: "add version v2", Method: "PUT", Path: crdPath + "/widgets.{g}", Body: widgetCRDv2},
		{Name: "list v2", Method: "GET", Path: "/apis/{g}/v2/namespaces/{ns}/widgets", Until: `"kind":"WidgetList"`},
		{Name: "delete crd", Method: "DELETE", Path: crdPath + "/widgets.{g}"},
		{Name: "crd gone", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"code":404`},
		{Name: "resource gone", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Until: `"code":404`},
	}},
	{Name: "validation", Steps: []crdStep{
		crdNamespace(),
		{Name: "create crd", Method: "POST", Path: crdPath, Body: widgetCRD},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"Established","status":"True"`},
		{Name: "required", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v1"},"spec":{"size":"a"}}`},
		{Name: "enum", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v2"},"spec":{"color":"pink"}}`},
		{Name: "type", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v3"},"spec":{"color":"red","replicas":"two"}}`},
		{Name: "maximum", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v4"},"spec":{"color":"red","replicas":11}}`},
		{Name: "minimum", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v5"},"spec":{"color":"red","replicas":-1}}`},
		{Name: "pattern", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v6"},"spec":{"color":"red","size":"Big1"}}`},
		{Name: "maxLength", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v7"},"spec":{"color":"red","size":"abcdefghij"}}`},
		{Name: "int-or-string bad", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v8"},"spec":{"color":"red","maxUnavailable":true}}`},
		{Name: "list-map item required", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v9"},"spec":{"color":"red","ports":[{"port":80}]}}`},
		{Name: "several causes", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v10"},"spec":{"color":"pink","replicas":20,"size":"X"}}`},
		{Name: "spec not an object", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"v11"},"spec":"x"}`},
		{Name: "invalid name", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"Bad_Name"},"spec":{"color":"red"}}`},
		{Name: "wrong kind", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Gadget","metadata":{"name":"v12"},"spec":{"color":"red"}}`},
		{Name: "unknown fields pruned with warnings", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"p1"},"spec":{"color":"red","bogus":1,"ports":[{"name":"a","port":1,"extra":"x"}]},"top":true}`},
		{Name: "unknown fields Strict", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets?fieldValidation=Strict", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"p2"},"spec":{"color":"red","bogus":1},"top":true}`},
		{Name: "unknown fields Ignore", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets?fieldValidation=Ignore", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"p3"},"spec":{"color":"red","bogus":1}}`},
		{Name: "preserve unknown fields", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"p4"},"spec":{"color":"red","extra":{"any":{"thing":[1,"a"]}},"maxUnavailable":"50%"}}`},
		{Name: "defaults", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"d1"},"spec":{"color":"red","ports":[{"name":"a"}]}}`},
		{Name: "update invalid", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/d1", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"d1","resourceVersion":"{rv}"},"spec":{"color":"pink"}}`},
		{Name: "apply int-or-string", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/a1?fieldManager=mgr", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"a1"},"spec":{"color":"red","maxUnavailable":"50%"}}`},
		{Name: "merge patch invalid", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/d1", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":100}}`},
		{Name: "apply unknown field", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/a2?fieldManager=mgr", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"a2"},"spec":{"color":"red","bogus":1}}`},
		{Name: "apply unknown field Strict", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/a3?fieldManager=mgr&fieldValidation=Strict", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"a3"},"spec":{"color":"red","bogus":1}}`},
		{Name: "merge patch unknown field", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/d1", ContentType: "application/merge-patch+json", Body: `{"spec":{"bogus":1}}`},
		{Name: "apply invalid", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/a4?fieldManager=mgr", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"a4"},"spec":{"color":"pink"}}`},
	}},
	{Name: "invalid", Steps: []crdStep{
		{Name: "name not plural.group", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "no schema", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`},
		{Name: "no storage version", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "bad scope", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Global","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "not structural", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}}}]}}`},
		{Name: "missing kind", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "selectable field not in schema", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"selectableFields":[{"jsonPath":".spec.nope"}],"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "valid first", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Cluster","names":{"plural":"widgets","kind":"Widget","shortNames":["wd"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "first established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"Established","status":"True"`},
		{Name: "conflicting kind", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.{g}"},"spec":{"group":"{g}","scope":"Cluster","names":{"plural":"gadgets","kind":"Widget","shortNames":["wd"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
		{Name: "names not accepted", Method: "GET", Path: crdPath + "/gadgets.{g}", Until: `"NamesAccepted","status":"False"`},
		{Name: "get first", Method: "GET", Path: crdPath + "/widgets.{g}"},
		{Name: "immutable scope", Method: "PUT", Path: crdPath + "/widgets.{g}", Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}","resourceVersion":"{rv}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget","shortNames":["wd"]},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`},
	}},
	{Name: "finalizers", Steps: []crdStep{
		crdNamespace(),
		{Name: "create crd", Method: "POST", Path: crdPath, Body: widgetCRD},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"Established","status":"True"`},
		{Name: "create with finalizer", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"f1","finalizers":["example.com/keep"]},"spec":{"color":"red"}}`},
		{Name: "delete crd", Method: "DELETE", Path: crdPath + "/widgets.{g}"},
		{Name: "object terminating", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/f1", Until: `"deletionTimestamp"`},
		{Name: "crd terminating", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"Terminating","status":"True"`},
		{Name: "create while terminating", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/widgets", Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"f2"},"spec":{"color":"red"}}`},
		{Name: "remove finalizer", Method: "PATCH", Path: "/apis/{g}/v1/namespaces/{ns}/widgets/f1", ContentType: "application/merge-patch+json", Body: `{"metadata":{"finalizers":null}}`},
		{Name: "crd gone", Method: "GET", Path: crdPath + "/widgets.{g}", Until: `"code":404`},
	}},
	{Name: "cluster", Steps: []crdStep{
		{Name: "create crd", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.{g}"},"spec":{"group":"{g}","scope":"Cluster","names":{"plural":"gizmos","kind":"Gizmo"},"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}},"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`},
		{Name: "established", Method: "GET", Path: crdPath + "/gizmos.{g}", Until: `"Established","status":"True"`},
		{Name: "discovery", Method: "GET", Path: "/apis/{g}/v1"},
		{Name: "create", Method: "POST", Path: "/apis/{g}/v1/gizmos", Body: `{"apiVersion":"{g}/v1","kind":"Gizmo","metadata":{"name":"z1"},"spec":{"size":3}}`},
		{Name: "namespaced path", Method: "GET", Path: "/apis/{g}/v1/namespaces/default/gizmos/z1"},
		{Name: "table default columns", Method: "GET", Path: "/apis/{g}/v1/gizmos?includeObject=None", Accept: "application/json;as=Table;v=v1;g=meta.k8s.io"},
		{Name: "status merge patch", Method: "PATCH", Path: "/apis/{g}/v1/gizmos/z1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Ready"},"spec":{"size":9}}`},
		{Name: "status apply", Method: "PATCH", Path: "/apis/{g}/v1/gizmos/z1/status?fieldManager=ctl", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"{g}/v1","kind":"Gizmo","metadata":{"name":"z1"},"status":{"phase":"Done"}}`},
		{Name: "json patch", Method: "PATCH", Path: "/apis/{g}/v1/gizmos/z1", ContentType: "application/json-patch+json", Body: `[{"op":"replace","path":"/spec/size","value":4}]`},
		{Name: "unknown subresource", Method: "GET", Path: "/apis/{g}/v1/gizmos/z1/scale"},
		{Name: "delete", Method: "DELETE", Path: "/apis/{g}/v1/gizmos/z1"},
	}},
	{Name: "nostatus", Steps: []crdStep{
		crdNamespace(),
		{Name: "create crd", Method: "POST", Path: crdPath, Body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.{g}"},"spec":{"group":"{g}","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`},
		{Name: "established", Method: "GET", Path: crdPath + "/things.{g}", Until: `"Established","status":"True"`},
		{Name: "create keeps status", Method: "POST", Path: "/apis/{g}/v1/namespaces/{ns}/things", Body: `{"apiVersion":"{g}/v1","kind":"Thing","metadata":{"name":"t1"},"spec":{"a":1},"status":{"s":"x"},"other":{"b":2}}`},
		{Name: "status change bumps generation", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/things/t1", Body: `{"apiVersion":"{g}/v1","kind":"Thing","metadata":{"name":"t1","resourceVersion":"{rv}"},"spec":{"a":1},"status":{"s":"y"},"other":{"b":2}}`},
		{Name: "label change keeps generation", Method: "PUT", Path: "/apis/{g}/v1/namespaces/{ns}/things/t1", Body: `{"apiVersion":"{g}/v1","kind":"Thing","metadata":{"name":"t1","resourceVersion":"{rv}","labels":{"l":"1"}},"spec":{"a":1},"status":{"s":"y"},"other":{"b":2}}`},
		{Name: "no status subresource", Method: "GET", Path: "/apis/{g}/v1/namespaces/{ns}/things/t1/status"},
	}},
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

func crdNamespace() crdStep {
	return crdStep{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: `{"metadata":{"name":"{ns}"}}`}
}

// widgetSchema exercises every schema feature the fake validates: required, enum, type, min/max,
// pattern, maxLength, int-or-string, a list-map, preserve-unknown-fields and defaults.
const widgetSchema = `{"openAPIV3Schema":{"type":"object","properties":{` +
	`"spec":{"type":"object","required":["color"],"properties":{` +
	`"color":{"type":"string","enum":["red","green","blue"]},` +
	`"replicas":{"type":"integer","minimum":0,"maximum":10,"default":1},` +
	`"size":{"type":"string","pattern":"^[a-z]+$","maxLength":8},` +
	`"maxUnavailable":{"x-kubernetes-int-or-string":true},` +
	`"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer","default":8080}}}},` +
	`"extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},` +
	`"status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"}}}}}}`

const widgetVersion = `"served":true,"schema":` + widgetSchema + `,` +
	`"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},` +
	`"selectableFields":[{"jsonPath":".spec.color"}],` +
	`"additionalPrinterColumns":[{"name":"Color","type":"string","jsonPath":".spec.color"},{"name":"Replicas","type":"integer","jsonPath":".spec.replicas","priority":1}]`

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}"},"spec":{"group":"{g}","scope":"Namespaced",` +
	`"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList","shortNames":["wd"],"categories":["all","example"]},` +
	`"versions":[{"name":"v1","storage":true,` + widgetVersion + `},{"name":"v1beta1","storage":false,` + widgetVersion + `}]}}`

const widgetCRDv2 = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.{g}","resourceVersion":"{rv}"},"spec":{"group":"{g}","scope":"Namespaced",` +
	`"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList","shortNames":["wd"],"categories":["all","example"]},` +
	`"versions":[{"name":"v1","storage":true,` + widgetVersion + `},{"name":"v1beta1","storage":false,` + widgetVersion + `},{"name":"v2","storage":false,` + widgetVersion + `}]}}`
