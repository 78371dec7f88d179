package fake

import (
	"net/url"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// A PATCH's options cost a ConfigMap's apply some fifteen allocations of its five hundred: the
// query parsed into url.Values, the parameter codec's conversion, and ValidatePatchOptions, which
// builds a field path for every check before it makes it. A client sends the same query with
// every write of a kind (client-go's apply: fieldManager and force), so patchOptionsSeen keeps
// the answers to the queries it has read.

// patchOptionsKey is what readPatchOptions' answer is a function of: the raw query, which
// url.ParseQuery and then the parameter codec (a conversion into a zero PatchOptions, of one
// fixed version) read and nothing else, and the patch type, which ValidatePatchOptions reads
// with the options and nothing else.
type patchOptionsKey struct {
	query string
	pt    types.PatchType
}

// patchOptionsSlots bounds the queries patchOptionsMemo keeps: a few per field manager and patch
// type a test's clients use. A memo that fills up starts again empty, so that a client that
// varies its query (a new dry run, a new manager each write) costs a map's worth of memory at most.
const patchOptionsSlots = 64

// patchOptionsMemo maps a query and patch type to the options readPatchOptions decoded from
// them, when they were valid; invalid ones are decoded again each time, for their errors. Safe
// for concurrent use. The options it holds and returns are never changed: their Force and
// DryRun are shared by every request that gets them, which only reads them.
type patchOptionsMemo struct {
	mu sync.RWMutex
	m  map[patchOptionsKey]metav1.PatchOptions
}

// patchOptionsSeen is the process's memo of PATCH options.
var patchOptionsSeen = &patchOptionsMemo{}

// get returns the options kept for k.
func (m *patchOptionsMemo) get(k patchOptionsKey) (metav1.PatchOptions, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	opts, ok := m.m[k]
	return opts, ok
}

// put keeps opts for k, emptying the memo first when it is full.
func (m *patchOptionsMemo) put(k patchOptionsKey, opts metav1.PatchOptions) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= patchOptionsSlots {
		m.m = make(map[patchOptionsKey]metav1.PatchOptions, patchOptionsSlots)
	}
	m.m[k] = opts
}

// readPatchOptions decodes a PATCH request's options from its raw query with the parameter codec
// and validates them for patch type pt (metav1validation.ValidatePatchOptions), answering with
// the 400 or the 422 the apiserver answers with. The options returned must not be changed.
func readPatchOptions(rawQuery string, pt types.PatchType) (metav1.PatchOptions, error) {
	k := patchOptionsKey{rawQuery, pt}
	if opts, ok := patchOptionsSeen.get(k); ok {
		return opts, nil
	}
	var opts metav1.PatchOptions
	query, _ := url.ParseQuery(rawQuery) // as URL.Query: what parses, whatever does not
	if err := scheme.ParameterCodec.DecodeParameters(query, optionsVersion, &opts); err != nil {
		return metav1.PatchOptions{}, apierrors.NewBadRequest(err.Error())
	}
	if errs := metav1validation.ValidatePatchOptions(&opts, pt); len(errs) > 0 {
		return metav1.PatchOptions{}, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	patchOptionsSeen.put(k, opts)
	return opts, nil
}
