package etcd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/watchcache"
)

// TestEncodingsSideBySide: an etcd holding the same pods written by the apiserver's protobuf, CBOR
// and JSON storage encoders, one namespace per encoding, is served alike: every listed object, and
// every watch event after an update in each encoding, is the JSON the apiserver serves for it with
// the key's mod revision as resourceVersion. Values that cannot be read (encrypted, a kind the scheme
// lacks) are counted by reason and warned of once each.
func TestEncodingsSideBySide(t *testing.T) {
	cli := startEtcd(t)
	ctx := context.Background()
	var logs syncBuffer
	src := New(cli, Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	c := podsCache(src, 0)
	if err := src.Add("pods", c); err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	for _, o := range storedObjects() {
		if p, ok := o.(*corev1.Pod); ok {
			pod = p
		}
	}
	encoders := storageEncoders()
	// want[key] is what the apiserver serves for the pod of that key at its mod revision.
	want := map[string]func(rev int64) []byte{}
	write := func(encoding string, i int, image string) {
		t.Helper()
		p := pod.DeepCopy()
		p.Namespace, p.Name = encoding, fmt.Sprintf("web-%d", i)
		p.Spec.Containers[0].Image = image
		var buf bytes.Buffer
		if err := encoders[encoding].Encode(p, &buf); err != nil {
			t.Fatal(err)
		}
		key := "/registry/pods/" + p.Namespace + "/" + p.Name
		if _, err := cli.Put(ctx, key, buf.String()); err != nil {
			t.Fatal(err)
		}
		want["/"+p.Namespace+"/"+p.Name] = func(rev int64) []byte {
			q := p.DeepCopy()
			q.ResourceVersion = fmt.Sprint(rev)
			b, err := json.Marshal(q)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	for encoding := range encoders {
		for i := range 3 {
			write(encoding, i, "nginx:1.27")
		}
	}
	unreadable := map[string]string{
		"/registry/pods/enc/a":    "k8s:enc:aescbc:v1:key1:\x00\x01\x02",
		"/registry/pods/enc/b":    "k8s:enc:aescbc:v1:key1:\x03\x04\x05",
		"/registry/pods/widget/a": string(encodeProtobufUnknown(t, schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Widget"}, nil)),
	}
	for k, v := range unreadable {
		if _, err := cli.Put(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	runSource(t, src, c)
	check := func(step string) {
		t.Helper()
		res, err := c.List(ctx, watchcache.ListOptions{}) // consistent: at etcd's revision
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != len(want) {
			t.Fatalf("%s: %d items, want %d", step, len(res.Items), len(want))
		}
		for _, raw := range res.Items {
			var m struct {
				Metadata struct{ Namespace, Name string }
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			key := "/" + m.Metadata.Namespace + "/" + m.Metadata.Name
			resp, err := cli.Get(ctx, "/registry/pods"+key)
			if err != nil || len(resp.Kvs) != 1 {
				t.Fatalf("get %s: %v", key, err)
			}
			if w := want[key](resp.Kvs[0].ModRevision); !bytes.Equal(raw, w) {
				t.Fatalf("%s: %s\n got %s\nwant %s", step, key, raw, w)
			}
		}
	}
	check("listed")

	w, err := c.Watch(ctx, watchcache.WatchOptions{ResourceVersion: fmt.Sprint(c.ResourceVersion())})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for encoding := range encoders {
		write(encoding, 1, "nginx:1.28")
		ev := <-w.Events()
		resp, err := cli.Get(ctx, "/registry/pods/"+encoding+"/web-1")
		if err != nil {
			t.Fatal(err)
		}
		if wantObj := want["/"+encoding+"/web-1"](resp.Kvs[0].ModRevision); ev.Type != watchcache.Modified || !bytes.Equal(ev.Object, wantObj) {
			t.Fatalf("%s update: %s %s\nwant MODIFIED %s", encoding, ev.Type, ev.Object, wantObj)
		}
	}
	check("updated")

	skips := src.Skips()
	var gotEnc, gotWidget uint64
	for r, n := range skips {
		switch {
		case strings.Contains(r, `provider "aescbc", key "key1"`):
			gotEnc += n
		case strings.Contains(r, "example.io/v1, Kind=Widget"):
			gotWidget += n
		}
	}
	if gotEnc != 2 || gotWidget != 1 || src.Stats().Skipped != 3 {
		t.Fatalf("skips %v, stats %+v: want 2 encrypted, 1 Widget, 3 in all", skips, src.Stats())
	}
	out := logs.String()
	if n := strings.Count(out, "etcd: object skipped"); n != 2 {
		t.Fatalf("%d skip warnings, want one per reason (2):\n%s", n, out)
	}
}

// syncBuffer is a bytes.Buffer safe for the source's concurrent logging.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
