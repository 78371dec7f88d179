package watchcache

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/watchcache/watchcache/index"
)

// Property: for random objects, selectors, limits and continue positions, at the head
// and at older snapshots, a cache with indexes answers exactly as one without: same items, same
// tokens, same remainingItemCount. Indexes are an optimisation, never a semantic.
func TestIndexedPlanEqualsScan(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	plain := newPodCache(t)
	indexed := newPodCache(t)
	var objs [][]byte
	for i := range 300 {
		objs = append(objs, randomPod(rng, fmt.Sprint("ns-", rng.Intn(4)), fmt.Sprintf("p%03d", i), uint64(i+1)))
	}
	for _, c := range []*Cache{plain, indexed} {
		if err := c.Replace(objs, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Field, Name: "status.phase"}, {Kind: index.Label, Name: "app"}, {Kind: index.Label, Name: "tier"}} {
		if err := indexed.AddIndex(s); err != nil {
			t.Fatal(err)
		}
	}
	rv := uint64(1000)
	for range 200 { // churn, so older snapshots differ from the head
		rv++
		ev := Event{Type: Modified, Object: randomPod(rng, fmt.Sprint("ns-", rng.Intn(4)), fmt.Sprintf("p%03d", rng.Intn(320)), 0), ResourceVersion: rv}
		for _, c := range []*Cache{plain, indexed} {
			if err := c.Apply(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The indexed cache really plans through its indexes (else this test would prove nothing).
	q0, err := indexed.prepare("", "app=web", "spec.nodeName=n1")
	if err != nil {
		t.Fatal(err)
	}
	if pl := makePlan(indexed.pub.head.Load().st, "/", "", true, q0.labels, q0.fields); pl.si == nil {
		t.Fatal("no index chosen for spec.nodeName=n1,app=web")
	}
	fieldSels := []string{"", "spec.nodeName=n1", "spec.nodeName=n2,status.phase=Running", "status.phase==Pending,spec.nodeName!=n0", "spec.nodeName=", "spec.nodeName=n3,metadata.namespace=ns-1"}
	labelSels := []string{"", "app=web", "app in (db)", "tier=back,app!=web", "app=web,tier=front", "!tier"}
	for q := range 400 {
		o := ListOptions{FieldSelector: fieldSels[rng.Intn(len(fieldSels))], LabelSelector: labelSels[rng.Intn(len(labelSels))], Limit: int64(rng.Intn(6))}
		if rng.Intn(3) == 0 {
			o.Namespace = fmt.Sprint("ns-", rng.Intn(4))
		}
		if rng.Intn(2) == 0 {
			o.ResourceVersion, o.ResourceVersionMatch = fmt.Sprint(1000+rng.Intn(200)), MatchExact
		}
		for page := 0; ; page++ {
			a, errA := plain.List(t.Context(), o)
			b, errB := indexed.List(t.Context(), o)
			if errA != nil || errB != nil {
				t.Fatalf("query %d %+v: %v / %v", q, o, errA, errB)
			}
			if !reflect.DeepEqual(names(a.Items), names(b.Items)) || a.Continue != b.Continue || a.ResourceVersion != b.ResourceVersion ||
				!reflect.DeepEqual(a.RemainingItemCount, b.RemainingItemCount) {
				t.Fatalf("query %d page %d %+v:\nscan    %v cont %q\nindexed %v cont %q", q, page, o, names(a.Items), a.Continue, names(b.Items), b.Continue)
			}
			if a.Continue == "" {
				break
			}
			o.Continue, o.ResourceVersion, o.ResourceVersionMatch = a.Continue, "", ""
		}
	}
}

func randomPod(rng *rand.Rand, ns, name string, rv uint64) []byte {
	labels := []string{"", "app=web", "app=db", "app=web,tier=front", "tier=back", "app=db,tier=back"}[rng.Intn(6)]
	node := []string{"", "n0", "n1", "n2", "n3"}[rng.Intn(5)]
	p := pod(ns, name, node, labels, rv)
	if rng.Intn(3) == 0 {
		p = []byte(string(p[:len(p)-len(`"Running"}}`)]) + `"Pending"}}`)
	}
	return p
}

// TestPlanPicksSmallestRange: with exact terms on two indexes, the planner walks the smaller
// range, whichever term comes first: the most selective usable index.
func TestPlanPicksSmallestRange(t *testing.T) {
	c := newPodCache(t)
	var objs [][]byte
	for i := range 300 {
		node, app := "busy", "web"
		if i%100 == 0 {
			node = "quiet" // 3 pods
		}
		if i%150 == 1 {
			app = "rare" // 2 pods
		}
		objs = append(objs, pod("ns", fmt.Sprintf("p%03d", i), node, "app="+app, uint64(i+1)))
	}
	if err := c.Replace(objs, 1000); err != nil {
		t.Fatal(err)
	}
	for _, s := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Label, Name: "app"}} {
		if err := c.AddIndex(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ labels, fields, wantIndex, wantValue string }{
		{"app=web", "spec.nodeName=quiet", "spec.nodeName", "quiet"},
		{"app=rare", "spec.nodeName=busy", "app", "rare"},
		{"app=web", "spec.nodeName=busy", "spec.nodeName", "busy"}, // a tie at the probe cap: the first term
		{"app=rare", "", "app", "rare"},
	} {
		q, err := c.prepare("", tc.labels, tc.fields)
		if err != nil {
			t.Fatal(err)
		}
		pl := makePlan(c.current().st, q.prefix, "", true, q.labels, q.fields)
		if pl.si == nil || pl.si.spec.Name != tc.wantIndex || pl.value != tc.wantValue {
			t.Errorf("%s + %s: plan walks %v=%q, want %s=%q", tc.labels, tc.fields, pl.si, pl.value, tc.wantIndex, tc.wantValue)
		}
	}
}
