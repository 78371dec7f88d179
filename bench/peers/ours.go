package peers

import (
	"context"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/watchcache"
)

// NewOurs builds a watchcache.Cache of pods from raw (Replace at rv) with a spec.nodeName field
// index and one label index per labelIndexes key. The cache keeps the raw slices.
func NewOurs(raw [][]byte, rv uint64, opts watchcache.Options, labelIndexes ...string) (*watchcache.Cache, error) {
	opts.Resource = watchcache.Resource{Name: "pods", Namespaced: true}
	c := watchcache.New(opts)
	if err := AddOurIndexes(c, labelIndexes...); err != nil {
		return nil, err
	}
	if err := c.Replace(raw, rv); err != nil {
		return nil, err
	}
	return c, nil
}

// AddOurIndexes registers the indexes the benchmarks use: field spec.nodeName (the apiserver's own
// pod index and watch trigger) and the given label keys.
func AddOurIndexes(c *watchcache.Cache, labelIndexes ...string) error {
	if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
		return err
	}
	for _, k := range labelIndexes {
		if err := c.AddIndex(index.Spec{Kind: index.Label, Name: k}); err != nil {
			return err
		}
	}
	return nil
}

// OursList runs q against c at resourceVersion rv ("" consistent, "0" any).
func OursList(ctx context.Context, c *watchcache.Cache, q Query, rv string) (*watchcache.ListResult, error) {
	return c.List(ctx, watchcache.ListOptions{
		LabelSelector:   q.LabelSelector,
		FieldSelector:   q.FieldSelector,
		ResourceVersion: rv,
		Limit:           q.Limit,
		Continue:        q.Continue,
	})
}

// OurKeys returns "<namespace>/<name>" of each item (tests only: it parses every item).
func OurKeys(items [][]byte) []string {
	out := make([]string, len(items))
	for i, it := range items {
		r := gjson.GetManyBytes(it, "metadata.namespace", "metadata.name")
		out[i] = r[0].String() + "/" + r[1].String()
	}
	return out
}

// OurVersions returns "<namespace>/<name>@<uid>/<generation>" of each item: the generator bumps
// metadata.generation on every version and the uid on every re-creation, so this tells versions
// of one pod apart (tests only).
func OurVersions(items [][]byte) []string {
	out := make([]string, len(items))
	for i, it := range items {
		r := gjson.GetManyBytes(it, "metadata.namespace", "metadata.name", "metadata.uid", "metadata.generation")
		out[i] = fmt.Sprintf("%s/%s@%s/%d", r[0].String(), r[1].String(), r[2].String(), r[3].Int())
	}
	return out
}
