package watchcache

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/watchcache/watchcache/index"
)

// Property: for random event sequences and selectors, List at RV a followed by the
// events of Watch from a up to b, applied to a map, equals List at RV b.
func TestWatchListProperty(t *testing.T) {
	selectors := []struct{ label, field string }{
		{"", ""},
		{"app=web", ""},
		{"", "spec.nodeName=n1"},
		{"app in (web,db)", "spec.nodeName!=n2"},
		{"app=db", "spec.nodeName=n0,metadata.namespace=ns-1"},
		{"!app", ""},
	}
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			c := newPodCache(t, func(o *Options) { o.BookmarkInterval = 5 * time.Millisecond })
			defer c.Stop()
			if err := c.Replace(nil, 1); err != nil {
				t.Fatal(err)
			}
			if seed%2 == 0 {
				_ = c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
				_ = c.AddIndex(index.Spec{Kind: index.Label, Name: "app"})
			}
			live := map[string]bool{}
			rv := uint64(1)
			for range 300 {
				rv += uint64(1 + rng.Intn(3))
				ns, name := fmt.Sprint("ns-", rng.Intn(3)), fmt.Sprint("p", rng.Intn(25))
				key := ns + "/" + name
				switch {
				case live[key] && rng.Intn(4) == 0:
					mustApply(t, c, Deleted, pod(ns, name, "", "", 0), rv)
					delete(live, key)
				case rng.Intn(10) == 0:
					mustApply(t, c, Bookmark, nil, rv)
				default:
					labels := []string{"", "app=web", "app=db", "app=x"}[rng.Intn(4)]
					mustApply(t, c, Modified, pod(ns, name, fmt.Sprint("n", rng.Intn(3)), labels, 0), rv)
					live[key] = true
				}
			}
			for q := range 20 {
				sel := selectors[rng.Intn(len(selectors))]
				a := 1 + uint64(rng.Int63n(int64(rv)))
				b := a + uint64(rng.Int63n(int64(rv-a+1)))
				lo := ListOptions{LabelSelector: sel.label, FieldSelector: sel.field, ResourceVersionMatch: MatchExact}
				lo.ResourceVersion = fmt.Sprint(a)
				model := map[string]string{}
				for _, it := range mustList(t, c, lo).Items {
					model[names([][]byte{it})[0]] = string(it)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				w, err := c.Watch(ctx, WatchOptions{ResourceVersion: fmt.Sprint(a), LabelSelector: sel.label, FieldSelector: sel.field, AllowWatchBookmarks: true})
				if err != nil {
					t.Fatal(err)
				}
			events:
				for ev := range w.Events() {
					switch {
					case ev.Type == Error:
						t.Fatalf("query %d: %v", q, ev.Err)
					case ev.ResourceVersion > b:
						break events
					case ev.Type == Bookmark:
						if ev.ResourceVersion >= b {
							break events
						}
					case ev.Type == Deleted:
						delete(model, names([][]byte{ev.Object})[0])
					default:
						model[names([][]byte{ev.Object})[0]] = string(ev.Object)
					}
				}
				cancel()
				for range w.Events() {
				}
				lo.ResourceVersion = fmt.Sprint(b)
				want := map[string]string{}
				for _, it := range mustList(t, c, lo).Items {
					want[names([][]byte{it})[0]] = string(it)
				}
				if !reflect.DeepEqual(model, want) {
					t.Fatalf("query %d (%+v) a=%d b=%d: list(a)+watch = %d objects, list(b) = %d", q, sel, a, b, len(model), len(want))
				}
			}
		})
	}
}
