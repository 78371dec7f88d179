package etcd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// TestTransformAndUnreadable: with Options.Transform every value is read through it, keyed by its
// etcd key, in the list, the watch and History; a value it fails on (or that is not JSON) is left
// out of the cache and listed by Unreadable until the key is readable again or deleted, and the set
// is up to date once a consistent read of the cache returns.
func TestTransformAndUnreadable(t *testing.T) {
	cli := startEtcd(t)
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	// A PrefixTransformer as in the apiserver's storage tests: values are stored as "p!" + JSON.
	transform := func(_ context.Context, key string, value []byte) ([]byte, error) {
		mu.Lock()
		seen[key] = true
		mu.Unlock()
		v, ok := bytes.CutPrefix(value, []byte("p!"))
		if !ok {
			return nil, fmt.Errorf("no prefix p! in %q", value[:min(len(value), 8)])
		}
		return v, nil
	}
	h := newFeed(t, cli, Options{Transform: transform})
	ctx := context.Background()
	putRaw := func(i int, value string) {
		t.Helper()
		if _, err := cli.Put(ctx, podKey(h.gen, i), value); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(i, v int) string { return "p!" + string(h.gen.PodVersion(i, v, 0)) }
	cacheKey := func(i int) string { return strings.TrimPrefix(podKey(h.gen, i), "/registry/pods") }
	// want checks, after a consistent read of the cache, the objects it holds and the unreadable keys
	// with their errors.
	want := func(step string, held []int, unreadable map[int]error) {
		t.Helper()
		res, err := h.cache.List(ctx, watchcache.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, raw := range res.Items {
			s := parseStored(t, "", raw, "")
			got = append(got, "/"+s.key)
		}
		var wantHeld []string
		for _, i := range held {
			wantHeld = append(wantHeld, cacheKey(i))
		}
		slices.Sort(wantHeld) // the cache lists in key order
		if fmt.Sprint(got) != fmt.Sprint(wantHeld) {
			t.Fatalf("%s: cache holds %v, want %v", step, got, wantHeld)
		}
		gotBad := map[string]error{}
		var order []string
		for k, err := range h.src.Unreadable("pods") {
			gotBad[k] = err
			order = append(order, k)
		}
		if len(gotBad) != len(unreadable) {
			t.Fatalf("%s: unreadable %v, want %d keys", step, gotBad, len(unreadable))
		}
		for i, wantErr := range unreadable {
			if err, ok := gotBad[cacheKey(i)]; !ok || !errors.Is(err, wantErr) {
				t.Fatalf("%s: unreadable %s: %v, want %v", step, cacheKey(i), err, wantErr)
			}
		}
		for i := 1; i < len(order); i++ {
			if order[i-1] >= order[i] {
				t.Fatalf("%s: unreadable keys not in order: %v", step, order)
			}
		}
	}

	putRaw(0, pod(0, 0))
	putRaw(1, "x!"+string(h.gen.PodVersion(1, 0, 0))) // another prefix: untransformable
	putRaw(2, "p!k8s\x00\n\x02v1\x12\x03Pod")         // transformable, but protobuf
	runSource(t, h.src, h.cache)
	want("listed", []int{0}, map[int]error{1: ErrUntransformable, 2: ErrUndecodable})

	putRaw(1, pod(1, 1)) // readable again: into the cache, out of the set
	want("pod 1 rewritten", []int{0, 1}, map[int]error{2: ErrUndecodable})
	putRaw(0, "x!{}") // unreadable: out of the cache, into the set
	want("pod 0 overwritten", []int{1}, map[int]error{0: ErrUntransformable, 2: ErrUndecodable})
	del(t, cli, h.gen, 2) // deleted: out of the set
	putRaw(3, "x!{}")     // created unreadable
	want("pod 2 deleted, 3 created", []int{1}, map[int]error{0: ErrUntransformable, 3: ErrUntransformable})
	del(t, cli, h.gen, 3)
	putRaw(0, pod(0, 2))
	want("all readable", []int{0, 1}, nil)

	mu.Lock()
	for i := range 4 {
		if !seen[podKey(h.gen, i)] {
			t.Errorf("Transform never saw %s (saw %v)", podKey(h.gen, i), seen)
		}
	}
	mu.Unlock()
	if st := h.src.Stats(); st.Skipped != 4 {
		t.Errorf("stats %+v: want 4 skipped (two listed, two written)", st)
	}
	for k, err := range h.src.Unreadable("nodes") {
		t.Errorf("Unreadable of a resource never added: %s %v", k, err)
	}

	// History reads through Transform too: pod 1, unreadable again at this revision, is left out.
	putRaw(1, "x!{}")
	resp, err := cli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	err = h.src.History("pods").Range(ctx, uint64(resp.Header.Revision), "/", "/", func(key string, _ []byte) bool {
		keys = append(keys, key)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys) != fmt.Sprint([]string{cacheKey(0)}) {
		t.Fatalf("History.Range: %v, want only %s", keys, cacheKey(0))
	}
}
