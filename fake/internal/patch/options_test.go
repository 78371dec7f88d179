package patch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestValidateOptions compares validateOptions, called twice (the second from its memo when the
// first found the options valid), with the validation without the memo.
func TestValidateOptions(t *testing.T) {
	for _, manager := range []string{"", "bench", "a\tb", strings.Repeat("m", 129)} {
		for _, validation := range []string{"", "Strict", "Warn", "Ignore", "strict"} {
			for _, force := range []bool{false, true} {
				for _, typ := range []types.PatchType{types.ApplyPatchType, types.MergePatchType, types.JSONPatchType, types.StrategicMergePatchType} {
					req := Request{FieldManager: manager, FieldValidation: validation, Force: force, Type: typ}
					want := validateOptionsOnce(req)
					for i := range 2 {
						if got := validateOptions(req); !reflect.DeepEqual(got, want) {
							t.Errorf("%q %q %v %s, call %d: %v, want %v", manager, validation, force, typ, i, got, want)
						}
					}
				}
			}
		}
	}
}

// TestValidateOptionsAllocs validates client-go's apply options again: the memo answers without
// allocating.
func TestValidateOptionsAllocs(t *testing.T) {
	req := Request{FieldManager: "bench", Force: true, Type: types.ApplyPatchType}
	if err := validateOptions(req); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { validateOptions(req) }); n != 0 {
		t.Errorf("%v allocations per validation, want 0", n)
	}
}

// TestValidateOptionsFull fills the memo past its slots: it starts again empty, and still
// answers as the validation does.
func TestValidateOptionsFull(t *testing.T) {
	for i := range 3 * optionsSlots {
		req := Request{FieldManager: fmt.Sprint("m", i), Type: types.ApplyPatchType}
		if err := validateOptions(req); err != nil {
			t.Fatal(err)
		}
	}
	validOptions.mu.RLock()
	defer validOptions.mu.RUnlock()
	if n := len(validOptions.m); n > optionsSlots {
		t.Errorf("%d option sets kept, want at most %d", n, optionsSlots)
	}
}
