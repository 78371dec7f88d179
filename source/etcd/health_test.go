package etcd

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/watchcache/watchcache/watchcache"
)

// TestHealthTransitions: while etcd is down the source says so (Health, Ready per resource), and
// losing, retrying and regaining it are each logged once and counted, however long the outage; the
// cache keeps serving what it holds at resourceVersion 0, and catches up after etcd is back.
func TestHealthTransitions(t *testing.T) {
	te := startTestEtcd(t)
	var logs syncBuffer
	src := New(te.cli, Options{
		HealthInterval: 20 * time.Millisecond, HealthTimeout: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	c := podsCache(src, 0)
	if err := src.Add("pods", c); err != nil {
		t.Fatal(err)
	}
	if err := src.Ready("pods"); err == nil {
		t.Fatal("Ready before the first list")
	}
	if err := src.Ready("nodes"); err == nil {
		t.Fatal("Ready of a resource never added")
	}
	ctx := context.Background()
	if _, err := te.cli.Put(ctx, "/registry/pods/ns/a", `{"metadata":{"name":"a","namespace":"ns"}}`); err != nil {
		t.Fatal(err)
	}
	runSource(t, src, c)
	waitFor(t, "ready", func() bool { return src.Ready("pods") == nil })

	te.stop()
	waitFor(t, "the loss seen", func() bool { return src.Health() != nil })
	if err := src.Ready("pods"); err == nil || !strings.Contains(err.Error(), "etcd unreachable since") {
		t.Fatalf("Ready while etcd is down: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // many failed probes
	if res, err := c.List(ctx, watchcache.ListOptions{ResourceVersion: "0"}); err != nil || len(res.Items) != 1 {
		t.Fatalf("list at 0 while etcd is down: %v %v", res, err)
	}
	te.start()
	waitFor(t, "the recovery seen", func() bool { return src.Health() == nil && src.Ready("pods") == nil })
	if _, err := te.cli.Put(ctx, "/registry/pods/ns/b", `{"metadata":{"name":"b","namespace":"ns"}}`); err != nil {
		t.Fatal(err)
	}
	if res, err := c.List(ctx, watchcache.ListOptions{}); err != nil || len(res.Items) != 2 {
		t.Fatalf("consistent list after the recovery: %v %v", res, err)
	}

	if st := src.Stats(); st.Lost != 1 || st.Regained != 1 {
		t.Fatalf("stats %+v: want 1 lost, 1 regained", st)
	}
	out := logs.String()
	for msg, want := range map[string]int{"etcd: connection lost": 1, "etcd: still unreachable; retrying": 1, "etcd: connection regained": 1} {
		if n := strings.Count(out, msg); n != want {
			t.Errorf("%q logged %d times, want %d:\n%s", msg, n, want, out)
		}
	}
}
