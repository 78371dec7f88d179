package conformance_test

import (
	"fmt"

	"github.com/watchcache/watchcache/conformance"
)

// A continue token from a real kube-apiserver 1.37.2 (reference/observed-kube-apiserver.md).
func ExampleDecodeToken() {
	tok, err := conformance.DecodeToken("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s rv=%d start=%q\n", tok.Version, tok.RV, tok.Start)
	tok.RV = -1 // the "inconsistent continue" token of a 410 (rule 2.9)
	fmt.Println(tok.Encode())
	// Output:
	// meta.k8s.io/v1 rv=2089 start="/ns-0/pod-000020\x00"
	// eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiL25zLTAvcG9kLTAwMDAyMFx1MDAwMCJ9
}

func ExampleRules() {
	for _, name := range conformance.Rules()[:3] {
		fmt.Println(name)
	}
	// Output:
	// 0.1-0.5/list-validation
	// 0.6/watch-validation
	// 0.1/validation-before-field-conversion
}
