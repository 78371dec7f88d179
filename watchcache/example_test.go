package watchcache_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/watchcache"
)

// A cache of pods: a re-list makes it ready, an index on spec.nodeName serves the node's pages,
// a continue token resumes the list at the first page's snapshot while events arrive, and a watch
// from the page's resourceVersion sees what changed since.
func Example() {
	ctx := context.Background()
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	defer c.Stop()

	_, err := c.List(ctx, watchcache.ListOptions{})
	fmt.Println("before the first list:", errors.Is(err, watchcache.ErrNotReady))

	pod := func(name, node string, rv int) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"shop","resourceVersion":"%d"},"spec":{"nodeName":%q}}`, name, rv, node)
	}
	if err := c.Replace([][]byte{pod("a", "node-1", 1), pod("b", "node-2", 2), pod("c", "node-1", 3), pod("d", "node-1", 4)}, 10); err != nil {
		panic(err)
	}
	if err := c.AddIndex(watchcache.FieldIndex("spec.nodeName")); err != nil {
		panic(err)
	}

	opts := watchcache.ListOptions{FieldSelector: "spec.nodeName=node-1", Limit: 2}
	page, err := c.List(ctx, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println("page 1:", names(page.Items), "at RV", page.ResourceVersion)

	// d moves to node-2 after the first page; the next page still reads the first page's snapshot.
	if err := c.Apply(watchcache.Event{Type: watchcache.Modified, Object: pod("d", "node-2", 11), ResourceVersion: 11}); err != nil {
		panic(err)
	}
	opts.Continue = page.Continue
	next, err := c.List(ctx, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println("page 2:", names(next.Items), "at RV", next.ResourceVersion, "last:", next.Continue == "")

	// A watch of node-1 from the first page's RV: d left the selection, so it is DELETED for it.
	w, err := c.Watch(ctx, watchcache.WatchOptions{FieldSelector: "spec.nodeName=node-1", ResourceVersion: strconv.FormatUint(page.ResourceVersion, 10)})
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	ev := <-w.Events()
	fmt.Println("watch:", ev.Type, names([][]byte{ev.Object}), ev.ResourceVersion)

	_, err = c.List(ctx, watchcache.ListOptions{FieldSelector: "spec.nodeName"})
	fmt.Println(err, errors.Is(err, watchcache.ErrInvalidSelector))
	// Output:
	// before the first list: true
	// page 1: [a c] at RV 10
	// page 2: [d] at RV 10 last: true
	// watch: DELETED [d] 11
	// invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName' true
}

func names(items [][]byte) []string {
	var out []string
	for _, it := range items {
		out = append(out, gjson.GetBytes(it, "metadata.name").String())
	}
	return out
}
