package crdcel_test

import "strings"

// celCase is a sequence of requests with an API group ({g}: <case>.example.com) and a namespace
// ({ns}: c-<case>) of its own.
type celCase struct {
	Name  string
	Steps []celStep
}

// celStep is one request. ContentType "" means application/json. Until repeats the request
// (every 50 ms, up to 20 s against the apiserver) until the answer contains it: the apiserver
// establishes a CRD, and serves a CRD's new schema, a moment after the write; the fake has done
// both before it answers.
type celStep struct {
	Name, Method, Path, ContentType, Body, Until string
}

const (
	jsonPatch  = "application/json-patch+json"
	mergePatch = "application/merge-patch+json"
	applyPatch = "application/apply-patch+yaml"
)

// crd is a namespaced CustomResourceDefinition of widgets in the case's group, with one version
// v1 with the status subresource, whose schema's spec is specSchema and status statusSchema
// (JSON).
func crd(specSchema, statusSchema string) string {
	return strings.NewReplacer("SPEC", specSchema, "STATUS", statusSchema).Replace(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.{g}"},
"spec":{"group":"{g}","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":SPEC,"status":STATUS}}}}]}}`)
}

func widget(name, spec string) string {
	return `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

const (
	crdPath       = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgetsPath   = "/apis/{g}/v1/namespaces/{ns}/widgets"
	established   = `"type":"Established","status":"True"`
	namespaceBody = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}"}}`
)

// rulesSpec has a rule of each kind the apiserver evaluates: on a string (with
// messageExpression), on a list (self.all), on a map, a transition rule (self == oldSelf), an
// optionalOldSelf rule, and an object rule with reason and fieldPath. Lists, maps and strings are
// bounded so that the rules' estimated cost is within the apiserver's limits.
const rulesSpec = `{"type":"object",
 "x-kubernetes-validations":[{"rule":"!has(self.min) || !has(self.max) || self.min <= self.max","message":"min must not exceed max","reason":"FieldValueForbidden","fieldPath":".min"}],
 "properties":{
  "name":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"self.startsWith('w-')","messageExpression":"'name ' + self + ' must start with w-'","message":"must start with w-"}]},
  "tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.all(t, t.size() <= 5)","message":"tags must be at most 5 characters"}]},
  "labels":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.all(k, k.matches('^[a-z]+$'))","message":"label keys must be lowercase"}]},
  "fixed":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"self == oldSelf","message":"fixed is immutable"}]},
  "counter":{"type":"integer","x-kubernetes-validations":[{"rule":"!oldSelf.hasValue() || self >= oldSelf.value()","optionalOldSelf":true,"message":"counter may not decrease"}]},
  "min":{"type":"integer"},"max":{"type":"integer"}}}`

const rulesStatus = `{"type":"object","properties":{"phase":{"type":"string","maxLength":16,"x-kubernetes-validations":[{"rule":"self in ['Ready', 'Pending']"}]}}}`

const plainStatus = `{"type":"object","properties":{"phase":{"type":"string"}}}`

var celCases = []celCase{
	{Name: "rules", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		{Name: "create crd", Method: "POST", Path: crdPath, Body: crd(rulesSpec, rulesStatus)},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: established},
		{Name: "create valid", Method: "POST", Path: widgetsPath,
			Body: widget("good", `{"name":"w-one","tags":["a","bb"],"labels":{"app":"x"},"fixed":"f","counter":1,"min":1,"max":2}`)},
		{Name: "create string rule fails with messageExpression", Method: "POST", Path: widgetsPath, Body: widget("bad-name", `{"name":"x-one"}`)},
		{Name: "create list rule fails", Method: "POST", Path: widgetsPath, Body: widget("bad-tags", `{"tags":["ok","toolong"]}`)},
		{Name: "create map rule fails", Method: "POST", Path: widgetsPath, Body: widget("bad-labels", `{"labels":{"ok":"1","Bad-Key":"2"}}`)},
		{Name: "create object rule fails with reason and fieldPath", Method: "POST", Path: widgetsPath, Body: widget("bad-range", `{"min":3,"max":2}`)},
		{Name: "create several rules fail", Method: "POST", Path: widgetsPath, Body: widget("bad-many", `{"name":"x","tags":["toolong"],"min":5,"max":1}`)},
		{Name: "create schema error blocks rules", Method: "POST", Path: widgetsPath, Body: widget("bad-type", `{"name":"x","tags":"notalist"}`)},
		{Name: "create transition rule passes", Method: "POST", Path: widgetsPath, Body: widget("fixed-new", `{"fixed":"anything"}`)},
		{Name: "update name valid", Method: "PATCH", Path: widgetsPath + "/good", ContentType: mergePatch, Body: `{"spec":{"name":"w-two"}}`},
		{Name: "update name invalid", Method: "PATCH", Path: widgetsPath + "/good", ContentType: mergePatch, Body: `{"spec":{"name":"nope"}}`},
		{Name: "update transition rule fails", Method: "PATCH", Path: widgetsPath + "/good", ContentType: mergePatch, Body: `{"spec":{"fixed":"changed"}}`},
		{Name: "update optionalOldSelf decrease fails", Method: "PATCH", Path: widgetsPath + "/good", ContentType: mergePatch, Body: `{"spec":{"counter":0}}`},
		{Name: "update optionalOldSelf increase passes", Method: "PATCH", Path: widgetsPath + "/good", ContentType: mergePatch, Body: `{"spec":{"counter":5}}`},
		{Name: "update optionalOldSelf field added passes", Method: "PATCH", Path: widgetsPath + "/fixed-new", ContentType: mergePatch, Body: `{"spec":{"counter":-3}}`},
		{Name: "get for put", Method: "GET", Path: widgetsPath + "/good"},
		{Name: "put transition rule fails", Method: "PUT", Path: widgetsPath + "/good",
			Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"good","resourceVersion":"{rv}"},"spec":{"name":"w-two","fixed":"other","counter":5}}`},
		{Name: "status rule fails", Method: "PATCH", Path: widgetsPath + "/good/status", ContentType: mergePatch, Body: `{"status":{"phase":"Broken"}}`},
		{Name: "status rule passes", Method: "PATCH", Path: widgetsPath + "/good/status", ContentType: mergePatch, Body: `{"status":{"phase":"Ready"}}`},
		{Name: "status write with spec rule failing", Method: "PATCH", Path: widgetsPath + "/good/status", ContentType: jsonPatch,
			Body: `[{"op":"replace","path":"/spec/name","value":"not-w"},{"op":"replace","path":"/status/phase","value":"Pending"}]`},
		{Name: "apply rule fails", Method: "PATCH", Path: widgetsPath + "/applied?fieldManager=test", ContentType: applyPatch,
			Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"applied"},"spec":{"name":"bad"}}`},
		{Name: "apply rule passes", Method: "PATCH", Path: widgetsPath + "/applied?fieldManager=test", ContentType: applyPatch,
			Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"applied"},"spec":{"name":"w-applied"}}`},
	}},
	{Name: "invalid", Steps: []celStep{
		{Name: "syntax error", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.startsWith('a'"}]}}}`, plainStatus)},
		{Name: "type error", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self + 1 > 2"}]}}}`, plainStatus)},
		{Name: "bad messageExpression", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.size() > 1","messageExpression":"self.size()"}]}}}`, plainStatus)},
		{Name: "bad reason and fieldPath", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string","maxLength":10}},"x-kubernetes-validations":[{"rule":"has(self.name)","reason":"Wrong","fieldPath":".nothere"}]}`, plainStatus)},
		{Name: "oldSelf in a rule of an unkeyed list item", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"items":{"type":"array","maxItems":4,"items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`, plainStatus)},
		{Name: "cost exceeds budget", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(a, self.all(b, a.matches(b)))"}]}}}`, plainStatus)},
		{Name: "messageExpression cost exceeds budget", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"labels":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.size() > 0","messageExpression":"'bad key among ' + string(self.size()) + ' labels'"}]}}}`, plainStatus)},
		{Name: "create valid crd", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string","maxLength":10}}}`, plainStatus)},
		{Name: "update adds a bad rule", Method: "PATCH", Path: crdPath + "/widgets.{g}", ContentType: jsonPatch,
			Body: `[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations","value":[{"rule":"self.name.nope()"}]}]`},
	}},
	{Name: "ratchet", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		{Name: "create loose crd", Method: "POST", Path: crdPath, Body: crd(`{"type":"object","properties":{"name":{"type":"string"},"code":{"type":"string","maxLength":10},"other":{"type":"string"}}}`, plainStatus)},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: established},
		{Name: "create object", Method: "POST", Path: widgetsPath, Body: widget("old", `{"name":"a-long-name","code":"x1","other":"o"}`)},
		{Name: "tighten the schema", Method: "PATCH", Path: crdPath + "/widgets.{g}", ContentType: jsonPatch,
			Body: `[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/name/maxLength","value":5},` +
				`{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/code/x-kubernetes-validations","value":[{"rule":"self.startsWith('y')","message":"code must start with y"}]}]`},
		{Name: "new schema served", Method: "POST", Path: widgetsPath + "?dryRun=All", Body: widget("probe", `{"name":"a-long-name"}`), Until: "Too long"},
		{Name: "create under the new schema fails", Method: "POST", Path: widgetsPath, Body: widget("new", `{"name":"a-long-name","code":"x1"}`)},
		{Name: "update of another field passes", Method: "PATCH", Path: widgetsPath + "/old", ContentType: mergePatch, Body: `{"spec":{"other":"changed"}}`},
		{Name: "update of the invalid string fails", Method: "PATCH", Path: widgetsPath + "/old", ContentType: mergePatch, Body: `{"spec":{"name":"another-long"}}`},
		{Name: "update of the rule's field fails", Method: "PATCH", Path: widgetsPath + "/old", ContentType: mergePatch, Body: `{"spec":{"code":"x2"}}`},
		{Name: "update fixing one field passes", Method: "PATCH", Path: widgetsPath + "/old", ContentType: mergePatch, Body: `{"spec":{"name":"short"}}`},
		{Name: "status write passes", Method: "PATCH", Path: widgetsPath + "/old/status", ContentType: mergePatch, Body: `{"status":{"phase":"Done"}}`},
		{Name: "get for put", Method: "GET", Path: widgetsPath + "/old"},
		{Name: "put with the invalid fields unchanged passes", Method: "PUT", Path: widgetsPath + "/old",
			Body: `{"apiVersion":"{g}/v1","kind":"Widget","metadata":{"name":"old","resourceVersion":"{rv}"},"spec":{"name":"short","code":"x1","other":"again"}}`},
	}},
	{Name: "listmap", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		{Name: "create crd", Method: "POST", Path: crdPath, Body: crd(listMapSpec, plainStatus)},
		{Name: "established", Method: "GET", Path: crdPath + "/widgets.{g}", Until: established},
		{Name: "create", Method: "POST", Path: widgetsPath, Body: widget("w", `{"ports":[{"name":"a","port":1,"protocol":"TCP"},{"name":"b","port":2,"protocol":"TCP"}]}`)},
		{Name: "item rule fails", Method: "POST", Path: widgetsPath, Body: widget("bad", `{"ports":[{"name":"a","port":0,"protocol":"TCP"},{"name":"b","port":-1,"protocol":"TCP"}]}`)},
		{Name: "transition rule on a keyed item fails", Method: "PATCH", Path: widgetsPath + "/w", ContentType: mergePatch,
			Body: `{"spec":{"ports":[{"name":"a","port":1,"protocol":"TCP"},{"name":"b","port":2,"protocol":"UDP"}]}}`},
		{Name: "reordered items keep their old selves", Method: "PATCH", Path: widgetsPath + "/w", ContentType: mergePatch,
			Body: `{"spec":{"ports":[{"name":"b","port":3,"protocol":"TCP"},{"name":"a","port":1,"protocol":"TCP"}]}}`},
		{Name: "a new item has no old self", Method: "PATCH", Path: widgetsPath + "/w", ContentType: mergePatch,
			Body: `{"spec":{"ports":[{"name":"b","port":3,"protocol":"TCP"},{"name":"a","port":1,"protocol":"TCP"},{"name":"c","port":4,"protocol":"SCTP"}]}}`},
		{Name: "duplicate key", Method: "PATCH", Path: widgetsPath + "/w", ContentType: mergePatch,
			Body: `{"spec":{"ports":[{"name":"a","port":1,"protocol":"TCP"},{"name":"a","port":5,"protocol":"TCP"}]}}`},
	}},
}

// listMapSpec has a list-map of ports keyed by name, whose items have a rule (port > 0) and a
// transition rule (protocol == oldSelf.protocol): items are correlated with their old selves by
// key, whatever their index.
const listMapSpec = `{"type":"object","properties":{"ports":{"type":"array","maxItems":8,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
 "items":{"type":"object","required":["name"],
  "x-kubernetes-validations":[{"rule":"self.port > 0","message":"port must be positive"},{"rule":"self.protocol == oldSelf.protocol","message":"protocol is immutable"}],
  "properties":{"name":{"type":"string","maxLength":16},"port":{"type":"integer"},"protocol":{"type":"string","maxLength":8}}}}}}`
