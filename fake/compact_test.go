package fake_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/fake"
)

// TestCompact: after Compact every continue token, exact list and watch from before it answers as
// the apiserver's etcd path does after a compaction (reference/observed-faults.md, "Compaction");
// what a compaction does not touch still answers.
func TestCompact(t *testing.T) {
	const ns = "/api/v1/namespaces/faults2/configmaps"
	objs := append(configMaps("faults2", 5), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "faults2"}})
	srv := fake.NewTest(t, fake.Options{Objects: objs})
	old := srv.ResourceVersion()
	tok := page(t, srv, ns+"?limit=2")
	write(t, srv, "cm-6")
	r := srv.Compact()
	if r != old+1 {
		t.Fatalf("Compact = %d, want the current resourceVersion %d", r, old+1)
	}
	newTok := page(t, srv, ns+"?limit=2")
	cases := []struct {
		name, path string
		code       int
		has        string // a part of the body
	}{
		{"old token", ns + "?limit=2&continue=" + tok, 410, `"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY20tMlx1MDAwMCJ9"`},
		{"the 410's rv -1 token reads the latest state", ns + "?limit=2&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiY20tMlx1MDAwMCJ9", 200, `"name":"cm-3"`},
		{"token after the compaction", ns + "?limit=2&continue=" + newTok, 200, `"name":"cm-3"`},
		{"invalid token: the read path's 400", ns + "?limit=2&continue=garbage", 400, "invalid continue token"},
		{"exact list below", fmt.Sprintf("%s?resourceVersion=%d&resourceVersionMatch=Exact", ns, old), 410, "The resourceVersion for the provided list is too old."},
		{"list with a limit at an rv below (read at that revision)", fmt.Sprintf("%s?resourceVersion=%d&limit=2", ns, old), 410, "The resourceVersion for the provided list is too old."},
		{"exact list at the compaction", fmt.Sprintf("%s?resourceVersion=%d&resourceVersionMatch=Exact", ns, r), 200, `"name":"cm-6"`},
		{"not older than below", fmt.Sprintf("%s?resourceVersion=%d&resourceVersionMatch=NotOlderThan", ns, old), 200, `"name":"cm-6"`},
		{"resourceVersion 0", ns + "?resourceVersion=0&limit=2", 200, `"name":"cm-1"`},
		{"get", fmt.Sprintf("%s/cm-1?resourceVersion=%d", ns, old-1), 200, `"name":"cm-1"`},
		{"watch from below", fmt.Sprintf("%s?watch=1&resourceVersion=%d&timeoutSeconds=1", ns, old-1), 200, "The resourceVersion for the provided watch is too old."},
		// etcd watches from the revision after the one asked: from r-1 it starts at r, not compacted.
		{"watch from the revision before", fmt.Sprintf("%s?watch=1&resourceVersion=%d&timeoutSeconds=1", ns, r-1), 200, `{"type":"ADDED"`},
		{"watch with a bad option: the read path's error", fmt.Sprintf("%s?watch=1&resourceVersion=%d&fieldSelector=spec.x%%3Dy", ns, old-1), 400, "is not a known field selector"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := send(t, srv, "GET", c.path, "")
			if resp.StatusCode != c.code || !strings.Contains(body, c.has) {
				t.Errorf("%d %s\nwant %d with %s", resp.StatusCode, body, c.code, c.has)
			}
		})
	}
	if again := srv.Compact(); again != r {
		t.Errorf("a second Compact without writes = %d, want %d", again, r)
	}
}

// TestInformerSurvivesFaults: a client-go informer whose watch is cut re-watches, and one whose
// watch gets a 410 re-lists; both end with every object, and the request log shows the recovery.
func TestInformerSurvivesFaults(t *testing.T) {
	cases := []struct {
		name string
		rule fake.Rule
	}{
		{"cut watch", fake.Rule{Verbs: []string{"watch"}, Fault: fake.CutWatch, Events: 1, Times: 2}},
		{"410 in the watch", fake.Rule{Verbs: []string{"watch"}, Fault: fake.ExpireWatch, Events: 1, Times: 2}},
		{"410 at once", fake.Rule{Verbs: []string{"watch"}, Fault: fake.Expired, Times: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.NewTest(t, fake.Options{Objects: []runtime.Object{}})
			cs := kubernetes.NewForConfigOrDie(srv.Config())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			in := srv.Inject(c.rule)
			f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
			inf := f.Core().V1().ConfigMaps().Informer()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); inf.Run(stop) }()
			defer func() { close(stop); wg.Wait() }()
			for i := range 5 {
				if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			err := srv.WaitFor(ctx, func([]fake.Request) bool {
				return len(inf.GetStore().ListKeys()) == 5 && in.Faults() == max(c.rule.Times, 1)
			})
			if err != nil {
				t.Fatalf("informer has %d of 5 objects, %d faults: %v", len(inf.GetStore().ListKeys()), in.Faults(), err)
			}
			// After a cut the reflector resumes from the last resourceVersion it saw; after a 410
			// it starts again from a list or a watch-list (resourceVersion "" or "0").
			var after []fake.Request
			for i, r := range srv.Requests() {
				if r.Fault != fake.NoFault {
					after = nil
					for _, r := range srv.Requests()[i+1:] {
						if r.Verb == "list" || r.Verb == "watch" {
							after = append(after, r)
						}
					}
				}
			}
			if len(after) == 0 {
				t.Fatalf("no request after the last fault: %v", srv.Requests())
			}
			fresh := after[0].ResourceVersion == "" || after[0].ResourceVersion == "0"
			if wantFresh := c.rule.Fault != fake.CutWatch; fresh != wantFresh {
				t.Errorf("after the last fault %s from resourceVersion %q, want a fresh start %v",
					after[0].Verb, after[0].ResourceVersion, wantFresh)
			}
		})
	}
}

// TestInformerSurvivesCompaction: an informer whose watch is cut and which resumes after a
// compaction gets the 410 and re-lists, as it does against an apiserver reading etcd.
func TestInformerSurvivesCompaction(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	create := func(name string) {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The first watch is cut after one event; the one that resumes it waits 500 ms, time for the
	// test to write twice and compact.
	cut := srv.Inject(fake.Rule{Verbs: []string{"watch"}, Fault: fake.CutWatch, Events: 1, Times: 1})
	srv.Inject(fake.Rule{Verbs: []string{"watch"}, After: 1, Times: 1, Delay: 500 * time.Millisecond})
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	inf := f.Core().V1().ConfigMaps().Informer()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); inf.Run(stop) }()
	defer func() { close(stop); wg.Wait() }()
	// After the sync, so that "first" is a live event, not an initial one: the watch is cut
	// after its initial events and resumed from the resourceVersion of "first".
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	create("first")
	if err := srv.WaitFor(ctx, func([]fake.Request) bool { return cut.Faults() == 1 && len(inf.GetStore().ListKeys()) == 1 }); err != nil {
		t.Fatal(err)
	}
	create("second")
	create("third")
	srv.Compact()
	if err := srv.WaitFor(ctx, func([]fake.Request) bool { return len(inf.GetStore().ListKeys()) == 3 }); err != nil {
		t.Fatalf("informer has %v: %v", inf.GetStore().ListKeys(), err)
	}
	// The resumed watch (from the first event's resourceVersion) is answered 200 with the 410
	// ERROR, and the informer starts again from a fresh list or watch-list.
	var resumed, fresh bool
	for _, r := range srv.Requests() {
		if r.Verb != "watch" && r.Verb != "list" {
			continue
		}
		switch {
		case r.Fault == fake.NoFault && r.Verb == "watch" && r.ResourceVersion != "" && r.ResourceVersion != "0" && !resumed:
			resumed = true
		case resumed && (r.ResourceVersion == "" || r.ResourceVersion == "0"):
			fresh = true
		}
	}
	if !resumed || !fresh {
		t.Errorf("resumed %v, then a fresh start %v: %v", resumed, fresh, srv.Requests())
	}
}
