package fake_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// A JSON patch on which the patch library panics ("test" at the document root without a value)
// gets no response at all, as from kube-apiserver 1.37.2 (reference/observed-patch.md, "library
// panic": HTTP/1.1 empty reply, HTTP/2 stream reset); the object is unchanged and the server keeps
// serving.
func TestPatchLibraryPanicAbortsRequest(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPatch, srv.URL()+"/api/v1/namespaces/default/configmaps/cm",
		bytes.NewReader([]byte(`[{"op":"test","path":""}]`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%s), want the connection aborted", resp.Status)
	}
	got, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the server stopped serving after the aborted request: %v", err)
	}
	if got.ResourceVersion != cm.ResourceVersion || got.Data["a"] != "b" {
		t.Fatalf("object changed: rv %s -> %s, data %v", cm.ResourceVersion, got.ResourceVersion, got.Data)
	}
}
