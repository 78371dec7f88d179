package patch

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// reapply converts the applied configuration and the live object to typed values before the
// bare field manager's apply, which converts the same objects again, with the same converter
// and options: on a ConfigMap's apply, a tenth of the field management. converted hands the
// apply the values reapply made. A conversion only reads its object, and nothing changes the
// objects between the two, so the value made first is the one the second conversion would make.

// converted holds the typed values made of objects that a field manager call in progress is
// about to convert again, keyed by the object (a pointer) and whether duplicates were allowed.
// The caller that remembers a value forgets it when its call returns, so that an entry never
// outlives its object and no other call, holding other objects, can find it. Safe for
// concurrent use.
//
// The entries are a slice under a mutex rather than a sync.Map: a call holds at most two of
// them, so the slice holds at most twice the applies in progress (32 with 16 writers), a scan of
// it costs less than a map's hashing, and remembering allocates nothing once the slice has
// grown, where a sync.Map allocates its entry and the boxed key.
type converted struct {
	mu      sync.Mutex
	entries []convertedEntry
}

// convertedEntry is one remembered conversion.
type convertedEntry struct {
	key convertedKey
	tv  *typed.TypedValue
}

type convertedKey struct {
	obj  runtime.Object
	dups bool
}

// keyOf returns the key of obj converted with opts, or false when the conversion is not one that
// converted keeps: options other than none or typed.AllowDuplicates alone, or an object that is
// not a pointer (whose identity says nothing of its content).
func keyOf(obj runtime.Object, opts []typed.ValidationOptions) (convertedKey, bool) {
	if obj == nil || reflect.TypeOf(obj).Kind() != reflect.Pointer {
		return convertedKey{}, false
	}
	switch {
	case len(opts) == 0:
		return convertedKey{obj: obj}, true
	case len(opts) == 1 && opts[0] == typed.AllowDuplicates:
		return convertedKey{obj: obj, dups: true}, true
	}
	return convertedKey{}, false
}

// remember keeps tv as obj's conversion with opts until forget is called with the same object
// and options; a nil tv is not kept. It reports whether it kept tv.
func (c *converted) remember(obj runtime.Object, tv *typed.TypedValue, opts ...typed.ValidationOptions) bool {
	k, ok := keyOf(obj, opts)
	if !ok || tv == nil {
		return false
	}
	c.mu.Lock()
	c.entries = append(c.entries, convertedEntry{k, tv})
	c.mu.Unlock()
	return true
}

// forget drops the conversion of obj with opts that remember kept.
func (c *converted) forget(obj runtime.Object, opts ...typed.ValidationOptions) {
	k, ok := keyOf(obj, opts)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == k {
			last := len(c.entries) - 1
			c.entries[i] = c.entries[last]
			c.entries[last] = convertedEntry{} // the object and its value are not kept alive
			c.entries = c.entries[:last]
			return
		}
	}
}

// load returns the conversion of obj with opts that a call in progress remembered.
func (c *converted) load(obj runtime.Object, opts []typed.ValidationOptions) (*typed.TypedValue, bool) {
	k, ok := keyOf(obj, opts)
	if !ok {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == k {
			return e.tv, true
		}
	}
	return nil, false
}

// len returns the number of conversions remembered.
func (c *converted) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
