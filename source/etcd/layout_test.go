package etcd

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestBuiltinDecodable: every built-in resource's stored kind is in client-go's scheme, so that its
// protobuf values decode (apiservices excepted: the aggregator stores them as JSON,
// reference/observed-etcd-layout.md) — the storage version's too, when older — and no prefix or
// plural name comes twice.
func TestBuiltinDecodable(t *testing.T) {
	prefixes, names := map[string]bool{}, map[string]bool{}
	for _, r := range Builtin() {
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if !scheme.Scheme.Recognizes(gvk) && r.Resource != "apiservices" {
			t.Errorf("%s: %v not in client-go's scheme", r.Prefix, gvk)
		}
		if r.StorageVersion != "" {
			if stored := (schema.GroupVersionKind{Group: r.Group, Version: r.StorageVersion, Kind: r.Kind}); !scheme.Scheme.Recognizes(stored) {
				t.Errorf("%s: stored %v not in client-go's scheme", r.Prefix, stored)
			}
		}
		gr := r.Resource + "." + r.Group
		if prefixes[r.Prefix] || names[gr] {
			t.Errorf("%s (%s) listed twice", r.Prefix, gr)
		}
		prefixes[r.Prefix], names[gr] = true, true
	}
}

func TestResourcePrefixOf(t *testing.T) {
	known := Builtin()
	for rel, want := range map[string]string{
		"pods/ns/a":                                  "pods",
		"services/specs/ns/a":                        "services/specs",
		"services/endpoints/ns/a":                    "services/endpoints",
		"services/other/x":                           "services/other",
		"minions/node-1":                             "minions",
		"ranges/serviceips":                          "ranges",
		"masterleases/10.0.0.1":                      "masterleases",
		"apiregistration.k8s.io/apiservices/v1.apps": "apiregistration.k8s.io/apiservices",
		"example.com/widgets/ns/w":                   "example.com/widgets",
		"health":                                     "health",
	} {
		if got := resourcePrefixOf(rel, known); got != want {
			t.Errorf("resourcePrefixOf(%q) = %q, want %q", rel, got, want)
		}
	}
}

// TestScanPrefixes: every prefix holding keys is found once, with its count, beside keys of no
// resource (a key equal to a prefix, keys of unknown prefixes) and prefixes that share a segment.
func TestScanPrefixes(t *testing.T) {
	cli := startEtcd(t)
	ctx := context.Background()
	keys := map[string]int{
		"/registry/pods/ns-a/":                          3,
		"/registry/pods/ns-b/":                          2,
		"/registry/minions/":                            4,
		"/registry/services/endpoints/ns/":              1,
		"/registry/services/other/":                     1,
		"/registry/services/specs/ns/":                  2,
		"/registry/apiregistration.k8s.io/apiservices/": 2,
		"/registry/example.com/widgets/ns/":             5,
		"/registry/ranges/":                             1,
		"/other/pods/ns/":                               3, // another path prefix
	}
	for p, n := range keys {
		for i := range n {
			if _, err := cli.Put(ctx, fmt.Sprintf("%sk%d", p, i), "{}"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := cli.Put(ctx, "/registry/health", "{}"); err != nil { // a key, no prefix under it
		t.Fatal(err)
	}
	got, err := ScanPrefixes(ctx, cli, "/registry", Builtin())
	if err != nil {
		t.Fatal(err)
	}
	want := []PrefixCount{
		{"apiregistration.k8s.io/apiservices", 2}, {"example.com/widgets", 5}, {"minions", 4}, {"pods", 5},
		{"ranges", 1}, {"services/endpoints", 1}, {"services/other", 1}, {"services/specs", 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ScanPrefixes:\n got %v\nwant %v", got, want)
	}
}
