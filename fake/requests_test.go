package fake_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestRequestLog: the log has each request's verb, resource, namespace, name, field manager,
// resourceVersion, code and time (the server's clock), in order; discovery is not logged.
func TestRequestLog(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	srv := fake.NewTest(t, fake.Options{Now: func() time.Time { return now }, Objects: configMaps("default", 1)})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	_, _ = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{FieldManager: "ctl"})
	_, _ = cs.CoreV1().ConfigMaps("default").Get(ctx, "missing", metav1.GetOptions{})
	_, _ = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	_, _ = cs.CoreV1().ConfigMaps("default").Patch(ctx, "x", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{})
	send(t, srv, "PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", `{"metadata":{"name":"d"}}`)
	_ = cs.CoreV1().ConfigMaps("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = cs.CoreV1().Namespaces().Delete(ctx, "default", metav1.DeleteOptions{})
	cm := schema.GroupResource{Resource: "configmaps"}
	want := []fake.Request{
		{Verb: "create", Resource: cm, Namespace: "default", FieldManager: "ctl", Code: 201, Time: now},
		{Verb: "get", Resource: cm, Namespace: "default", Name: "missing", Code: 404, Time: now},
		{Verb: "list", Resource: cm, Namespace: "default", ResourceVersion: "0", Code: 200, Time: now},
		{Verb: "patch", Resource: cm, Namespace: "default", Name: "x", FieldManager: "fake.test", Code: 200, Time: now},
		{Verb: "update", Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}, Subresource: "status", Namespace: "default", Name: "d", FieldManager: "record-faults", Code: 404, Time: now},
		{Verb: "deletecollection", Resource: cm, Namespace: "default", Code: 200, Time: now},
		{Verb: "delete", Resource: schema.GroupResource{Resource: "namespaces"}, Namespace: "default", Name: "default", Code: 200, Time: now},
	}
	got := srv.Requests()
	if len(got) != len(want) {
		t.Fatalf("%d requests logged, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d\n%+v, want\n%+v", i, got[i], want[i])
		}
	}
	srv.ResetRequests()
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests after ResetRequests", n)
	}
}

// TestRequestLogBounded: the log keeps the last Options.RequestLog requests; a negative bound
// keeps none.
func TestRequestLogBounded(t *testing.T) {
	for _, c := range []struct{ bound, sent, kept int }{{3, 10, 3}, {3, 2, 2}, {1, 5, 1}, {-1, 4, 0}} {
		t.Run(fmt.Sprint(c.bound, "/", c.sent), func(t *testing.T) {
			srv := fake.NewTest(t, fake.Options{RequestLog: c.bound})
			for i := range c.sent {
				send(t, srv, "GET", fmt.Sprintf("/api/v1/namespaces/default/configmaps/cm-%d", i), "")
			}
			got := srv.Requests()
			if len(got) != c.kept {
				t.Fatalf("%d kept, want %d", len(got), c.kept)
			}
			if c.kept > 0 {
				if last := got[len(got)-1].Name; last != fmt.Sprintf("cm-%d", c.sent-1) {
					t.Errorf("last kept %s, want the last sent", last)
				}
				if first := got[0].Name; first != fmt.Sprintf("cm-%d", c.sent-c.kept) {
					t.Errorf("first kept %s, want cm-%d", first, c.sent-c.kept)
				}
			}
		})
	}
}

// TestWaitFor: WaitFor returns once a request arrives (from another goroutine) or a state is
// reached, and ctx's error when it does not.
func TestWaitFor(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		_, _ = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	}()
	err := srv.WaitFor(ctx, func(reqs []fake.Request) bool {
		for _, r := range reqs {
			if r.Verb == "create" && r.Code == 201 {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("WaitFor a create: %v", err)
	}
	// A state reached without a request: a simulated controller's Store.
	before := srv.ResourceVersion()
	go func() {
		_ = srv.Store(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"stored","namespace":"default"}}`))
	}()
	err = srv.WaitFor(ctx, func([]fake.Request) bool { return srv.ResourceVersion() > before })
	if err != nil {
		t.Fatalf("WaitFor a Store: %v", err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancelShort()
	if err := srv.WaitFor(short, func([]fake.Request) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitFor a condition never true: %v", err)
	}
}

// TestSeededNames: the same seed and the same writes give the same uids and generated names; another
// seed gives others; generated suffixes are 5 characters of the apiserver's alphabet.
func TestSeededNames(t *testing.T) {
	run := func(seed int64) []string {
		srv := fake.NewTest(t, fake.Options{Seed: seed, Objects: configMaps("default", 2)})
		cs := kubernetes.NewForConfigOrDie(srv.Config())
		var out []string
		l, err := cs.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range l.Items {
			out = append(out, string(cm.UID))
		}
		for range 3 {
			cm, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, cm.Name, string(cm.UID))
		}
		return out
	}
	a, b, other := run(7), run(7), run(8)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("seed 7 twice:\n%v\n%v", a, b)
	}
	for i := range a {
		if a[i] == other[i] {
			t.Errorf("seeds 7 and 8 both gave %s", a[i])
		}
	}
	for i := 2; i < len(a); i += 2 {
		name := a[i]
		suffix := name[len("gen-"):]
		if len(suffix) != 5 {
			t.Errorf("generated name %s: suffix of %d characters, want 5", name, len(suffix))
		}
		for _, r := range suffix {
			if !containsRune("bcdfghjklmnpqrstvwxz2456789", r) {
				t.Errorf("generated name %s: %q is not of the apiserver's alphabet", name, r)
			}
		}
		if u := a[i+1]; len(u) != 36 || u[14] != '4' {
			t.Errorf("uid %s is not a version 4 UUID", u)
		}
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}
