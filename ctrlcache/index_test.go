package ctrlcache_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/watchcache/watchcache/ctrlcache"
	"github.com/watchcache/watchcache/selection"
)

// TestIndexJSONPath: a field registered by a JSON path serves MatchingFields, != selectors and
// pages without decoding for the filter, and agrees with a filter of the full list; a path with
// one value per container is refused with selection.ErrInvalidField, never served as empty.
func TestIndexJSONPath(t *testing.T) {
	cl := newCluster(t, 120)
	c, err := ctrlcache.Build(cl.cfg, cache.Options{Scheme: scheme.Scheme}, ctrlcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.IndexJSONPath(ctx, &corev1.Pod{}, "first.image", "spec.containers.0.image"); err != nil {
		t.Fatal(err)
	}
	err = c.IndexJSONPath(ctx, &corev1.Pod{}, "images", "spec.containers.#.image")
	if !errors.Is(err, selection.ErrInvalidField) || !strings.Contains(err.Error(), "one value per array element") {
		t.Fatalf("multi-valued path: %v, want selection.ErrInvalidField", err)
	}
	run(t, c.Start, c.WaitForCacheSync)
	var p0 corev1.Pod
	if err := c.Get(ctx, client.ObjectKey{Namespace: cl.gen.PodNamespace(0), Name: cl.gen.PodName(0)}, &p0); err != nil {
		t.Fatal(err)
	}
	want := p0.Spec.Containers[0].Image
	for _, tc := range []struct {
		name string
		sel  fields.Selector
		keep func(*corev1.Pod) bool
	}{
		{"=", fields.OneTermEqualSelector("first.image", want), func(p *corev1.Pod) bool { return p.Spec.Containers[0].Image == want }},
		{"!=", fields.OneTermNotEqualSelector("first.image", want), func(p *corev1.Pod) bool { return p.Spec.Containers[0].Image != want }},
		{"with a built-in field", fields.AndSelectors(fields.OneTermEqualSelector("first.image", want), fields.OneTermNotEqualSelector("status.phase", "Running")),
			func(p *corev1.Pod) bool {
				return p.Spec.Containers[0].Image == want && p.Status.Phase != corev1.PodRunning
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pagedKeys(5, client.MatchingFieldsSelector{Selector: tc.sel})(ctx, t, c)
			if err != nil {
				t.Fatal(err)
			}
			if exp := filtered(ctx, t, c, tc.keep); got != exp {
				t.Fatalf("got %d pods, want %d", len(strings.Fields(got)), len(strings.Fields(exp)))
			}
		})
	}
}

// TestIndexLabel: a label index serves MatchingLabels and set-based selectors on its key, in
// pages, with the answer of a filter of the full list; a key that is not a label key is refused.
func TestIndexLabel(t *testing.T) {
	cl := newCluster(t, 120)
	c, err := ctrlcache.Build(cl.cfg, cache.Options{Scheme: scheme.Scheme}, ctrlcache.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.IndexLabel(ctx, &corev1.Pod{}, "app"); err != nil {
		t.Fatal(err)
	}
	if err := c.IndexLabel(ctx, &corev1.Pod{}, "app"); err != nil {
		t.Fatalf("a second IndexLabel of the same key: %v", err)
	}
	if err := c.IndexLabel(ctx, &corev1.Pod{}, "not a key!"); err == nil || !strings.Contains(err.Error(), "name part must consist of") {
		t.Fatalf("IndexLabel of an invalid key: %v, want the apiserver's qualified-name message", err)
	}
	run(t, c.Start, c.WaitForCacheSync)
	var p0 corev1.Pod
	if err := c.Get(ctx, client.ObjectKey{Namespace: cl.gen.PodNamespace(0), Name: cl.gen.PodName(0)}, &p0); err != nil {
		t.Fatal(err)
	}
	app := p0.Labels["app"]
	if app == "" {
		t.Fatal("pod 0 has no app label")
	}
	in, err := labels.Parse("app in (" + app + ", no-such-app)")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  client.ListOption
	}{
		{"=", client.MatchingLabels{"app": app}},
		{"in", client.MatchingLabelsSelector{Selector: in}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pagedKeys(4, tc.opt)(ctx, t, c)
			if err != nil {
				t.Fatal(err)
			}
			exp := filtered(ctx, t, c, func(p *corev1.Pod) bool { return p.Labels["app"] == app })
			if got != exp || exp == "" {
				t.Fatalf("got %d pods, want %d", len(strings.Fields(got)), len(strings.Fields(exp)))
			}
		})
	}
}
