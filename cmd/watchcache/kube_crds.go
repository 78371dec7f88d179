package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// crdsKey is the cache key of the cluster's CustomResourceDefinitions, served (and so fed by a
// list and a watch) unless --resources leaves them out.
var crdsKey = cacheKey("customresourcedefinitions", "apiextensions.k8s.io")

// crColumns are what each served version of each custom resource is served with, by cacheKey and
// version ("widgets.example.com" → "v1"): the additionalPrinterColumns the apiextensions apiserver
// prints in the resource's Tables, and its status and scale subresources.
type crColumns map[string]map[string]crServed

// crServed is a served version of a custom resource as its CRD declares it.
type crServed struct {
	columns []apiextensionsv1.CustomResourceColumnDefinition
	// status and scale are the version's subresources; scale is nil without one.
	status bool
	scale  *apiextensionsv1.CustomResourceSubresourceScale
}

// columnsOf reads the columns of the CRDs in items (each a CustomResourceDefinition as JSON).
// A CRD that does not decode is left out: its resource keeps the default columns.
func columnsOf(items [][]byte) crColumns {
	out := crColumns{}
	for _, b := range items {
		var crd apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(b, &crd) != nil {
			continue
		}
		byVersion := map[string]crServed{}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			cv := crServed{columns: v.AdditionalPrinterColumns}
			if sub := v.Subresources; sub != nil {
				cv.status, cv.scale = sub.Status != nil, sub.Scale
			}
			byVersion[v.Name] = cv
		}
		out[cacheKey(crd.Spec.Names.Plural, crd.Spec.Group)] = byVersion
	}
	return out
}

// listCRDs reads the cluster's CRDs with one list of apiextensions.k8s.io/v1, for the columns of
// the custom resources discovery found at start (before any cache holds the CRDs).
func (f *kubeFeed) listCRDs(ctx context.Context) (crColumns, error) {
	rc, err := f.client(kubeapi.ResourceInfo{Group: "apiextensions.k8s.io", Version: "v1"})
	if err != nil {
		return nil, err
	}
	raw, err := rc.Get().Resource("customresourcedefinitions").Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("list the CustomResourceDefinitions: %w", err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("list the CustomResourceDefinitions: %w", err)
	}
	items := make([][]byte, len(list.Items))
	for i, it := range list.Items {
		items[i] = it
	}
	return columnsOf(items), nil
}

// cachedCRDs reads the columns from the served CRDs' cache, which follows the cluster by a
// watch; ok is false when the CRDs are not served.
func cachedCRDs(ctx context.Context, c *watchcache.Cache) (crColumns, bool) {
	if c == nil || c.Ready() != nil {
		return nil, false
	}
	// The cache's latest state: a consistent read would wait on the cluster for nothing.
	res, err := c.List(ctx, watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, false
	}
	return columnsOf(res.Items), true
}

// withColumns serves each custom resource in infos as the apiextensions apiserver does: its
// CRD's columns (printed by fake.CustomResourcePrinter), unstructured lists whose items keep
// their kind and apiVersion, and GETs of its status (the object) and scale (an autoscaling/v1
// Scale of the CRD's paths) subresources, which the cluster's discovery lists. Other resources
// are left as they are.
func withColumns(infos []kubeapi.ResourceInfo, cols crColumns) []kubeapi.ResourceInfo {
	for i, info := range infos {
		c, ok := cols[cacheKey(info.Resource, info.Group)][info.Version]
		if !ok {
			continue
		}
		infos[i].Printer = fake.CustomResourcePrinter(c.columns)
		infos[i].Unstructured, infos[i].QualifiedKinds = true, true
		if c.status {
			infos[i].Views = map[string]kubeapi.View{"status": statusView}
		}
		if sc := c.scale; sc != nil {
			if infos[i].Views == nil {
				infos[i].Views = map[string]kubeapi.View{}
			}
			infos[i].Views["scale"] = func(obj []byte) ([]byte, error) { return fake.CustomResourceScale(obj, sc) }
		}
	}
	return infos
}

// columnsChanged says whether the CRDs cols serve info otherwise than those served do (its CRD's
// additionalPrinterColumns or subresources edited, or its CRD seen only now): the resource is
// then served again.
func columnsChanged(info kubeapi.ResourceInfo, served, cols crColumns) bool {
	k := cacheKey(info.Resource, info.Group)
	was, wasCustom := served[k][info.Version]
	now, isCustom := cols[k][info.Version]
	return wasCustom != isCustom || !reflect.DeepEqual(was, now)
}

// configure gives a cache of events.k8s.io/v1 Events their group's field selectors: the cache
// would otherwise know the core Events' (involvedObject.*, source), by the resource's name.
func (f *kubeFeed) configure(o *watchcache.Options) { configureKube(o) }

func configureKube(o *watchcache.Options) {
	if o.Resource.Name == "events" && o.Resource.Group == "events.k8s.io" {
		o.Schema = eventsV1Schema()
	}
}
