package kubeapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/internal/wire"
	"github.com/watchcache/watchcache/watchcache"
)

// TestNotAcceptable: an Accept header this server cannot answer gets the apiserver's 406 in the
// apiserver's words (testdata/oracle/notacceptable-*.http, reference/observed-fidelity.md "406"):
// "406: Not Acceptable" with the representations served and empty details when no media type
// matches — a collection's path lists the watch stream too, an object's does not — and "only the
// following media types are accepted" without details when JSON is asked in a form not served,
// and by /apis and /apis/{group}. Resource endpoints name JSON, YAML and protobuf, as the
// apiserver's; discovery names JSON only (the apiserver also serves it in YAML and protobuf);
// everything else is the recorded answer.
func TestNotAcceptable(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	const (
		notAcc = "406: Not Acceptable\n\nAvailable representations: "
		only   = "only the following media types are accepted: "
		all    = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
		stream = ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
	)
	tests := []struct {
		recorded, path, accept string
		message                string
	}{
		{"notacceptable-list-xml", "/api/v1/namespaces/ns-0/pods", "application/xml", notAcc + all + stream},
		{"notacceptable-xml", "/api/v1/pods", "application/xml", notAcc + all + stream},
		{"notacceptable-get-xml", "/api/v1/namespaces/ns-0/pods/pod-000000", "application/xml", notAcc + all},
		{"notacceptable-watch-named-xml", "/api/v1/namespaces/ns-0/pods/pod-000000?watch=1", "application/xml", notAcc + all},
		{"notacceptable-table-v2", "/api/v1/namespaces/ns-0/pods", "application/json;as=Table;g=meta.k8s.io;v=v2", only + all},
		{"notacceptable-api-xml", "/api", "application/xml", notAcc + "application/json"},
		{"notacceptable-groupversion-xml", "/api/v1", "application/xml", notAcc + "application/json"},
		{"notacceptable-apis-xml", "/apis", "application/xml", only + "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.recorded, func(t *testing.T) {
			want := readRecorded(t, tt.recorded)
			var rec metav1.Status
			if err := json.Unmarshal(want.body, &rec); err != nil {
				t.Fatal(err)
			}
			r := do(t, "GET", cl.http.URL+tt.path, "Accept", tt.accept)
			var got metav1.Status
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("%d %s", r.code, r.body)
			}
			if r.code != want.code || got.Code != rec.Code || got.Reason != rec.Reason || got.Status != rec.Status ||
				got.Kind != rec.Kind || got.APIVersion != rec.APIVersion {
				t.Errorf("%d %+v\nrecorded %d %+v", r.code, got, want.code, rec)
			}
			if (got.Details == nil) != (rec.Details == nil) || (got.Details != nil && !reflect.DeepEqual(*got.Details, *rec.Details)) {
				t.Errorf("details %+v, recorded %+v", got.Details, rec.Details)
			}
			if got.Message != tt.message {
				t.Errorf("message %q\nwant    %q", got.Message, tt.message)
			}
			// The recorded answer has the same words, and lists everything this server lists.
			prefix, list, _ := strings.Cut(tt.message, ": ")
			if strings.HasPrefix(tt.message, notAcc) {
				prefix, list = notAcc, strings.TrimPrefix(tt.message, notAcc)
			} else {
				prefix += ": "
			}
			if !strings.HasPrefix(rec.Message, prefix) {
				t.Errorf("recorded message %q does not start with %q", rec.Message, prefix)
			}
			served := strings.Split(strings.TrimPrefix(rec.Message, prefix), ", ")
			for _, m := range strings.Split(list, ", ") {
				if !contains(strings.Join(served, "|")+"|", m+"|") {
					t.Errorf("%s is not in the recorded list %q", m, served)
				}
			}
		})
	}
}

// TestVersionPriority: discovery lists a group's versions as the apiserver does, by version
// priority and not by registration order — GA before beta before alpha, a higher major then a
// higher minor number first — and prefers the first: a custom resource whose versions are
// registered as v1alpha1, v1beta1, v2beta1, v1, v10, v2 is listed v10, v2, v1, v2beta1, v1beta1,
// v1alpha1 with v10 preferred (testdata/oracle/discovery-version-priority.http).
func TestVersionPriority(t *testing.T) {
	want := readRecorded(t, "discovery-version-priority")
	var rec metav1.APIGroup
	if err := json.Unmarshal(want.body, &rec); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		versions  []string // registration order
		listed    []string
		preferred string
	}{
		{"recorded", []string{"v1alpha1", "v1beta1", "v2beta1", "v1", "v10", "v2"}, nil, ""},
		{"beta listed before GA", []string{"v1beta1", "v1"}, []string{"v1", "v1beta1"}, "v1"},
		{"alpha before beta", []string{"v1alpha1", "v1beta2", "v1beta1"}, []string{"v1beta2", "v1beta1", "v1alpha1"}, "v1beta2"},
		{"GA only", []string{"v1", "v2"}, []string{"v2", "v1"}, "v2"},
		{"not kube-like last", []string{"foo", "v1alpha1"}, []string{"v1alpha1", "foo"}, "v1alpha1"},
	}
	for _, g := range rec.Versions {
		tests[0].listed = append(tests[0].listed, g.Version)
	}
	tests[0].preferred = rec.PreferredVersion.Version
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewServer(Options{})
			for _, v := range tt.versions {
				c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "widgets", Group: "prio.example.com", Namespaced: true}})
				t.Cleanup(c.Stop)
				if err := c.Replace(nil, 1); err != nil {
					t.Fatal(err)
				}
				if err := s.Register(ResourceInfo{Group: "prio.example.com", Version: v, Resource: "widgets", Kind: "Widget", Namespaced: true}, c); err != nil {
					t.Fatal(err)
				}
			}
			h := httptest.NewServer(s)
			t.Cleanup(h.Close)
			srv := h.URL
			var group metav1.APIGroup
			var list metav1.APIGroupList
			for path, v := range map[string]any{"/apis/prio.example.com": &group, "/apis": &list} {
				r := do(t, "GET", srv+path)
				if r.code != http.StatusOK {
					t.Fatalf("%s: %d %s", path, r.code, r.body)
				}
				if err := json.Unmarshal(r.body, v); err != nil {
					t.Fatal(err)
				}
			}
			if len(list.Groups) != 1 || !reflect.DeepEqual(list.Groups[0], metav1.APIGroup{Name: group.Name, Versions: group.Versions, PreferredVersion: group.PreferredVersion}) {
				t.Errorf("/apis %+v, /apis/prio.example.com %+v", list.Groups, group)
			}
			var listed []string
			for _, g := range group.Versions {
				listed = append(listed, g.Version)
				if g.GroupVersion != "prio.example.com/"+g.Version {
					t.Errorf("groupVersion %q", g.GroupVersion)
				}
			}
			if !reflect.DeepEqual(listed, tt.listed) || group.PreferredVersion.Version != tt.preferred {
				t.Errorf("versions %v preferred %q, want %v preferred %q", listed, group.PreferredVersion.Version, tt.listed, tt.preferred)
			}
		})
	}
}

// TestDeprecationWarning: every answer about a resource the apiserver deprecates carries its
// Warning header (testdata/oracle/warnings.txt: v1 endpoints and componentstatuses), a 404 of one
// object and a watch included; other resources carry none.
func TestDeprecationWarning(t *testing.T) {
	b, err := os.ReadFile("testdata/oracle/warnings.txt")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]string{} // path → header value
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		path, header, _ := strings.Cut(line, " warning: ")
		recorded[path] = header
	}
	s := NewServer(Options{})
	for _, r := range []string{"endpoints", "configmaps"} {
		info, _ := CoreResource(r)
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: r, Namespaced: true}})
		t.Cleanup(c.Stop)
		if err := c.Replace([][]byte{[]byte(`{"kind":"X","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}`)}, 1); err != nil {
			t.Fatal(err)
		}
		if err := s.Register(info, c); err != nil {
			t.Fatal(err)
		}
	}
	h := httptest.NewServer(s)
	t.Cleanup(h.Close)
	tests := []struct {
		path, want string
	}{
		{"/api/v1/endpoints", recorded["/api/v1/endpoints"]},
		{"/api/v1/namespaces/n/endpoints/a", recorded["/api/v1/endpoints"]},
		{"/api/v1/namespaces/n/endpoints/nope", recorded["/api/v1/endpoints"]},
		{"/api/v1/endpoints?watch=1&timeoutSeconds=1", recorded["/api/v1/endpoints"]},
		{"/api/v1/configmaps", ""},
	}
	if tests[0].want == "" {
		t.Fatal("no recorded warning for endpoints")
	}
	for _, tt := range tests {
		r := do(t, "GET", h.URL+tt.path)
		if got := strings.Join(r.header.Values("Warning"), "|"); got != tt.want {
			t.Errorf("%s: Warning %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestNegotiateEncodings: negotiate as a pure function over the Accept header, for a built-in
// resource and a custom one (reference/observed-encodings.md "Negotiation", each row recorded in
// testdata/encodings).
func TestNegotiateEncodings(t *testing.T) {
	const pb = "application/vnd.kubernetes.protobuf"
	tests := []struct {
		accept     string
		custom     bool
		format     format
		enc        wire.Encoding
		why        refusal
		errorsAsPB bool // the error Statuses of the request are protobuf
	}{
		{"", false, formatJSON, wire.JSON, 0, false},
		{pb, false, formatJSON, wire.Protobuf, 0, true},
		{"application/yaml", false, formatJSON, wire.YAML, 0, false},
		{pb + ", */*", false, formatJSON, wire.Protobuf, 0, true},
		{"application/json;q=0.5, " + pb + ";q=0.9", false, formatJSON, wire.Protobuf, 0, true},
		{"application/yaml;q=0.9, application/json;q=0.8", false, formatJSON, wire.YAML, 0, false},
		{pb + ";q=0.5, application/json", false, formatJSON, wire.JSON, 0, false},
		{"*/*", false, formatJSON, wire.JSON, 0, false},
		{pb + ";q=0", false, formatJSON, wire.Protobuf, 0, true},
		{"application/*", false, 0, 0, noMediaType, false},
		{"application/xml", false, 0, 0, noMediaType, false},
		{pb + ";as=Table;v=v1;g=meta.k8s.io", false, 0, 0, noConversion, false},
		{pb + ";as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io", false, formatTable, wire.JSON, 0, false},
		{"application/yaml;as=Table;v=v1;g=meta.k8s.io", false, formatTable, wire.YAML, 0, false},
		{pb + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", false, formatMeta, wire.Protobuf, 0, false},
		{pb, true, 0, 0, noConversion, true},
		{pb + ", */*", true, formatJSON, wire.JSON, 0, true},
		{"application/yaml", true, formatJSON, wire.YAML, 0, false},
		{pb + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1", true, formatMeta, wire.Protobuf, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			out, why := negotiate(tt.accept, tt.custom, !tt.custom)
			if why != tt.why || (why == 0 && (out.format != tt.format || out.enc != tt.enc)) {
				t.Errorf("negotiate(custom=%t) = %+v, %d; want format %d enc %d, refusal %d", tt.custom, out, why, tt.format, tt.enc, tt.why)
			}
			if got := errorEncoding(tt.accept) == wire.Protobuf; got != tt.errorsAsPB {
				t.Errorf("errorEncoding = %d, want protobuf %t", errorEncoding(tt.accept), tt.errorsAsPB)
			}
		})
	}
}
