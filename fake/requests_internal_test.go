package fake

import (
	"net/url"
	"testing"
)

// FuzzQueryAttributes compares queryAttributesOf, called twice (the second from its memo for a
// query it remembers), with the parameters of the whole parse (r.URL.Query()), for queries that
// hold them, spell them escaped, repeat them, or hold none.
func FuzzQueryAttributes(f *testing.F) {
	for _, q := range []string{
		"", "fieldManager=bench&force=true", "resourceVersion=5", "watch=true", "watch=1&resourceVersion=0",
		"resource%56ersion=7", "%77atch=true", "resourceVersion=1;watch=true", "watch", "fieldManager",
		"x=watch", "fieldManager=%zz", "fieldManager=a&fieldManager=b", "watch+=true", "field%4Danager=c",
		"fieldManager=a+b&dryRun=All", "fieldManager=a;b",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw)
		want := queryAttributes{resourceVersion: q.Get("resourceVersion"), watch: q.Get("watch"), fieldManager: q.Get("fieldManager")}
		for i := range 2 {
			if got := queryAttributesOf(raw); got != want {
				t.Errorf("%q, call %d: %+v, want %+v", raw, i, got, want)
			}
		}
	})
}

// TestQueryAttributesAllocs reads client-go's apply query again: the memo answers without
// allocating.
func TestQueryAttributesAllocs(t *testing.T) {
	const raw = "fieldManager=bench&force=true"
	queryAttributesOf(raw)
	if n := testing.AllocsPerRun(100, func() { queryAttributesOf(raw) }); n != 0 {
		t.Errorf("%v allocations per read, want 0", n)
	}
}
