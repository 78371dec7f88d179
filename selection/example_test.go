package selection_test

import (
	"errors"
	"fmt"

	"github.com/watchcache/watchcache/selection"
)

// A cache extracts each object once when it arrives, then answers every query from the
// extracted values.
func Example() {
	schema := selection.PodSchema()
	// A field the apiserver does not offer, registered at runtime (like a CRD selectable field).
	schema, err := schema.WithField("status.ready", `status.conditions.#(type=="Ready").status`)
	if err != nil {
		panic(err)
	}

	raw := []byte(`{"metadata":{"name":"web-1","namespace":"shop","resourceVersion":"42","labels":{"tier":"frontend","app":"web"}},
		"spec":{"nodeName":"node-7"},
		"status":{"phase":"Running","podIPs":[{"ip":"10.0.0.9"}],"conditions":[{"type":"Ready","status":"True"}]}}`)
	obj, err := schema.Extract(raw) // obj's strings alias raw: never modify raw afterwards
	if err != nil {
		panic(err)
	}
	fmt.Println(obj.Namespace, obj.Name, obj.ResourceVersion, obj.Labels)

	labels, _ := selection.ParseLabels("app=web,tier in (frontend,backend)")
	fields, _ := schema.ParseFields("spec.host=node-7,status.ready=True,status.podIP!=")
	fmt.Println(fields, fields.Matches(obj.Fields) && labels.Matches(obj.Labels))

	// An index on spec.nodeName can serve the query; the predicate filters what it returns.
	node, _ := fields.Requires("spec.nodeName")
	fmt.Println("index spec.nodeName =", node)

	_, err = schema.ParseFields("spec.containers=web")
	fmt.Println(err, errors.Is(err, selection.ErrUnsupportedField))
	_, err = schema.ParseFields("spec.nodeName")
	fmt.Println(err, errors.Is(err, selection.ErrInvalidSelector))
	// Output:
	// shop web-1 42 app=web,tier=frontend
	// spec.nodeName=node-7,status.podIP!=,status.ready=True true
	// index spec.nodeName = node-7
	// field label not supported: spec.containers true
	// invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName' true
}
