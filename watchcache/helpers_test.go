package watchcache

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// pod returns a small pod JSON. labels is "k=v,k2=v2" ("" for none).
func pod(ns, name, node, labels string, rv uint64) []byte {
	var lb strings.Builder
	if labels != "" {
		lb.WriteString(`,"labels":{`)
		for i, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if i > 0 {
				lb.WriteByte(',')
			}
			fmt.Fprintf(&lb, "%q:%q", k, v)
		}
		lb.WriteByte('}')
	}
	rvs := ""
	if rv > 0 {
		rvs = fmt.Sprintf(`,"resourceVersion":"%d"`, rv)
	}
	nodeField := ""
	if node != "" {
		nodeField = fmt.Sprintf(`"nodeName":%q,`, node)
	}
	return fmt.Appendf(nil, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":%q%s%s},"spec":{%s"restartPolicy":"Always"},"status":{"phase":"Running"}}`,
		name, ns, rvs, lb.String(), nodeField)
}

func newPodCache(t testing.TB, opts ...func(*Options)) *Cache {
	t.Helper()
	o := Options{Resource: Resource{Name: "pods", Namespaced: true}, WaitTimeout: 100 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	return New(o)
}

func mustApply(t testing.TB, c *Cache, typ EventType, obj []byte, rv uint64) {
	t.Helper()
	if err := c.Apply(Event{Type: typ, Object: obj, ResourceVersion: rv}); err != nil {
		t.Fatalf("Apply(%s, rv %d): %v", typ, rv, err)
	}
}

// names returns "ns/name" of each item.
func names(items [][]byte) []string {
	out := make([]string, len(items))
	for i, it := range items {
		r := gjson.ParseBytes(it)
		ns := r.Get("metadata.namespace").String()
		if ns != "" {
			out[i] = ns + "/" + r.Get("metadata.name").String()
		} else {
			out[i] = r.Get("metadata.name").String()
		}
	}
	return out
}

func mustList(t testing.TB, c *Cache, o ListOptions) *ListResult {
	t.Helper()
	res, err := c.List(context.Background(), o)
	if err != nil {
		t.Fatalf("List(%+v): %v", o, err)
	}
	return res
}

// listAll pages through a list with the given options, returning every item and each page's RV.
func listAll(t testing.TB, c *Cache, o ListOptions) ([]string, []uint64) {
	t.Helper()
	var all []string
	var rvs []uint64
	for {
		res := mustList(t, c, o)
		all = append(all, names(res.Items)...)
		rvs = append(rvs, res.ResourceVersion)
		if res.Continue == "" {
			return all, rvs
		}
		o.Continue, o.ResourceVersion, o.ResourceVersionMatch = res.Continue, "", ""
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func decodeToken(t testing.TB, tok string) map[string]any {
	t.Helper()
	data, err := rawURL.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func getPath(obj []byte, path string) string { return gjson.GetBytes(obj, path).String() }

// changeLog is a writer's log of the changes it applies, which concurrent readers replay to rebuild
// the state at the RV a list answered with. The writer logs a change before applying it, so a
// reader that sees an RV in the cache finds it in the log.
type changeLog struct {
	mu      sync.Mutex
	changes []loggedChange
}

// loggedChange is one change of one key: its new gen label, or "" for a deletion.
type loggedChange struct {
	rv  uint64
	key string
	gen string
}

func (l *changeLog) add(e loggedChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes = append(l.changes, e)
}

// at replays the log up to rv: each live key's last change.
func (l *changeLog) at(rv uint64) map[string]loggedChange {
	m := map[string]loggedChange{}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.changes {
		if e.rv > rv {
			break
		}
		if e.gen == "" {
			delete(m, e.key)
		} else {
			m[e.key] = e
		}
	}
	return m
}

// collectAll returns the items of the plan's range in v that pred selects, without a limit.
func collectAll(v view, pl plan, pred *predicate) [][]byte {
	cl := collector{pred: *pred, rv: v.at()}
	page(v, pl, &cl)
	return cl.items
}
