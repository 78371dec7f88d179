package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// CustomResourceDefinitions, as the apiextensions apiserver serves them. A CRD write is stored
// like any other object; its commit then does what the apiserver's CRD controllers do a moment
// later, at once and under the same write lock: the naming controller's status (acceptedNames,
// NamesAccepted, Established) as a second write by "kube-apiserver" to the status, and the
// serving of every served version, which shares one stored object (conversion None) and is in
// discovery before the create answers. Deleting a CRD deletes its objects (finalizers honoured)
// and, when none is left, the CRD; its watches then end.

// crdGR is the CustomResourceDefinitions resource.
var crdGR = schema.GroupResource{Group: apiextensionsv1.GroupName, Resource: "customresourcedefinitions"}

// crdCleanupFinalizer is the finalizer a CRD's delete adds until its objects are gone.
const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// crdManager is the field manager of the CRD controllers' status writes.
const crdManager = "kube-apiserver"

func init() {
	// client-go's scheme gains apiextensions.k8s.io/v1 (as controller-runtime users' schemes do),
	// so that the registry serves CustomResourceDefinitions from the recorded discovery with
	// typed decoding, defaulting (conversion strategy None, singular and listKind) and protobuf.
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme.Scheme))
	generationResources[crdGR] = true
	conditionalUpdateResources[crdGR] = true
}

// crdRegistry is the custom resources the server serves, which CRD writes change while requests
// are served: lookups take mu for reading, CRD commits (under the server's write lock) for
// writing.
type crdRegistry struct {
	mu     sync.RWMutex
	served map[string]*served         // by "group/version/resource"
	byName map[string]*customResource // by CRD name
}

// customResource is one CRD's resource: its served versions, each with a cache of its own
// holding the same objects under its apiVersion.
type customResource struct {
	crdName     string
	versions    []*served
	terminating atomic.Bool // set under s.mu; read by creates, which do not hold it
}

// customVersion is what the write path needs to know of one served version of a CRD.
type customVersion struct {
	res    *customResource
	schema *versionSchema
	scale  *apiextensionsv1.CustomResourceSubresourceScale
	// validator is Options.CustomResourceValidator's for this version, or nil.
	validator VersionValidator
}

// lookupCustom returns a served custom resource, or nil.
func (s *Server) lookupCustom(key string) *served {
	s.crds.mu.RLock()
	defer s.crds.mu.RUnlock()
	return s.crds.served[key]
}

// allResources returns the built-in resources and, for each CRD, one served version of its
// resource (every version holds the same objects), for controllers that walk every resource
// (the namespace controller).
func (s *Server) allResources() []*served {
	s.crds.mu.RLock()
	defer s.crds.mu.RUnlock()
	out := make([]*served, 0, len(s.order)+len(s.crds.byName))
	out = append(out, s.order...)
	for _, name := range sortedKeys(s.crds.byName) {
		if vs := s.crds.byName[name].versions; len(vs) > 0 {
			out = append(out, vs[0])
		}
	}
	return out
}

// crdCommittedLocked runs after a CRD's commit: the naming controller's status and the serving of
// its versions, or, for a deletion, the end of serving. The caller holds s.mu.
func (s *Server) crdCommittedLocked(crdRes *served, typ watchcache.EventType, b []byte) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(b, &crd); err != nil {
		return
	}
	if typ == watchcache.Deleted {
		s.unserveCRDLocked(crd.Name)
		return
	}
	if crd.DeletionTimestamp != nil {
		return // terminating: served until its objects are gone
	}
	status := s.namesLocked(&crd)
	if !reflect.DeepEqual(status.AcceptedNames, crd.Status.AcceptedNames) || !sameConditions(status.Conditions, crd.Status.Conditions) {
		crd.Status.AcceptedNames, crd.Status.Conditions = status.AcceptedNames, status.Conditions
		old, err := decodeStored(crdRes.resourceType, b)
		if err == nil {
			err = s.track(crdRes, &crd, old, "status", crdManager)
		}
		if err == nil {
			_, _ = s.commitLocked(crdRes, watchcache.Modified, &crd) // serves it, through this hook
		}
		return
	}
	if established(&crd) {
		s.serveCRDLocked(&crd)
	}
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func sameConditions(a, b []apiextensionsv1.CustomResourceDefinitionCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Status != b[i].Status || a[i].Reason != b[i].Reason || a[i].Message != b[i].Message {
			return false
		}
	}
	return true
}

// namesLocked is the naming controller: each requested name is accepted unless another CRD of
// the group has accepted it (plural, singular and short names share one space, kinds and list
// kinds another); the last conflict found names the NamesAccepted condition, as the controller
// reports it (reference/observed-crds.md, invalid / names not accepted). Conditions keep their
// lastTransitionTime while their status stays.
func (s *Server) namesLocked(crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.CustomResourceDefinitionStatus {
	resources, kinds := map[string]bool{}, map[string]bool{}
	for _, other := range s.crdsLocked() {
		if other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		n := other.Status.AcceptedNames
		for _, x := range append([]string{n.Plural, n.Singular}, n.ShortNames...) {
			if x != "" {
				resources[x] = true
			}
		}
		for _, x := range []string{n.Kind, n.ListKind} {
			if x != "" {
				kinds[x] = true
			}
		}
	}
	req, acc := crd.Spec.Names, crd.Status.AcceptedNames
	var out apiextensionsv1.CustomResourceDefinitionNames
	reason, message := "NoConflicts", "no conflicts found"
	conflict := func(r, name string) { reason, message = r, fmt.Sprintf("%q is already in use", name) }
	free := func(inUse map[string]bool, want, had string) bool { return want == had || !inUse[want] }
	if free(resources, req.Plural, acc.Plural) {
		out.Plural = req.Plural
	} else {
		conflict("PluralConflict", req.Plural)
	}
	if free(resources, req.Singular, acc.Singular) {
		out.Singular = req.Singular
	} else {
		conflict("SingularConflict", req.Singular)
	}
	shortOK := true
	for _, sn := range req.ShortNames {
		if !slices.Contains(acc.ShortNames, sn) && resources[sn] {
			conflict("ShortNamesConflict", sn)
			shortOK = false
		}
	}
	if shortOK {
		out.ShortNames = req.ShortNames
	}
	if free(kinds, req.Kind, acc.Kind) {
		out.Kind = req.Kind
	} else {
		conflict("KindConflict", req.Kind)
	}
	if free(kinds, req.ListKind, acc.ListKind) {
		out.ListKind = req.ListKind
	} else {
		conflict("ListKindConflict", req.ListKind)
	}
	out.Categories = req.Categories
	accepted := reason == "NoConflicts"
	conds := slices.Clone(crd.Status.Conditions)
	now := metav1.NewTime(s.opts.Now().Truncate(1e9))
	if accepted {
		conds = setCondition(conds, apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionTrue, reason, message, now)
		conds = setCondition(conds, apiextensionsv1.Established, apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted", now)
	} else {
		conds = setCondition(conds, apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionFalse, reason, message, now)
		if !established(crd) {
			conds = setCondition(conds, apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "NotAccepted", "not all names are accepted", now)
		}
	}
	return apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: out, Conditions: conds, StoredVersions: crd.Status.StoredVersions}
}

// setCondition sets one condition, keeping its place and, when its status does not change, its
// lastTransitionTime.
func setCondition(conds []apiextensionsv1.CustomResourceDefinitionCondition, typ apiextensionsv1.CustomResourceDefinitionConditionType,
	status apiextensionsv1.ConditionStatus, reason, message string, now metav1.Time) []apiextensionsv1.CustomResourceDefinitionCondition {
	c := apiextensionsv1.CustomResourceDefinitionCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: now}
	for i := range conds {
		if conds[i].Type == typ {
			if conds[i].Status == status {
				c.LastTransitionTime = conds[i].LastTransitionTime
			}
			conds[i] = c
			return conds
		}
	}
	return append(conds, c)
}

// crdsLocked returns the stored CRDs. The caller holds s.mu.
func (s *Server) crdsLocked() []apiextensionsv1.CustomResourceDefinition {
	r := s.byGR[crdGR]
	if r == nil {
		return nil
	}
	page, err := r.cache.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	out := make([]apiextensionsv1.CustomResourceDefinition, 0, len(page.Items))
	for _, it := range page.Items {
		var crd apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(it, &crd) == nil {
			out = append(out, crd)
		}
	}
	return out
}

// customVerbs are the verbs of every custom resource (reference/observed-crds.md, discovery v1).
var customVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// serveCRDLocked serves the CRD's served versions as the CRD now says: new versions get a cache
// holding the existing objects, versions no longer served stop (their watches end), and every
// version's registration (discovery, Tables, schema) is renewed. The caller holds s.mu.
func (s *Server) serveCRDLocked(crd *apiextensionsv1.CustomResourceDefinition) {
	s.crds.mu.Lock()
	defer s.crds.mu.Unlock()
	if s.crds.served == nil {
		s.crds.served, s.crds.byName = map[string]*served{}, map[string]*customResource{}
	}
	old := s.crds.byName[crd.Name]
	res := &customResource{crdName: crd.Name}
	oldByKey := map[string]*served{}
	if old != nil {
		for _, r := range old.versions {
			oldByKey[r.gvr.Group+"/"+r.gvr.Version+"/"+r.gvr.Resource] = r
		}
	}
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	names := crd.Status.AcceptedNames
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		vs, err := compileSchema(v.Schema)
		if err != nil {
			continue
		}
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: names.Plural}
		key := gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
		t := &resourceType{
			gvr: gvr, gvk: gvr.GroupVersion().WithKind(names.Kind), singular: names.Singular, namespaced: namespaced,
			verbs: customVerbs, shortNames: names.ShortNames, categories: names.Categories,
			goType: reflect.TypeOf(unstructured.Unstructured{}), generation: true,
			custom: &customVersion{res: res, schema: vs},
		}
		if cv := s.opts.CustomResourceValidator; cv != nil {
			t.custom.validator = cv.ForVersion(crd, v.Name)
		}
		if sr := v.Subresources; sr != nil {
			t.status = sr.Status != nil
			t.scale = sr.Scale != nil
			t.custom.scale = sr.Scale
		}
		r := &served{resourceType: t}
		if prev := oldByKey[key]; prev != nil {
			r.cache = prev.cache
			delete(oldByKey, key)
			_ = s.api.Unregister(gvr.Group, gvr.Version, gvr.Resource)
		} else {
			r.cache = s.newCustomCache(r, old)
		}
		indexSelectableFields(r.cache, v.SelectableFields)
		info := customInfo(t, v, storage)
		info.ListKind = names.ListKind
		info.Model = crdModel(crd, v, vs)
		if err := s.api.Register(info, r.cache); err != nil {
			r.cache.Stop()
			continue
		}
		if tc, err := crdTypeConverter(t.gvk, vs); err == nil {
			st := vs.structural
			s.fields.SetCustomType(t.gvk, &patch.CustomType{TypeConverter: tc, Status: t.status,
				Default: func(obj map[string]any) { applySchemaDefaults(obj, st) },
				Prune:   vs.prune})
		}
		res.versions = append(res.versions, r)
		s.crds.served[key] = r
	}
	for key, r := range oldByKey {
		_ = s.api.Unregister(r.gvr.Group, r.gvr.Version, r.gvr.Resource)
		s.fields.SetCustomType(r.gvk, nil)
		r.cache.Stop()
		delete(s.crds.served, key)
	}
	s.crds.byName[crd.Name] = res
}

// newCustomCache makes the cache of a newly served version, holding the objects the CRD's other
// versions hold, under this version's apiVersion.
func (s *Server) newCustomCache(r *served, old *customResource) *watchcache.Cache {
	c := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Group: r.gvr.Group, Name: r.gvr.Resource, Namespaced: r.namespaced},
		Schema:                 selection.CustomResourceSchema(r.namespaced),
		WindowEvents:           s.opts.WindowEvents,
		WaitTimeout:            s.opts.WaitTimeout,
		BookmarkInterval:       s.opts.BookmarkInterval,
		CurrentResourceVersion: s.currentRV(r),
		OnWait:                 func(uint64) { go s.catchUp(r) },
	})
	r.cache = c
	var objects [][]byte
	if old != nil && len(old.versions) > 0 {
		page, err := old.versions[0].cache.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
		if err == nil {
			for _, it := range page.Items {
				if b, err := withAPIVersion(it, r.gvr.GroupVersion().String()); err == nil {
					objects = append(objects, b)
				}
			}
		}
	}
	_ = c.Replace(objects, s.rv.Load())
	return c
}

// indexSelectableFields makes a CRD version's selectableFields field selectors of its cache
// (named as the apiserver names them: the JSONPath without its leading dot), each with an index,
// so that a selecting list or watch reads only the matching objects. Fields already registered
// stay; a field the CRD no longer lists stays selectable until the version's cache is rebuilt.
func indexSelectableFields(c *watchcache.Cache, fields []apiextensionsv1.SelectableField) {
	for _, f := range fields {
		name := strings.TrimPrefix(f.JSONPath, ".")
		if _, known := c.Schema().Field(name); !known {
			if err := c.RegisterField(name, name); err != nil {
				continue
			}
		}
		if !slices.Contains(c.Indexes(), watchcache.FieldIndex(name)) {
			_ = c.AddIndex(watchcache.FieldIndex(name))
		}
	}
}

// withAPIVersion returns an object's JSON with another apiVersion: the same stored object served
// in another version (conversion None).
func withAPIVersion(b []byte, apiVersion string) ([]byte, error) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	u.SetAPIVersion(apiVersion)
	return u.MarshalJSON()
}

// customInfo is what kubeapi serves of one version of a custom resource: names, scope, verbs,
// the status and scale subresources and the storage version's hash in discovery (with the
// group and version in the aggregated document's kinds, as the apiextensions apiserver names
// them), and its additionalPrinterColumns as Table columns.
func customInfo(t *resourceType, v apiextensionsv1.CustomResourceDefinitionVersion, storage string) kubeapi.ResourceInfo {
	info := kubeapi.ResourceInfo{
		Group: t.gvr.Group, Version: t.gvr.Version, Resource: t.gvr.Resource, SingularName: t.singular,
		Kind: t.gvk.Kind, Namespaced: t.namespaced, ShortNames: t.shortNames, Categories: t.categories,
		Verbs: t.verbs, StorageVersionHash: StorageVersionHash(t.gvr.Group, storage, t.gvk.Kind),
		Printer: CustomResourcePrinter(v.AdditionalPrinterColumns), Unstructured: true, QualifiedKinds: true,
	}
	if t.status {
		info.Subresources = append(info.Subresources, metav1.APIResource{
			Name: t.gvr.Resource + "/status", Namespaced: t.namespaced, Kind: t.gvk.Kind, Verbs: []string{"get", "patch", "update"},
		})
	}
	if t.scale {
		info.Subresources = append(info.Subresources, metav1.APIResource{
			Name: t.gvr.Resource + "/scale", Namespaced: t.namespaced, Group: "autoscaling", Version: "v1", Kind: "Scale",
			Verbs: []string{"get", "patch", "update"},
		})
	}
	return info
}

// unserveCRDLocked stops serving a deleted CRD's resource; its watches end. The caller holds s.mu.
func (s *Server) unserveCRDLocked(name string) {
	s.crds.mu.Lock()
	defer s.crds.mu.Unlock()
	res := s.crds.byName[name]
	if res == nil {
		return
	}
	for _, r := range res.versions {
		_ = s.api.Unregister(r.gvr.Group, r.gvr.Version, r.gvr.Resource)
		s.fields.SetCustomType(r.gvk, nil)
		r.cache.Stop()
		delete(s.crds.served, r.gvr.Group+"/"+r.gvr.Version+"/"+r.gvr.Resource)
	}
	delete(s.crds.byName, name)
}

// fanOutLocked applies a custom resource's event, stored in one version's cache, to the caches of
// the CRD's other versions: one stored object, served in each version. The caller holds s.mu.
func (s *Server) fanOutLocked(r *served, typ watchcache.EventType, b []byte, rv uint64) {
	for _, other := range r.custom.res.versions {
		if other == r {
			continue
		}
		ob, err := withAPIVersion(b, other.gvr.GroupVersion().String())
		if err != nil {
			continue
		}
		_ = other.cache.Apply(watchcache.Event{Type: typ, Object: ob, ResourceVersion: rv})
	}
}

// customGVRs returns the served versions of every CRD's resource, by CRD name and then in the
// CRD's version order.
func (s *Server) customGVRs() []schema.GroupVersionResource {
	s.crds.mu.RLock()
	defer s.crds.mu.RUnlock()
	var out []schema.GroupVersionResource
	for _, name := range sortedKeys(s.crds.byName) {
		for _, r := range s.crds.byName[name].versions {
			out = append(out, r.gvr)
		}
	}
	return out
}

// stopCustomCaches stops the caches of every custom resource (Close): their watches end.
func (s *Server) stopCustomCaches() {
	s.crds.mu.RLock()
	defer s.crds.mu.RUnlock()
	for _, r := range s.crds.served {
		r.cache.Stop()
	}
}

// namespacedPathOfClusterCustom reports whether a path names a cluster-scoped custom resource
// under /namespaces/{ns}/, which the apiserver's custom resource handler answers with a plain-text
// 404 (reference/observed-crds.md, cluster / namespaced path).
func (s *Server) namespacedPathOfClusterCustom(path string) bool {
	var buf [maxPathSegments]string
	segs := splitPath(path, &buf)
	if len(segs) < 6 || segs[0] != "apis" || segs[3] != "namespaces" {
		return false
	}
	r := s.lookupCustom(segs[1] + "/" + segs[2] + "/" + segs[5])
	return r != nil && !r.namespaced
}

// customNotFound is the apiserver's answer to a subresource a custom resource does not have: the
// object is not found (reference/observed-crds.md, cluster / unknown subresource).
func customNotFound(t target) error {
	return apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
}

// admitCustom refuses creates of a CRD's objects while the CRD terminates, as the
// apiserver does (reference/observed-crds.md, finalizers / create while terminating).
func admitCustom(r *served, name string) error {
	if r.custom == nil || !r.custom.res.terminating.Load() {
		return nil
	}
	return apierrors.NewForbidden(r.gvr.GroupResource(), name, fmt.Errorf("create not allowed while custom resource definition is terminating"))
}

// deleteCRDLocked is the CRD's delete: it marks the CRD deleted with the cleanup finalizer and
// the Terminating condition (the answer), then deletes its objects; the CRD goes when the last
// of them has gone (at once when none has a finalizer). The caller holds s.mu.
func (s *Server) deleteCRDLocked(ctx context.Context, r *served, crd *apiextensionsv1.CustomResourceDefinition, cur []byte, dry bool) ([]byte, error) {
	if crd.DeletionTimestamp != nil {
		return cur, nil
	}
	now := metav1.NewTime(s.opts.Now().Truncate(1e9))
	crd.DeletionTimestamp = &now
	if !slices.Contains(crd.Finalizers, crdCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, crdCleanupFinalizer)
	}
	crd.Status.Conditions = setCondition(crd.Status.Conditions, apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue,
		"InstanceDeletionPending", "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon", now)
	if dry {
		return encodeStored(r.resourceType, crd)
	}
	b, err := s.commitLocked(r, watchcache.Modified, crd)
	if err != nil {
		return nil, err
	}
	s.crds.mu.Lock()
	res := s.crds.byName[crd.Name]
	if res != nil {
		res.terminating.Store(true)
	}
	s.crds.mu.Unlock()
	if res != nil && len(res.versions) > 0 {
		cr := res.versions[0]
		page, err := cr.cache.List(ctx, watchcache.ListOptions{ResourceVersion: "0"})
		if err == nil {
			for _, it := range page.Items {
				name, ns := objectName(it)
				_, _ = s.deleteLocked(ctx, cr, ns, name, &metav1.DeleteOptions{}, false)
			}
		}
	}
	s.finishCRDLocked(crd.Name)
	return b, nil
}

// finishCRDLocked deletes a terminating CRD whose objects are gone, or records that their
// deletion is in progress. The caller holds s.mu.
func (s *Server) finishCRDLocked(name string) {
	r := s.byGR[crdGR]
	ctx := context.Background()
	cur, err := current(ctx, r, "", name)
	if err != nil || cur == nil {
		return
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if json.Unmarshal(cur, &crd) != nil || crd.DeletionTimestamp == nil {
		return
	}
	s.crds.mu.RLock()
	res := s.crds.byName[name]
	s.crds.mu.RUnlock()
	left := 0
	if res != nil && len(res.versions) > 0 {
		if page, err := res.versions[0].cache.List(ctx, watchcache.ListOptions{ResourceVersion: "0"}); err == nil {
			left = len(page.Items)
		}
	}
	now := metav1.NewTime(s.opts.Now().Truncate(1e9))
	if left > 0 {
		conds := setCondition(slices.Clone(crd.Status.Conditions), apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue,
			"InstanceDeletionInProgress", "CustomResource deletion is in progress", now)
		if sameConditions(conds, crd.Status.Conditions) {
			return
		}
		crd.Status.Conditions = conds
		if old, err := decodeStored(r.resourceType, cur); err == nil && s.track(r, &crd, old, "status", crdManager) == nil {
			_, _ = s.commitLocked(r, watchcache.Modified, &crd)
		}
		return
	}
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == crdCleanupFinalizer })
	if len(crd.Finalizers) > 0 {
		_, _ = s.commitLocked(r, watchcache.Modified, &crd)
		return
	}
	_, _ = s.commitLocked(r, watchcache.Deleted, &crd)
}

// customCommittedLocked runs after a custom resource's commit: the other versions' caches get
// the event, and a deletion may finish its terminating CRD. The caller holds s.mu.
func (s *Server) customCommittedLocked(r *served, typ watchcache.EventType, b []byte, rv uint64) {
	s.fanOutLocked(r, typ, b, rv)
	if typ == watchcache.Deleted && r.custom.res.terminating.Load() {
		s.finishCRDLocked(r.custom.res.crdName)
	}
}
