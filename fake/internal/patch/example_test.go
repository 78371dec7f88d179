package patch_test

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// Two managers apply the same field of a ConfigMap: the second gets the apiserver's 409 with one
// cause per conflicting field, and takes the field over with force.
func Example() {
	p, err := patch.New(scheme.Scheme)
	if err != nil {
		panic(err)
	}
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	apply := func(current []byte, manager, value string, force bool) ([]byte, error) {
		return p.Patch(current, patch.Request{
			GVK: cm, Type: types.ApplyPatchType, FieldManager: manager, Force: force,
			Name: "settings", Namespace: "default", Resource: schema.GroupResource{Resource: "configmaps"},
			Patch: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: " + value + "\n"),
		})
	}
	stored, err := apply(nil, "alice", "fast", false) // creates the object
	if err != nil {
		panic(err)
	}
	_, err = apply(stored, "bob", "slow", false)
	se := err.(*apierrors.StatusError).ErrStatus
	fmt.Println(se.Code, se.Reason, se.Details.Causes[0].Field)
	fmt.Println(se.Message)
	if _, err := apply(stored, "bob", "slow", true); err == nil {
		fmt.Println("forced")
	}
	// Output:
	// 409 Conflict .data.mode
	// Apply failed with 1 conflict: conflict with "alice": .data.mode
	// forced
}
