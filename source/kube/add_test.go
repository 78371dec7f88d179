package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// TestAdd pins what Add and Run refuse.
func TestAdd(t *testing.T) {
	newCache := func() *watchcache.Cache {
		return watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	}
	for _, tc := range []struct {
		name  string
		added []string // added before, successfully
		add   string
		cache *watchcache.Cache
		want  error
	}{
		{name: "first", add: "pods", cache: newCache()},
		{name: "second resource", added: []string{"pods"}, add: "configmaps", cache: newCache()},
		{name: "empty name", add: "", cache: newCache(), want: ErrInvalidResource},
		{name: "path-like name", add: "pods/status", cache: newCache(), want: ErrInvalidResource},
		{name: "nil cache", add: "pods", want: ErrInvalidResource},
		{name: "added twice", added: []string{"pods"}, add: "pods", cache: newCache(), want: ErrInvalidResource},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(nil, Options{})
			for _, r := range tc.added {
				if err := s.Add(r, newCache()); err != nil {
					t.Fatal(err)
				}
			}
			err := s.Add(tc.add, tc.cache)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Add(%q): %v, want %v", tc.add, err, tc.want)
			}
			if got, want := len(s.feeds), len(tc.added)+map[bool]int{true: 1}[tc.want == nil]; got != want {
				t.Fatalf("%d feeds, want %d", got, want)
			}
		})
	}

	t.Run("run without resources", func(t *testing.T) {
		if err := New(nil, Options{}).Run(context.Background()); !errors.Is(err, ErrNoResources) {
			t.Fatalf("Run: %v, want ErrNoResources", err)
		}
	})
	t.Run("add and run after run", func(t *testing.T) {
		_, client := serve(t, newUpstream(t, 5, watchcache.Options{}).cache)
		c := newCache()
		defer c.Stop()
		s := New(client, Options{})
		if err := s.Add("pods", c); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		waitFor(t, "Run to start", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.running
		})
		if err := s.Add("configmaps", newCache()); !errors.Is(err, ErrRunning) {
			t.Fatalf("Add after Run: %v, want ErrRunning", err)
		}
		if err := s.Run(ctx); !errors.Is(err, ErrRunning) {
			t.Fatalf("second Run: %v, want ErrRunning", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestTwoResources: one source feeds two caches of one group and version, each from its own
// resource, and each follows its own upstream's changes.
func TestTwoResources(t *testing.T) {
	pods := newUpstream(t, 50, watchcache.Options{})
	configMaps := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "configmaps", Namespaced: true}})
	cm := func(i int, rv uint64) []byte {
		return fmt.Appendf(nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%03d","namespace":"ns-%d","resourceVersion":"%d"},"data":{"k":"%d"}}`, i, i%3, rv, i)
	}
	var objs [][]byte
	for i := range 20 {
		objs = append(objs, cm(i, uint64(1+i)))
	}
	if err := configMaps.Replace(objs, 500); err != nil {
		t.Fatal(err)
	}
	api := kubeapi.NewServer(kubeapi.Options{})
	for name, c := range map[string]*watchcache.Cache{"pods": pods.cache, "configmaps": configMaps} {
		info, ok := kubeapi.CoreResource(name)
		if !ok {
			t.Fatalf("kubeapi has no %s", name)
		}
		if err := api.Register(info, c); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(api)
	transport := &http.Transport{}
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		transport.CloseIdleConnections()
	})

	src := New(cs.CoreV1().RESTClient(), Options{PageSize: 7, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	podsB := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	configMapsB := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "configmaps", Namespaced: true}})
	for name, c := range map[string]*watchcache.Cache{"pods": podsB, "configmaps": configMapsB} {
		if err := src.Add(name, c); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		podsB.Stop()
		configMapsB.Stop()
	})

	assertSame(t, pods.cache, podsB)
	assertSame(t, configMaps, configMapsB)
	pods.apply(t, 30)
	for i := 20; i < 25; i++ {
		if err := configMaps.Apply(watchcache.Event{Type: watchcache.Added, Object: cm(i, uint64(500+i)), ResourceVersion: uint64(500 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	assertSame(t, pods.cache, podsB)
	assertSame(t, configMaps, configMapsB)
	if st := src.Stats(); st.Lists != 2 || st.Events < 35 {
		t.Fatalf("stats %+v: want one list per resource and every event", st)
	}
}
