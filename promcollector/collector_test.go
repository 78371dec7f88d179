package promcollector

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/watchcache/watchcache/watchcache"
)

// sourceStats stands for a source's Stats struct (source/etcd's, source/kube's).
type sourceStats struct {
	Lists, Reconnects uint64
	ProgressRequests  uint64
	Name              string // not a counter: ignored
	unexported        uint64
}

func TestCollector(t *testing.T) {
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	defer pods.Stop()
	if err := pods.Replace([][]byte{
		[]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n"}}`),
		[]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b","namespace":"n"}}`),
	}, 7); err != nil {
		t.Fatal(err)
	}
	if err := pods.Apply(watchcache.Event{Type: watchcache.Deleted, Object: []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n"}}`), ResourceVersion: 9}); err != nil {
		t.Fatal(err)
	}
	deploys := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "deployments", Group: "apps", Namespaced: true}})
	defer deploys.Stop()

	col := New()
	col.AddCache("", "pods", pods)
	col.AddCache("apps", "deployments", deploys)
	col.AddSource("etcd", func() any {
		return &sourceStats{Lists: 3, Reconnects: 2, ProgressRequests: 5, Name: "x", unexported: 9}
	})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(col)

	tests := []struct {
		name string
		want string
	}{
		{"watchcache_objects", `
# HELP watchcache_objects Objects in the cache's newest state.
# TYPE watchcache_objects gauge
watchcache_objects{group="",resource="pods"} 1
watchcache_objects{group="apps",resource="deployments"} 0
`},
		{"watchcache_resource_version", `
# HELP watchcache_resource_version The last resourceVersion the cache applied (event, bookmark or re-list).
# TYPE watchcache_resource_version gauge
watchcache_resource_version{group="",resource="pods"} 9
watchcache_resource_version{group="apps",resource="deployments"} 0
`},
		{"watchcache_events_applied_total", `
# HELP watchcache_events_applied_total ADDED, MODIFIED and DELETED events applied.
# TYPE watchcache_events_applied_total counter
watchcache_events_applied_total{group="",resource="pods"} 1
watchcache_events_applied_total{group="apps",resource="deployments"} 0
`},
		{"watchcache_source_reconnects_total", `
# HELP watchcache_source_reconnects_total The source's Reconnects counter.
# TYPE watchcache_source_reconnects_total counter
watchcache_source_reconnects_total{source="etcd"} 2
`},
		{"watchcache_source_progress_requests_total", `
# HELP watchcache_source_progress_requests_total The source's ProgressRequests counter.
# TYPE watchcache_source_progress_requests_total counter
watchcache_source_progress_requests_total{source="etcd"} 5
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := testutil.GatherAndCompare(reg, strings.NewReader(tc.want), tc.name); err != nil {
				t.Error(err)
			}
		})
	}
	n, err := testutil.GatherAndCount(reg)
	if err != nil {
		t.Fatal(err)
	}
	// 8 figures for each of 2 caches, and the source's 3 integer fields.
	if want := 8*2 + 3; n != want {
		t.Errorf("%d metrics, want %d", n, want)
	}

	col.SetRevision(func() (uint64, error) { return 12, nil })
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP watchcache_resource_version_lag Revisions the source has reached that the cache has not applied yet (etcd's revision minus the cache's resourceVersion).
# TYPE watchcache_resource_version_lag gauge
watchcache_resource_version_lag{group="",resource="pods"} 3
watchcache_resource_version_lag{group="apps",resource="deployments"} 12
`), "watchcache_resource_version_lag"); err != nil {
		t.Error(err)
	}
	col.SetRevision(func() (uint64, error) { return 0, errors.New("etcd is down") })
	if n, _ := testutil.GatherAndCount(reg, "watchcache_resource_version_lag"); n != 0 {
		t.Errorf("without a revision: %d lag series, want none", n)
	}

	col.RemoveCache("apps", "deployments")
	if n, _ := testutil.GatherAndCount(reg, "watchcache_objects"); n != 1 {
		t.Errorf("after RemoveCache: %d watchcache_objects series, want 1", n)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"Lists": "lists", "ProgressRequests": "progress_requests", "HTTPErrors": "http_errors", "RVLag": "rv_lag",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
