package watchcache

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// cacheHistory is a History backed by another cache whose window covers every RV: Exact lists of it
// are the truth the History path must reproduce.
type cacheHistory struct {
	c         *Cache
	compacted uint64 // revisions below it are compacted
	ranges    int
}

func (h *cacheHistory) objects(rv uint64, from, prefix string) ([]Object, error) {
	if rv < h.compacted {
		return nil, fmt.Errorf("etcd says so: %w", ErrHistoryCompacted)
	}
	res, err := h.c.List(context.Background(), ListOptions{ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: MatchExact})
	if err != nil {
		return nil, err
	}
	var out []Object
	for _, obj := range res.Items {
		key := objectKey(getPath(obj, "metadata.namespace"), getPath(obj, "metadata.name"))
		if key >= from && strings.HasPrefix(key, prefix) {
			out = append(out, Object{Raw: obj}) // unkeyed: the metadata decides (keyed: TestKeyedHistory)
		}
	}
	return out, nil
}

func (h *cacheHistory) Range(_ context.Context, rv uint64, from, prefix string, fn func(string, []byte) bool) error {
	h.ranges++
	objs, err := h.objects(rv, from, prefix)
	for _, o := range objs {
		if !fn(o.Key, o.Raw) {
			break
		}
	}
	return err
}

func (h *cacheHistory) Count(_ context.Context, rv uint64, after, prefix string) (int64, error) {
	objs, err := h.objects(rv, after+"\x00", prefix)
	return int64(len(objs)), err
}

// TestListFromHistory (rule 1.3): Exact lists and continue tokens older than the window are served
// from the History — the same items, in pages, with selectors, remainingItemCount and continue
// tokens in the etcd path's form — and a compacted history gives the 410s of rules 1.18 and 2.9.
func TestListFromHistory(t *testing.T) {
	truth := newPodCache(t, func(o *Options) { o.WindowEvents = 10_000; o.WindowAge = -1 })
	h := &cacheHistory{c: truth}
	small := newPodCache(t, func(o *Options) { o.WindowEvents = 1; o.History = h })
	rng := rand.New(rand.NewSource(7))
	var objs [][]byte
	for i := range 30 {
		objs = append(objs, pod(fmt.Sprint("ns-", i%3), fmt.Sprintf("p%02d", i), fmt.Sprint("n", i%4), "app=a"+strconv.Itoa(i%2), 10))
	}
	for _, c := range []*Cache{truth, small} {
		if err := c.Replace(objs, 10); err != nil {
			t.Fatal(err)
		}
	}
	for rv := uint64(11); rv <= 60; rv++ {
		i := rng.Intn(30)
		obj := pod(fmt.Sprint("ns-", i%3), fmt.Sprintf("p%02d", i), fmt.Sprint("n", rng.Intn(4)), "app=a"+strconv.Itoa(rng.Intn(2)), rv)
		for _, c := range []*Cache{truth, small} {
			mustApply(t, c, Modified, obj, rv)
		}
	}
	ctx := context.Background()
	for _, rv := range []uint64{10, 25, 42, 59} {
		for _, o := range []ListOptions{
			{},
			{Namespace: "ns-1"},
			{FieldSelector: "spec.nodeName=n1"},
			{LabelSelector: "app=a1", FieldSelector: "metadata.namespace=ns-2"},
			{FieldSelector: "metadata.name=p04", Namespace: "ns-1"},
		} {
			name := fmt.Sprintf("rv=%d/%+v", rv, o)
			o.ResourceVersion, o.ResourceVersionMatch = strconv.FormatUint(rv, 10), MatchExact
			want, err := truth.List(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			// One unlimited list, then the same in pages of 4 through the tokens.
			got, err := small.List(ctx, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(names(got.Items), names(want.Items)) || got.ResourceVersion != rv || got.Continue != "" {
				t.Fatalf("%s: got %v at %d (continue %q), want %v", name, names(got.Items), got.ResourceVersion, got.Continue, names(want.Items))
			}
			var paged []string
			po := o
			po.Limit = 4
			wantPage, err := truth.List(ctx, po)
			if err != nil {
				t.Fatal(err)
			}
			for page := 0; ; page++ {
				res, err := small.List(ctx, po)
				if err != nil {
					t.Fatalf("%s page %d: %v", name, page, err)
				}
				paged = append(paged, names(res.Items)...)
				// Same page boundaries, counts and token presence as a snapshot read (rules 2.6, 2.7).
				if !reflect.DeepEqual(names(res.Items), names(wantPage.Items)) || (res.Continue == "") != (wantPage.Continue == "") ||
					!sameCount(res.RemainingItemCount, wantPage.RemainingItemCount) {
					t.Fatalf("%s page %d: got %v (continue %v, remaining %v), want %v (continue %v, remaining %v)", name, page,
						names(res.Items), res.Continue != "", res.RemainingItemCount, names(wantPage.Items), wantPage.Continue != "", wantPage.RemainingItemCount)
				}
				if res.Continue == "" {
					break
				}
				tok := decodeToken(t, res.Continue)
				if start := tok["start"].(string); strings.HasPrefix(start, "/") || tok["rv"].(float64) != float64(rv) {
					t.Fatalf("%s: token %v, want the etcd form (no leading /) at rv %d", name, tok, rv)
				}
				po = ListOptions{Namespace: o.Namespace, LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: 4, Continue: res.Continue}
				if wantPage, err = truth.List(ctx, ListOptions{Namespace: o.Namespace, LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: 4, Continue: wantPage.Continue}); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(paged, names(want.Items)) {
				t.Fatalf("%s: pages gave %v, want %v", name, paged, names(want.Items))
			}
		}
	}
	if h.ranges == 0 {
		t.Fatal("the History was never read")
	}

	// The newest state is still read from the window, not the History.
	h.ranges = 0
	if _, err := small.List(ctx, ListOptions{ResourceVersion: "60", ResourceVersionMatch: MatchExact}); err != nil || h.ranges != 0 {
		t.Fatalf("list at the window's RV: %v, %d history reads", err, h.ranges)
	}

	// Compacted history: the 410s a cache without History gives.
	first, err := small.List(ctx, ListOptions{ResourceVersion: "25", ResourceVersionMatch: MatchExact, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	h.compacted = 30
	_, err = small.List(ctx, ListOptions{ResourceVersion: "25", ResourceVersionMatch: MatchExact})
	var exp *ExpiredError
	if !errors.As(err, &exp) || exp.Message != msgListTooOld {
		t.Fatalf("Exact list at a compacted RV: %v, want 410 %q", err, msgListTooOld)
	}
	_, err = small.List(ctx, ListOptions{Continue: first.Continue, Limit: 2})
	if !errors.As(err, &exp) || exp.Message != msgContinueTooOld || decodeToken(t, exp.Continue)["rv"].(float64) != -1 {
		t.Fatalf("continue at a compacted RV: %v, want 410 %q with an rv -1 token", err, msgContinueTooOld)
	}
}

func sameCount(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
