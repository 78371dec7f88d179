package fake

import (
	"mime"
	"net/url"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestReadPatchOptions compares readPatchOptions, read twice (the second from its memo when the
// first was valid), with the parameter codec and ValidatePatchOptions called on every read.
func TestReadPatchOptions(t *testing.T) {
	queries := []string{
		"",
		"fieldManager=bench&force=true",
		"fieldManager=bench&force=false",
		"force=true",
		"fieldManager=bench",
		"fieldManager=a%09b",
		"fieldManager=x&dryRun=All",
		"fieldManager=x&dryRun=Some",
		"fieldManager=x&dryRun=",
		"fieldManager=x&fieldValidation=Strict",
		"fieldManager=x&fieldValidation=strict",
		"fieldManager=x&fieldValidation=Warn&fieldValidation=Ignore",
		"fieldManager=x&force=yes",
		"fieldManager=x&force=",
		"fieldManager=x;force=true",
		"fieldManager=%zz",
		"fieldManager=x&unknown=1",
	}
	for _, q := range queries {
		for _, pt := range []types.PatchType{types.ApplyYAMLPatchType, types.MergePatchType, types.JSONPatchType, types.StrategicMergePatchType} {
			var want metav1.PatchOptions
			values, _ := url.ParseQuery(q)
			var wantErr error
			if err := scheme.ParameterCodec.DecodeParameters(values, optionsVersion, &want); err != nil {
				wantErr = apierrors.NewBadRequest(err.Error())
			} else if errs := metav1validation.ValidatePatchOptions(&want, pt); len(errs) > 0 {
				wantErr = apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("PatchOptions").GroupKind(), "", errs)
			}
			if wantErr != nil {
				want = metav1.PatchOptions{}
			}
			for i := range 2 {
				got, err := readPatchOptions(q, pt)
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
					t.Errorf("%q %s, read %d: got %#v, %v\nwant %#v, %v", q, pt, i, got, err, want, wantErr)
				}
			}
		}
	}
}

// TestReadPatchOptionsAllocs reads client-go's apply options again: the memo answers without
// allocating.
func TestReadPatchOptionsAllocs(t *testing.T) {
	const q = "fieldManager=bench&force=true"
	if _, err := readPatchOptions(q, types.ApplyYAMLPatchType); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { readPatchOptions(q, types.ApplyYAMLPatchType) }); n != 0 {
		t.Errorf("%v allocations per read, want 0", n)
	}
}

// TestReadPatchOptionsFull fills the memo past its slots: it starts again empty, and still
// answers as the codec does.
func TestReadPatchOptionsFull(t *testing.T) {
	for i := range 3 * patchOptionsSlots {
		q := url.Values{"fieldManager": {string(rune('a'+i%26)) + string(rune('a'+i/26))}}.Encode()
		opts, err := readPatchOptions(q, types.ApplyYAMLPatchType)
		if err != nil || opts.FieldManager != string(rune('a'+i%26))+string(rune('a'+i/26)) {
			t.Fatalf("%q: %+v, %v", q, opts, err)
		}
	}
	patchOptionsSeen.mu.RLock()
	defer patchOptionsSeen.mu.RUnlock()
	if n := len(patchOptionsSeen.m); n > patchOptionsSlots {
		t.Errorf("%d options kept, want at most %d", n, patchOptionsSlots)
	}
}

// TestPatchTypeOf pins what patchTypeOf's shortcut relies on: each of patchTypes' keys is its own
// media type, without parameters, and a header spelled otherwise is read by its media type.
func TestPatchTypeOf(t *testing.T) {
	for key, want := range patchTypes {
		mt, params, err := mime.ParseMediaType(key)
		if err != nil || mt != key || len(params) != 0 {
			t.Errorf("%q: media type %q, parameters %v, %v", key, mt, params, err)
		}
		for _, h := range []string{key, key + "; charset=utf-8", " " + key, "Application/" + key[len("application/"):]} {
			if got, ok := patchTypeOf(h); !ok || got != want {
				t.Errorf("%q: %q, %v, want %q", h, got, ok, want)
			}
		}
	}
	for _, h := range []string{"", "application/json", "text/plain; x", "application/merge-patch+json;;"} {
		mt, _, _ := mime.ParseMediaType(h)
		want, wantOK := patchTypes[mt]
		if got, ok := patchTypeOf(h); got != want || ok != wantOK {
			t.Errorf("%q: %q, %v, want %q, %v", h, got, ok, want, wantOK)
		}
	}
}
