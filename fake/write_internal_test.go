package fake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
)

// TestCreateOptionsValidation pins what create's skip of the options' validation relies on: the
// options a client leaves empty are valid, and any option set is validated as before.
func TestCreateOptionsValidation(t *testing.T) {
	if errs := metav1validation.ValidateCreateOptions(&metav1.CreateOptions{}); len(errs) > 0 {
		t.Fatalf("empty create options: %v", errs)
	}
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		query string
		code  int
	}{
		{"", http.StatusCreated},
		{"?dryRun=All", http.StatusCreated},
		{"?dryRun=", http.StatusUnprocessableEntity},
		{"?dryRun=Some", http.StatusUnprocessableEntity},
		{"?fieldValidation=Bogus", http.StatusUnprocessableEntity},
		{"?fieldManager=%01", http.StatusUnprocessableEntity},
	} {
		req := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps"+c.query, strings.NewReader(`{"metadata":{"generateName":"c-"}}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("POST%s: %d %s, want %d", c.query, rec.Code, rec.Body, c.code)
		}
	}
}
