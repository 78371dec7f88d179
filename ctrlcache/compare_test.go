package ctrlcache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/watchcache/watchcache/ctrlcache"
)

// impl is one cache implementation under comparison.
type impl struct {
	name string
	make func(t testing.TB, c *cluster, opts cache.Options) cache.Cache
}

var impls = []impl{
	{"controller-runtime", func(t testing.TB, c *cluster, opts cache.Options) cache.Cache {
		ca, err := cache.New(c.cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}},
	{"ctrlcache", func(t testing.TB, c *cluster, opts cache.Options) cache.Cache {
		ca, err := ctrlcache.New(c.cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}},
}

// keysOf renders objects as sorted "ns/name@rv", the identity both caches must agree on
// (controller-runtime's List order is a map walk's).
func keysOf(t testing.TB, list runtime.Object) []string {
	t.Helper()
	items, err := apimeta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		m, _ := apimeta.Accessor(it)
		out[i] = m.GetNamespace() + "/" + m.GetName() + "@" + m.GetResourceVersion()
	}
	sort.Strings(out)
	return out
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// byNode is controller-runtime's usual IndexField function.
func byNode(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }

func byImage(o client.Object) []string {
	var out []string
	for _, ct := range o.(*corev1.Pod).Spec.Containers {
		out = append(out, ct.Image)
	}
	return out
}

// compareCase is one read against both caches, ported from controller-runtime's
// pkg/cache/cache_test.go. ours, when set, is what this cache answers where controller-runtime's
// refuses (its answer is then checked against theirs, which must be an error containing
// refusal).
type compareCase struct {
	name    string
	opts    cache.Options
	index   func(ctx context.Context, c cache.Cache) error
	read    func(ctx context.Context, t testing.TB, c cache.Cache) (string, error)
	refusal string // controller-runtime's error where ours does more
}

func listKeys(list client.ObjectList, opts ...client.ListOption) func(context.Context, testing.TB, cache.Cache) (string, error) {
	return func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, opts...); err != nil {
			return "", err
		}
		return strings.Join(keysOf(t, l), " "), nil
	}
}

// pagedKeys lists in pages of n, following Continue.
func pagedKeys(n int64, opts ...client.ListOption) func(context.Context, testing.TB, cache.Cache) (string, error) {
	return func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
		var all []string
		cont := ""
		for {
			l := &corev1.PodList{}
			o := append(slices.Clone(opts), client.Limit(n), client.Continue(cont))
			if err := c.List(ctx, l, o...); err != nil {
				return "", err
			}
			if int64(len(l.Items)) > n {
				return "", fmt.Errorf("page of %d items, limit %d", len(l.Items), n)
			}
			all = append(all, keysOf(t, l)...)
			if l.Continue == "" {
				break
			}
			cont = l.Continue
		}
		sort.Strings(all)
		return strings.Join(all, " "), nil
	}
}

// filtered lists every pod and keeps those keep accepts: the expected answer of a selector
// controller-runtime refuses.
func filtered(ctx context.Context, t testing.TB, c cache.Cache, keep func(*corev1.Pod) bool) string {
	l := &corev1.PodList{}
	if err := c.List(ctx, l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range l.Items {
		if p := &l.Items[i]; keep(p) {
			out = append(out, p.Namespace+"/"+p.Name+"@"+p.ResourceVersion)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func getKey(obj client.Object, ns, name string) func(context.Context, testing.TB, cache.Cache) (string, error) {
	return func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
		o := obj.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o); err != nil {
			if apierrors.IsNotFound(err) {
				return "NotFound", nil
			}
			return "", err
		}
		gvk := o.GetObjectKind().GroupVersionKind()
		return fmt.Sprintf("%s/%s@%s %s labels=%v", o.GetNamespace(), o.GetName(), o.GetResourceVersion(), gvk.Kind, o.GetLabels()), nil
	}
}

// TestAgainstControllerRuntime runs the same reads against controller-runtime's informer cache and
// this one, both fed by the same server, and requires the same answers, except where
// controller-runtime refuses a read this cache serves (refusal), which is then checked against a
// filter of the full list.
func TestAgainstControllerRuntime(t *testing.T) {
	cl := newCluster(t, 240)
	gen := cl.gen
	ns0, ns1 := gen.PodNamespace(0), gen.PodNamespace(1)
	if ns0 == ns1 {
		ns1 = gen.PodNamespace(2)
	}
	node := gen.PodNode(0)
	name0 := gen.PodName(0)
	podU := &unstructured.Unstructured{}
	podU.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	podListU := &unstructured.UnstructuredList{}
	podListU.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	podM := &metav1.PartialObjectMetadata{}
	podM.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	podListM := &metav1.PartialObjectMetadataList{}
	podListM.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	anyLabel := func(ctx context.Context, t testing.TB, c cache.Cache) (string, string) {
		p := &corev1.Pod{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns0, Name: name0}, p); err != nil {
			t.Fatal(err)
		}
		keys := make([]string, 0, len(p.Labels))
		for k := range p.Labels {
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			t.Fatal("pod 0 has no labels")
		}
		sort.Strings(keys)
		return keys[0], p.Labels[keys[0]]
	}

	cases := []compareCase{
		{name: "get typed", read: getKey(&corev1.Pod{}, ns0, name0)},
		{name: "get missing", read: getKey(&corev1.Pod{}, ns0, "no-such-pod")},
		{name: "get unstructured", read: getKey(podU, ns0, name0)},
		{name: "get metadata", read: getKey(podM, ns0, name0)},
		{name: "get cluster-scoped", read: getKey(&corev1.Namespace{}, "", ns0)},
		{name: "list all", read: listKeys(&corev1.PodList{})},
		{name: "list namespace", read: listKeys(&corev1.PodList{}, client.InNamespace(ns0))},
		{name: "list unstructured", read: listKeys(podListU, client.InNamespace(ns1))},
		{name: "list metadata", read: listKeys(podListM)},
		{name: "list namespaces", read: listKeys(&corev1.NamespaceList{})},
		{name: "list label selector", read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
			k, v := anyLabel(ctx, t, c)
			return listKeys(&corev1.PodList{}, client.MatchingLabels{k: v})(ctx, t, c)
		}},
		{name: "list label selector set-based", read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
			k, v := anyLabel(ctx, t, c)
			sel, err := labels.Parse(k + " notin (" + v + ")")
			if err != nil {
				return "", err
			}
			return listKeys(&corev1.PodList{}, client.MatchingLabelsSelector{Selector: sel})(ctx, t, c)
		}},
		{name: "IndexField exact", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
		}, read: listKeys(&corev1.PodList{}, client.MatchingFields{"spec.nodeName": node})},
		{name: "IndexField in namespace", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
		}, read: listKeys(&corev1.PodList{}, client.InNamespace(ns1), client.MatchingFields{"spec.nodeName": node})},
		{name: "IndexField multi-valued", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "image", byImage)
		}, read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
			p := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns0, Name: name0}, p); err != nil {
				return "", err
			}
			img := p.Spec.Containers[len(p.Spec.Containers)-1].Image
			return listKeys(&corev1.PodList{}, client.MatchingFields{"image": img})(ctx, t, c)
		}},
		{name: "IndexField two fields", index: func(ctx context.Context, c cache.Cache) error {
			if err := c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode); err != nil {
				return err
			}
			return c.IndexField(ctx, &corev1.Pod{}, "image", byImage)
		}, read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
			p := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns0, Name: name0}, p); err != nil {
				return "", err
			}
			return listKeys(&corev1.PodList{}, client.MatchingFields{"spec.nodeName": node, "image": p.Spec.Containers[0].Image})(ctx, t, c)
		}},
		{name: "DefaultNamespaces", opts: cache.Options{DefaultNamespaces: map[string]cache.Config{ns0: {}}},
			read: listKeys(&corev1.PodList{})},
		{name: "DefaultNamespaces two", opts: cache.Options{DefaultNamespaces: map[string]cache.Config{ns0: {}, ns1: {}}},
			read: listKeys(&corev1.PodList{})},
		{name: "DefaultNamespaces get elsewhere", opts: cache.Options{DefaultNamespaces: map[string]cache.Config{ns0: {}}},
			read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
				_, err := getKey(&corev1.Pod{}, ns1, gen.PodName(1))(ctx, t, c)
				if err == nil {
					return "", errors.New("a pod of an uncached namespace was read")
				}
				return "refused", nil
			}},
		{name: "ByObject field selector", opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Field: fields.OneTermEqualSelector("spec.nodeName", node)}}},
			read: listKeys(&corev1.PodList{})},
		{name: "ByObject label selector", opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Label: labels.SelectorFromSet(labels.Set{"app": "web"})}}},
			read: listKeys(&corev1.PodList{})},
		{name: "DefaultTransform", opts: cache.Options{DefaultTransform: func(o any) (any, error) {
			o.(client.Object).SetLabels(map[string]string{"transformed": "yes"})
			return o, nil
		}}, read: getKey(&corev1.Pod{}, ns0, name0)},
		{name: "ByObject namespaces", opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Namespaces: map[string]cache.Config{ns1: {}}}}},
			read: listKeys(&corev1.PodList{})},
		{name: "ByObject namespace with its own label selector", opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Namespaces: map[string]cache.Config{ns0: {LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}, ns1: {}}}}},
			read: listKeys(&corev1.PodList{})},
		{name: "ByObject Transform", opts: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Transform: func(o any) (any, error) {
				o.(client.Object).SetAnnotations(map[string]string{"by-object": "yes"})
				return o, nil
			}}}},
			read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
				p := &corev1.Pod{}
				if err := c.Get(ctx, client.ObjectKey{Namespace: ns0, Name: name0}, p); err != nil {
					return "", err
				}
				ns := &corev1.Namespace{}
				if err := c.Get(ctx, client.ObjectKey{Name: ns0}, ns); err != nil {
					return "", err
				}
				return fmt.Sprintf("pod annotations %v, namespace annotations %v", p.Annotations, ns.Annotations), nil
			}},
		{name: "IndexField ==", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
		}, read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
			sel, err := fields.ParseSelector("spec.nodeName==" + node)
			if err != nil {
				return "", err
			}
			return listKeys(&corev1.PodList{}, client.MatchingFieldsSelector{Selector: sel})(ctx, t, c)
		}},
		{name: "ReaderFailOnMissingInformer after GetInformer", opts: cache.Options{ReaderFailOnMissingInformer: true},
			index: func(ctx context.Context, c cache.Cache) error {
				_, err := c.GetInformer(ctx, &corev1.Pod{})
				return err
			},
			read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
				get, err := getKey(&corev1.Pod{}, ns0, name0)(ctx, t, c)
				err = c.List(ctx, &corev1.NamespaceList{})
				var nc *cache.ErrResourceNotCached
				return fmt.Sprintf("%s; namespaces ErrResourceNotCached=%v", get, errors.As(err, &nc)), nil
			}},
		{name: "ReaderFailOnMissingInformer", opts: cache.Options{ReaderFailOnMissingInformer: true},
			read: func(ctx context.Context, t testing.TB, c cache.Cache) (string, error) {
				err := c.Get(ctx, client.ObjectKey{Namespace: ns0, Name: name0}, &corev1.Pod{})
				var nc *cache.ErrResourceNotCached
				return fmt.Sprintf("ErrResourceNotCached=%v", errors.As(err, &nc)), nil
			}},

		// Where this cache does more.
		{name: "Limit and Continue", read: pagedKeys(7), refusal: "continue list option is not supported by the cache"},
		{name: "Limit and Continue, indexed", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
		}, read: pagedKeys(3, client.MatchingFields{"spec.nodeName": node}), refusal: "continue list option is not supported by the cache"},
		{name: "field selector without an index", read: listKeys(&corev1.PodList{}, client.MatchingFields{"spec.nodeName": node}),
			refusal: "does not exist"},
		{name: "field selector !=", index: func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
		}, read: listKeys(&corev1.PodList{}, client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("spec.nodeName", node)}),
			refusal: "non-exact field matches are not supported by the cache"},
		{name: "field selector status.phase", read: listKeys(&corev1.PodList{}, client.MatchingFields{"status.phase": "Running"}),
			refusal: "does not exist"},
	}
	expect := map[string]func(*corev1.Pod) bool{
		"Limit and Continue":              func(*corev1.Pod) bool { return true },
		"Limit and Continue, indexed":     func(p *corev1.Pod) bool { return p.Spec.NodeName == node },
		"field selector without an index": func(p *corev1.Pod) bool { return p.Spec.NodeName == node },
		"field selector !=":               func(p *corev1.Pod) bool { return p.Spec.NodeName != node },
		"field selector status.phase":     func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning },
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var answers [2]string
			var errs [2]error
			for i, im := range impls {
				opts := tc.opts
				opts.Scheme = scheme.Scheme
				c := im.make(t, cl, opts)
				ctx := context.Background()
				if tc.index != nil {
					if err := tc.index(ctx, c); err != nil {
						t.Fatalf("%s: index: %v", im.name, err)
					}
				}
				run(t, c.Start, c.WaitForCacheSync)
				answers[i], errs[i] = tc.read(ctx, t, c)
				if i == 1 && tc.refusal != "" && errs[1] == nil {
					if want := filtered(ctx, t, c, expect[tc.name]); answers[1] != want || want == "" {
						t.Fatalf("ours: %d keys, want the %d of a filter of the full list", len(strings.Fields(answers[1])), len(strings.Fields(want)))
					}
				}
			}
			if tc.refusal != "" {
				if errs[0] == nil || !strings.Contains(errs[0].Error(), tc.refusal) {
					t.Fatalf("controller-runtime: %q, %v; want its refusal %q", answers[0], errs[0], tc.refusal)
				}
				if errs[1] != nil {
					t.Fatalf("ctrlcache: %v", errs[1])
				}
				t.Logf("controller-runtime refuses (%v); ctrlcache answers %d objects", errs[0], len(strings.Fields(answers[1])))
				return
			}
			if errText(errs[0]) != errText(errs[1]) || answers[0] != answers[1] {
				t.Fatalf("differ:\ncontroller-runtime %.300s (err %v)\nctrlcache          %.300s (err %v)", answers[0], errs[0], answers[1], errs[1])
			}
			if answers[0] == "" && errs[0] == nil {
				t.Fatal("both answered nothing: the case checks nothing")
			}
		})
	}
}

// model is an event handler that keeps the objects it was told about, and counts.
type model struct {
	mu      sync.Mutex
	objs    map[string]string
	initial int
	calls   int
	bad     []string
	seq     map[string][]string // each key's calls in order: "add@rv", "update rv>rv", "delete@rv"
}

func newModel() *model { return &model{objs: map[string]string{}, seq: map[string][]string{}} }

func podKey(o any) (string, string) {
	switch p := o.(type) {
	case *corev1.Pod:
		return p.Namespace + "/" + p.Name, p.ResourceVersion
	case toolscache.DeletedFinalStateUnknown:
		return p.Key, ""
	}
	return fmt.Sprintf("%T", o), ""
}

func (m *model) OnAdd(o any, initial bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, rv := podKey(o)
	if _, ok := m.objs[k]; ok {
		m.bad = append(m.bad, "add of held "+k)
	}
	m.objs[k] = rv
	m.seq[k] = append(m.seq[k], "add@"+rv)
	m.calls++
	if initial {
		m.initial++
	}
}

func (m *model) OnUpdate(old, o any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, rv := podKey(o)
	if _, orv := podKey(old); m.objs[k] != orv {
		m.bad = append(m.bad, "update of "+k+" from "+orv)
	}
	_, orv := podKey(old)
	m.seq[k] = append(m.seq[k], "update "+orv+">"+rv)
	m.objs[k] = rv
	m.calls++
}

func (m *model) OnDelete(o any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, rv := podKey(o)
	if _, ok := m.objs[k]; !ok {
		m.bad = append(m.bad, "delete of unknown "+k)
	}
	m.seq[k] = append(m.seq[k], fmt.Sprintf("delete@%s(%T)", rv, o))
	delete(m.objs, k)
	m.calls++
}

func (m *model) state() (string, int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k, rv := range m.objs {
		out = append(out, k+"@"+rv)
	}
	sort.Strings(out)
	return strings.Join(out, " "), m.initial, m.calls
}

// sequences renders every key's calls in order, one line per key, sorted by key.
func (m *model) sequences() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k, s := range m.seq {
		out = append(out, k+": "+strings.Join(s, ", "))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestHandlersAgainstControllerRuntime: handlers on both caches' informers see the same initial
// list (isInInitialList) and, for every key, the same sequence of calls under churn (the same
// adds, updates from and to the same resourceVersions, deletes of the same Go type), one call per
// change.
func TestHandlersAgainstControllerRuntime(t *testing.T) {
	cl := newCluster(t, 150)
	var models [2]*model
	var caches [2]cache.Cache
	for i, im := range impls {
		c := im.make(t, cl, cache.Options{Scheme: scheme.Scheme})
		caches[i] = c
		run(t, c.Start, c.WaitForCacheSync)
		inf, err := c.GetInformer(context.Background(), &corev1.Pod{})
		if err != nil {
			t.Fatal(err)
		}
		models[i] = newModel()
		reg, err := inf.AddEventHandler(models[i])
		if err != nil {
			t.Fatal(err)
		}
		if !toolscache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) || !inf.HasSynced() || inf.IsStopped() {
			t.Fatalf("%s: handler not synced", im.name)
		}
	}
	for range 10 {
		cl.step(t, 30)
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s0, i0, n0 := models[0].state()
		s1, i1, n1 := models[1].state()
		if s0 == s1 && n0 == n1 && strings.Contains(s0, fmt.Sprint("@", lastRV(t, caches[1]))) || time.Now().After(deadline) {
			if s0 != s1 || i0 != i1 || n0 != n1 {
				t.Fatalf("handlers differ: controller-runtime %d initial, %d calls; ctrlcache %d initial, %d calls", i0, n0, i1, n1)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i, m := range models {
		if len(m.bad) > 0 {
			t.Fatalf("%s: %v", impls[i].name, m.bad)
		}
	}
	if s0, s1 := models[0].sequences(), models[1].sequences(); s0 != s1 {
		l0, l1 := strings.Split(s0, "\n"), strings.Split(s1, "\n")
		for i := range min(len(l0), len(l1)) {
			if l0[i] != l1[i] {
				t.Fatalf("the calls of a key differ:\ncontroller-runtime %s\nctrlcache          %s", l0[i], l1[i])
			}
		}
		t.Fatalf("controller-runtime's handler saw %d keys, ctrlcache's %d", len(l0), len(l1))
	}
	_, initial, calls := models[1].state()
	if initial != 150 || calls != 150+300 {
		t.Fatalf("%d initial adds, %d calls; want 150 and one call per change (450)", initial, calls)
	}
}

// lastRV is the newest resourceVersion a pod list of c shows.
func lastRV(t testing.TB, c cache.Cache) string {
	l := &corev1.PodList{}
	if err := c.List(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	best := ""
	for _, p := range l.Items {
		if len(p.ResourceVersion) > len(best) || len(p.ResourceVersion) == len(best) && p.ResourceVersion > best {
			best = p.ResourceVersion
		}
	}
	return best
}
