package patch

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// optionsKey is what validateOptions' answer is a function of: the PatchOptions it validates are
// made of the field manager, the field validation and force, and ValidatePatchOptions reads
// nothing but them and the patch type.
type optionsKey struct {
	manager, validation string
	force               bool
	typ                 types.PatchType
}

// optionsSlots bounds the option sets optionsMemo keeps: a few per field manager a test's
// clients use. A memo that fills up starts again empty, so that a client using a new manager
// each write costs a map's worth of memory at most.
const optionsSlots = 64

// optionsMemo is the set of options validateOptions found valid; invalid ones are validated again
// each time, for their errors. Safe for concurrent use.
type optionsMemo struct {
	mu sync.RWMutex
	m  map[optionsKey]struct{}
}

// validOptions is the process's memo of valid patch options.
var validOptions = &optionsMemo{}

// has reports whether k was found valid.
func (m *optionsMemo) has(k optionsKey) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.m[k]
	return ok
}

// add remembers k as valid, emptying the memo first when it is full.
func (m *optionsMemo) add(k optionsKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= optionsSlots {
		m.m = make(map[optionsKey]struct{}, optionsSlots)
	}
	m.m[k] = struct{}{}
}
