package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestGeneratedPodsSurviveWrites: a label written to a generated pod (a merge patch, as kubectl
// label sends it) is accepted and the pod stays. The generated pods are stored without the
// apiserver's defaults; the fake decodes a stored object with them, as the apiserver's storage
// decoder does, so the pod update rules compare like with like (without it: 422, "pod updates may
// not change fields").
func TestGeneratedPodsSurviveWrites(t *testing.T) {
	base, _ := startServe(t, tinyCluster...)
	var l struct {
		Items []metav1.PartialObjectMetadata
	}
	if code := getJSON(t, base+"/api/v1/pods?limit=1", &l); code != http.StatusOK || len(l.Items) != 1 {
		t.Fatalf("list: %d %d items", code, len(l.Items))
	}
	p := l.Items[0]
	if len(p.OwnerReferences) == 0 {
		t.Fatalf("generated pod %s/%s has no owner reference: the test proves nothing", p.Namespace, p.Name)
	}
	path := base + "/api/v1/namespaces/" + p.Namespace + "/pods/" + p.Name
	req, _ := http.NewRequest(http.MethodPatch, path, strings.NewReader(`{"metadata":{"labels":{"touched":"yes"}}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("patch: %d %s", resp.StatusCode, body)
	}
	// The fake's collector acts within milliseconds of a write: give it ample time.
	time.Sleep(300 * time.Millisecond)
	if code := getJSON(t, path, nil); code != http.StatusOK {
		t.Fatalf("the patched pod: %d, want it kept", code)
	}
}
