package kube

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/watchcache"
)

// TestListReadsStatus: a failed list's Status body reaches the error and the log — the 410 of an
// expired continue token (after which the list starts over in one response) and a 403 — instead of
// client-go's "the server responded with the status code 410 but did not return more information".
func TestListReadsStatus(t *testing.T) {
	const expiredMessage = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	forbidden := false
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case forbidden:
			writeStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
				Message: `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope`,
				Details: &metav1.StatusDetails{Kind: "pods"}})
		case q.Get("continue") != "":
			writeStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: expiredMessage})
		case q.Get("limit") != "":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"tok"},"items":[{"metadata":{"name":"a","namespace":"n","resourceVersion":"4"}}]}`))
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"6"},"items":[{"metadata":{"name":"a","namespace":"n","resourceVersion":"4"}},{"metadata":{"name":"b","namespace":"n","resourceVersion":"6"}}]}`))
		}
	})
	srv := httptest.NewServer(api)
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedLog
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	defer c.Stop()
	s := testFeed(t, cs.CoreV1().RESTClient(), "pods", c, Options{PageSize: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})

	rv, err := s.list(context.Background())
	if err != nil || rv != 6 || c.Len() != 2 {
		t.Fatalf("list after an expired token: rv %d, %d objects, %v", rv, c.Len(), err)
	}
	if out := logs.String(); !strings.Contains(out, "too old to display a consistent list result") || strings.Contains(out, "did not return more information") {
		t.Fatalf("the log does not carry the 410's Status:\n%s", out)
	}

	forbidden = true
	_, err = s.list(context.Background())
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "system:anonymous" cannot list resource "pods"`) {
		t.Fatalf("list answered 403: %v", err)
	}
}

// lockedLog is a log buffer safe for concurrent writes.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
