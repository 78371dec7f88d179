package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// This file holds the test harness: an embedded etcd on loopback, a watcher that can break and hold
// back the source's watches, and the comparison of a cache with etcd.

// TestMain fails the package if any goroutine outlives the tests: the sources', the caches', and
// those of the embedded etcd servers and their clients, which all shut down cleanly.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startEtcd starts a single-member etcd on loopback ports in a temporary directory (no fsync) and
// returns a client to it. Both are closed when the test ends.
func startEtcd(t testing.TB) *clientv3.Client { return startTestEtcd(t).cli }

// testEtcd is an embedded etcd that a test can restart on the same data and ports.
type testEtcd struct {
	t   testing.TB
	cfg *embed.Config
	e   *embed.Etcd
	cli *clientv3.Client
}

func startTestEtcd(t testing.TB) *testEtcd {
	t.Helper()
	cfg, clientURL := embedConfig(t, "http")
	te := &testEtcd{t: t, cfg: cfg}
	te.start()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{clientURL.Host},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		te.stop()
		t.Fatalf("etcd client: %v", err)
	}
	te.cli = cli
	t.Cleanup(func() {
		cli.Close()
		te.stop()
	})
	return te
}

// embedConfig is the configuration of a single-member etcd on free loopback ports in a temporary
// directory, without fsync, serving clients with the given URL scheme ("http" or "https").
func embedConfig(t testing.TB, clientScheme string) (*embed.Config, url.URL) {
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "fatal" // its shutdown logs "errors" about closed listeners
	cfg.EnableGRPCGateway = false
	clientURL := url.URL{Scheme: clientScheme, Host: freeAddr(t)}
	peerURL := url.URL{Scheme: "http", Host: freeAddr(t)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peerURL}, []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	return cfg, clientURL
}

func (te *testEtcd) start() {
	te.t.Helper()
	e, err := embed.StartEtcd(te.cfg)
	if err != nil {
		te.t.Fatalf("start etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(20 * time.Second):
		e.Close()
		te.t.Fatal("etcd did not become ready")
	}
	te.e = e
}

func (te *testEtcd) stop() {
	if te.e == nil {
		return
	}
	te.e.Close()
	<-te.e.Server.StopNotify()
	te.e = nil
}

// restart stops etcd and starts it again on the same data and ports: every connection and watch
// stream of the client breaks.
func (te *testEtcd) restart() {
	te.stop()
	te.start()
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// feedHarness is a source feeding one pods cache, running until the test ends.
type feedHarness struct {
	src   *Source
	cache *watchcache.Cache
	gen   *testdata.Generator
	cli   *clientv3.Client
}

func podsCache(src *Source, window int) *watchcache.Cache {
	return watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
		CurrentResourceVersion: src.CurrentResourceVersion,
		WindowEvents:           window,
		WatchBuffer:            100_000,
	})
}

// runSource runs src until the test ends and waits until every cache is ready.
func runSource(t testing.TB, src *Source, caches ...*watchcache.Cache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	for _, c := range caches {
		waitFor(t, "cache ready", func() bool { return c.Ready() == nil })
	}
}

func newFeed(t testing.TB, cli *clientv3.Client, opts Options) *feedHarness {
	t.Helper()
	opts.Logger = testLogger(t)
	src := New(cli, opts)
	c := podsCache(src, 0)
	if err := src.Add("pods", c); err != nil {
		t.Fatal(err)
	}
	return &feedHarness{src: src, cache: c, cli: cli, gen: testdata.New(testdata.Config{Pods: 1000, Namespaces: 4, Nodes: 20, Seed: 7})}
}

// testLogger sends the source's logs to the test's output.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func podKey(g *testdata.Generator, i int) string {
	return "/registry/pods/" + g.PodNamespace(i) + "/" + g.PodName(i)
}

// put writes pod i at version v as the apiserver stores it (no resourceVersion) and returns the
// revision of the write.
func put(t testing.TB, cli *clientv3.Client, g *testdata.Generator, i, v int) int64 {
	t.Helper()
	resp, err := cli.Put(context.Background(), podKey(g, i), string(g.PodVersion(i, v, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

func del(t testing.TB, cli *clientv3.Client, g *testdata.Generator, i int) int64 {
	t.Helper()
	resp, err := cli.Delete(context.Background(), podKey(g, i))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// assertMirrors checks that a consistent list of the cache holds exactly what etcd holds under
// prefix at the list's revision: the same keys in the same order, the same objects apart from
// metadata.resourceVersion, and as resourceVersion each key's mod revision. Values that are not JSON
// are expected to be absent. It returns the list's revision.
func assertMirrors(t testing.TB, cli *clientv3.Client, prefix string, c *watchcache.Cache) uint64 {
	t.Helper()
	ctx := context.Background()
	res, err := c.List(ctx, watchcache.ListOptions{})
	if err != nil {
		t.Fatalf("consistent list: %v", err)
	}
	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(int64(res.ResourceVersion)))
	if err != nil {
		t.Fatalf("etcd range at %d: %v", res.ResourceVersion, err)
	}
	var want []stored
	for _, kv := range resp.Kvs {
		if !strings.HasPrefix(strings.TrimSpace(string(kv.Value)), "{") {
			continue
		}
		want = append(want, parseStored(t, strings.TrimPrefix(string(kv.Key), prefix), kv.Value, fmt.Sprint(kv.ModRevision)))
	}
	got := make([]stored, len(res.Items))
	for i, raw := range res.Items {
		got[i] = parseStored(t, "", raw, "")
	}
	if len(got) != len(want) {
		t.Fatalf("at revision %d: cache has %d objects, etcd %d", res.ResourceVersion, len(got), len(want))
	}
	for i := range want {
		if got[i].key != want[i].key || got[i].rv != want[i].rv || !reflect.DeepEqual(got[i].obj, want[i].obj) {
			t.Fatalf("at revision %d, item %d: cache %s rv %s, etcd %s rv %s (objects equal: %v)", res.ResourceVersion, i,
				got[i].key, got[i].rv, want[i].key, want[i].rv, reflect.DeepEqual(got[i].obj, want[i].obj))
		}
	}
	return res.ResourceVersion
}

// stored is an object reduced for comparison: its key (ns/name), its resourceVersion, and the
// decoded object without resourceVersion.
type stored struct {
	key, rv string
	obj     map[string]any
}

// parseStored decodes raw; key and rv, when given, are the etcd side's, otherwise they are read from
// the object.
func parseStored(t testing.TB, key string, raw []byte, rv string) stored {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	md := obj["metadata"].(map[string]any)
	if key == "" {
		key = fmt.Sprint(md["namespace"], "/", md["name"])
	}
	if rv == "" {
		rv, _ = md["resourceVersion"].(string)
	} else if _, has := md["resourceVersion"]; has {
		t.Fatalf("%s: etcd value carries a resourceVersion", key)
	}
	delete(md, "resourceVersion")
	return stored{key: key, rv: rv, obj: obj}
}

// breakableWatcher wraps the client's Watcher so that a test can break every open watch (the
// channel closes, as when etcd or the network drops the stream) and hold new watches back.
type breakableWatcher struct {
	clientv3.Watcher

	mu     sync.Mutex
	open   map[chan struct{}]bool // a break channel per open watch
	gate   chan struct{}          // non-nil: Watch blocks until it is closed
	watchs int                    // watches started
}

func installBreakable(cli *clientv3.Client) *breakableWatcher {
	b := &breakableWatcher{Watcher: cli.Watcher, open: map[chan struct{}]bool{}}
	cli.Watcher = b
	return b
}

func (b *breakableWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	b.mu.Lock()
	gate := b.gate
	b.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	in := b.Watcher.Watch(ctx, key, opts...)
	out := make(chan clientv3.WatchResponse)
	brk := make(chan struct{})
	b.mu.Lock()
	b.open[brk] = true
	b.watchs++
	b.mu.Unlock()
	go func() {
		defer func() {
			cancel()
			for range in {
			}
			b.mu.Lock()
			delete(b.open, brk)
			b.mu.Unlock()
			close(out)
		}()
		for {
			select {
			case wr, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- wr:
				case <-brk:
					return
				}
			case <-brk:
				return
			}
		}
	}()
	return out
}

// breakAll closes every open watch.
func (b *breakableWatcher) breakAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for brk := range b.open {
		close(brk)
		delete(b.open, brk)
	}
}

// hold makes new watches wait until release.
func (b *breakableWatcher) hold() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gate = make(chan struct{})
}

func (b *breakableWatcher) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gate != nil {
		close(b.gate)
		b.gate = nil
	}
}

// opened returns the number of open watches.
func (b *breakableWatcher) opened() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.open)
}

func (b *breakableWatcher) started() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.watchs
}

// delayedWatcher wraps the client's Watcher so that every watch response (events and progress
// notifications) reaches the source delay after etcd sent it: a cache then cannot reach a revision
// sooner, which makes a read that did not wait for it visible.
type delayedWatcher struct {
	clientv3.Watcher
	delay time.Duration
}

func installDelayed(cli *clientv3.Client, delay time.Duration) {
	cli.Watcher = &delayedWatcher{Watcher: cli.Watcher, delay: delay}
}

func (d *delayedWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	in := d.Watcher.Watch(ctx, key, opts...)
	out := make(chan clientv3.WatchResponse)
	go func() {
		defer close(out)
		for wr := range in {
			time.Sleep(d.delay)
			select {
			case out <- wr:
			case <-ctx.Done():
				for range in {
				}
				return
			}
		}
	}()
	return out
}

// waitWatching waits until every feed of src watches and a progress request reaches them all. etcd
// answers none on a stream without watches, nor while a watch starts after its current revision (as
// one does from the revision after a list): a write outside the source's prefixes moves it on.
func waitWatching(t testing.TB, cli *clientv3.Client, src *Source, feeds int) {
	t.Helper()
	ctx := context.Background()
	if _, err := cli.Put(ctx, "/elsewhere", "x"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		before := src.Stats().Bookmarks
		if err := src.RequestProgress(ctx); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if src.Stats().Bookmarks >= before+uint64(feeds) {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the watches")
		}
	}
}
