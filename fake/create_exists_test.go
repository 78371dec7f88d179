package fake_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

// TestCreateExists pins a create of a name that exists, found by the commit's comparison rather
// than a read before it: the 409 (dry run or not) is the apiserver's AlreadyExists and carries the
// strategy's warnings, which come after validation (a PersistentVolume with the Recycle policy
// warns), and the stored object stays as it was.
func TestCreateExists(t *testing.T) {
	h, err := fake.NewHandler(fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const pv = `{"metadata":{"name":"pv1","labels":{"try":"%s"}},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],` +
		`"persistentVolumeReclaimPolicy":"Recycle","nfs":{"server":"10.0.0.3","path":"/x"}}}`
	const warning = `299 - "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."`
	do := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := do("POST", "/api/v1/persistentvolumes", strings.Replace(pv, "%s", "first", 1)); rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/api/v1/persistentvolumes", "/api/v1/persistentvolumes?dryRun=All"} {
		rec := do("POST", path, strings.Replace(pv, "%s", "second", 1))
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), `"reason":"AlreadyExists"`) ||
			!strings.Contains(rec.Body.String(), `"message":"persistentvolumes \"pv1\" already exists"`) {
			t.Errorf("POST %s again: %d %s", path, rec.Code, rec.Body)
		}
		if got := rec.Header().Values("Warning"); len(got) != 1 || got[0] != warning {
			t.Errorf("POST %s again: warnings %q, want [%s]", path, got, warning)
		}
	}
	rec := do("GET", "/api/v1/persistentvolumes/pv1", "")
	if !strings.Contains(rec.Body.String(), `"try":"first"`) || !strings.Contains(rec.Body.String(), `"resourceVersion"`) {
		t.Fatalf("stored: %s", rec.Body)
	}
}
