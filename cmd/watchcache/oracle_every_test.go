package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listablePaths returns the collection path of every resource the apiserver's discovery lists at
// its group's preferred version with the list and watch verbs, except those in skip (by
// "resource.group"): what serve must serve.
func listablePaths(t *testing.T, k *kas, skip ...string) []string {
	t.Helper()
	var paths []string
	add := func(prefix, group string, body []byte) {
		var l metav1.APIResourceList
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			name := strings.TrimSuffix(r.Name+"."+group, ".")
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") || slices.Contains(skip, name) {
				continue
			}
			paths = append(paths, prefix+"/"+r.Name)
		}
	}
	_, core := k.do(t, http.MethodGet, "/api/v1", nil)
	add("/api/v1", "", core)
	_, groupsBody := k.do(t, http.MethodGet, "/apis", nil)
	var groups metav1.APIGroupList
	if err := json.Unmarshal(groupsBody, &groups); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		prefix := "/apis/" + g.PreferredVersion.GroupVersion
		_, b := k.do(t, http.MethodGet, prefix, nil)
		add(prefix, g.Name, b)
	}
	return paths
}

// sameItems compares two lists' items as compareLists does, but returns the difference instead
// of failing, so that a caller can ask again while the apiserver writes (its own leases).
func sameItems(want, got []byte) string {
	wi, gi := gjson.GetBytes(want, "items").Array(), gjson.GetBytes(got, "items").Array()
	if len(wi) != len(gi) {
		return fmt.Sprintf("%d items, apiserver %d", len(gi), len(wi))
	}
	for i := range wi {
		// Built-in list items have no kind and apiVersion at the apiserver; serve's keep them.
		g := gi[i].Raw
		for _, f := range []string{"kind", "apiVersion"} {
			if !wi[i].Get(f).Exists() {
				g = strings.Replace(g, `"`+f+`":"`+gi[i].Get(f).Str+`",`, "", 1)
			}
		}
		if g != wi[i].Raw {
			return fmt.Sprintf("item %d:\n ours      %s\n apiserver %s", i, g, wi[i].Raw)
		}
	}
	return ""
}

// compareEvery lists every path from the apiserver and from serve (with query added to ours)
// and compares the items; a difference is asked again for up to 10 s, as the apiserver renews
// its leases and serve follows it by a watch.
func compareEvery(t *testing.T, k, ours *kas, paths []string, query string) {
	t.Helper()
	for _, path := range paths {
		t.Run("list "+path, func(t *testing.T) {
			var diff string
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				wantCode, want := k.do(t, http.MethodGet, path, nil)
				gotCode, got := ours.do(t, http.MethodGet, path+query, nil)
				if wantCode != http.StatusOK || gotCode != http.StatusOK {
					diff = fmt.Sprintf("apiserver %d, ours %d: %.300s", wantCode, gotCode, got)
				} else if diff = sameItems(want, got); diff == "" {
					return
				}
				if time.Now().After(deadline) {
					t.Fatal(diff)
				}
			}
		})
	}
}

// knobsCRD is a CRD the end-to-end tests create, with printer columns: base "knob" and id 7 give
// knob7s.example.net of kind Knob7. A new id per run makes it new to the apiserver.
func knobsCRD(base string, id int64) map[string]any {
	singular := fmt.Sprintf("%s%d", base, id)
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": singular + "s.example.net"},
		"spec": map[string]any{"group": "example.net", "scope": "Namespaced",
			"names": map[string]any{"plural": singular + "s", "singular": singular, "kind": strings.ToUpper(singular[:1]) + singular[1:]},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"additionalPrinterColumns": []any{
					map[string]any{"name": "Level", "type": "integer", "jsonPath": ".spec.level"},
					map[string]any{"name": "Label", "type": "string", "jsonPath": ".spec.label", "priority": 1},
				}}}}}
}

// createKnobs creates the CRD of knobsCRD(base, id), and two objects in ns once the apiserver
// serves it; it returns the path of the objects and of the resource in all namespaces.
func createKnobs(t *testing.T, k *kas, base string, id int64, ns string) (string, string) {
	t.Helper()
	crd := knobsCRD(base, id)
	k.create(t, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	names := crd["spec"].(map[string]any)["names"].(map[string]any)
	path := "/apis/example.net/v1/namespaces/" + ns + "/" + names["plural"].(string)
	waitUntil(t, names["plural"].(string)+" served by the apiserver", func() bool {
		code, _ := k.do(t, http.MethodGet, path, nil)
		return code == http.StatusOK
	})
	for i := range 2 {
		k.create(t, path, map[string]any{"apiVersion": "example.net/v1", "kind": names["kind"],
			"metadata": map[string]any{"name": fmt.Sprintf("k%d", i)}, "spec": map[string]any{"level": i + 1, "label": "x"}})
	}
	return path, "/apis/example.net/v1/" + names["plural"].(string)
}

// sameTables compares the Tables the apiserver and serve answer for path, asking again for up
// to 10 s while serve follows a change.
func sameTables(t *testing.T, k, ours *kas, path string) {
	t.Helper()
	const accept = "application/json;as=Table;v=v1;g=meta.k8s.io"
	get := func(c *kas) string {
		req, _ := http.NewRequest(http.MethodGet, c.url+path, nil)
		req.Header.Set("Accept", accept)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := c.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var want, got string
	waitUntil(t, "the same columns as the apiserver for "+path, func() bool {
		want, got = get(k), get(ours)
		return gjson.Get(want, "columnDefinitions").Raw == gjson.Get(got, "columnDefinitions").Raw
	})
	sameTable(t, path, want, got)
}
