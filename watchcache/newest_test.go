package watchcache

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"testing"
)

// TestNewest checks Newest against Get at "0" (which publishes first) after each of a random
// sequence of creates, updates, deletes and a re-list, for present and absent keys, and that
// Newest publishes nothing.
func TestNewest(t *testing.T) {
	ctx := context.Background()
	c := newPodCache(t)
	if err := c.Replace(nil, 1); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "c", "d"}
	live := map[string]bool{}
	rv := uint64(1)
	check := func(step int) {
		t.Helper()
		for _, ns := range []string{"n1", "n2"} {
			for _, name := range names {
				dirty := c.pub.dirty.Load()
				got, ok, err := c.Newest(ns, name)
				if err != nil {
					t.Fatal(err)
				}
				if c.pub.dirty.Load() != dirty {
					t.Fatalf("step %d: Newest published", step)
				}
				want, _, gerr := c.Get(ctx, ns, name, "0")
				var nf *NotFoundError
				if errors.As(gerr, &nf) {
					want = nil
				} else if gerr != nil {
					t.Fatal(gerr)
				}
				if ok != (want != nil) || !bytes.Equal(got, want) {
					t.Fatalf("step %d: Newest(%s, %s) = %s, %v; Get = %s", step, ns, name, got, ok, want)
				}
			}
		}
	}
	for step := range 300 {
		ns, name := []string{"n1", "n2"}[rnd.Intn(2)], names[rnd.Intn(len(names))]
		key := ns + "/" + name
		rv++
		switch {
		case step == 150:
			// A re-list keeps one object of the ones live.
			if err := c.Replace([][]byte{pod("n1", "a", "x", "app=relist", rv)}, rv); err != nil {
				t.Fatal(err)
			}
			live = map[string]bool{"n1/a": true}
		case live[key] && rnd.Intn(3) == 0:
			mustApply(t, c, Deleted, pod(ns, name, "", "", rv), rv)
			delete(live, key)
		case live[key]:
			mustApply(t, c, Modified, pod(ns, name, "", []string{"app=x", "app=y", ""}[rnd.Intn(3)], rv), rv)
		default:
			mustApply(t, c, Added, pod(ns, name, "", "app=x", rv), rv)
			live[key] = true
		}
		check(step)
	}
	c.Stop()
	if _, _, err := c.Newest("n1", "a"); err == nil {
		t.Fatal("Newest of a stopped cache: no error, want Get's")
	}
}
