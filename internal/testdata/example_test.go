package testdata_test

import (
	"encoding/json"
	"fmt"

	"github.com/watchcache/watchcache/internal/testdata"
)

func Example() {
	g := testdata.New(testdata.Config{Pods: 3, Seed: 1})

	// The initial state: pods 0..Pods-1 at version 0.
	for i := range g.Config().Pods {
		obj := g.Pod(i, uint64(i+1))
		fmt.Println(g.PodNamespace(i), g.PodName(i), json.Valid(obj))
	}

	// A stream of changes over them, one resourceVersion each.
	c := g.NewChurn(1)
	ch := c.Next(4)
	var meta struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	_ = json.Unmarshal(ch.Object, &meta)
	fmt.Println(ch.Type, ch.Namespace, ch.Name, meta.Metadata.ResourceVersion)
	// Output:
	// ns-0 pod-000000 true
	// ns-1 pod-000001 true
	// ns-2 pod-000002 true
	// MODIFIED ns-0 pod-000000 4
}
