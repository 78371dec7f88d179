package paging_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/watchcache/watchcache/fake"
)

// podsOnNode is the code under test: the names of the pods on a node, listed in pages.
func podsOnNode(ctx context.Context, cs kubernetes.Interface, node string, pageSize int64) ([]string, int, error) {
	var names []string
	pages := 0
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		pages++
		return cs.CoreV1().Pods("").List(ctx, opts)
	})
	p.PageSize = pageSize
	err := p.EachListItem(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node}, func(obj runtime.Object) error {
		names = append(names, obj.(*corev1.Pod).Name)
		return nil
	})
	return names, pages, err
}

func TestPodsOnNode(t *testing.T) {
	var objs []runtime.Object
	for i := range 50 {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%02d", i), Namespace: "default"},
			Spec:       corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%3), Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		})
	}
	srv := fake.NewTest(t, fake.Options{Objects: objs})
	cs := kubernetes.NewForConfigOrDie(srv.Config())

	names, pages, err := podsOnNode(context.Background(), cs, "node-1", 5)
	if err != nil {
		t.Fatal(err)
	}
	// 17 of the 50 pods are on node-1 (1, 4, …, 49): 4 pages of 5 (the last has 2 items).
	if len(names) != 17 || names[0] != "pod-01" || names[16] != "pod-49" {
		t.Errorf("pods %v, want the 17 on node-1 in name order", names)
	}
	if pages != 4 {
		t.Errorf("%d pages, want 4", pages)
	}

	// A page and its continuation are one snapshot: a pod created between them is not listed.
	first, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	late := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-zz"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(context.Background(), late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rest, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{Continue: first.Continue})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(first.Items) + len(rest.Items); n != 50 || rest.ResourceVersion != first.ResourceVersion {
		t.Errorf("%d pods at RVs %s and %s, want 50 at one RV", n, first.ResourceVersion, rest.ResourceVersion)
	}
}
