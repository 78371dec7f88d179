package ctrlcache

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/watchcache/watchcache/apistatus"
	wcselection "github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// Get reads one object from the watch cache of its kind and decodes it into out (the caller's own
// object, whatever UnsafeDisableDeepCopy says). A missing object is controller-runtime's NotFound.
func (c *Cache) Get(ctx context.Context, key client.ObjectKey, out client.Object, opts ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(out, c.scheme)
	if err != nil {
		return err
	}
	k, err := c.kindForRead(ctx, gvk)
	if err != nil {
		return err
	}
	if !k.namespaced {
		key.Namespace = ""
	}
	feed, err := k.feedFor(key.Namespace)
	if err != nil {
		return err
	}
	raw, _, err := feed.Cache().Get(ctx, key.Namespace, key.Name, "0")
	if errors.Is(err, watchcache.ErrNotFound) {
		// controller-runtime's cache names the kind where the apiserver names the resource.
		return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
	}
	if err != nil {
		return apistatus.FromError(err)
	}
	return c.decodeInto(k, raw, out)
}

// decodeInto decodes raw into out, in out's form, and applies the kind's transform. Without a
// transform, an object of the kind's own type is decoded in place (after zeroing it, so the result
// is the object the stored bytes make, as a fresh decode would be); on a decode error out is then
// left zeroed.
func (c *Cache) decodeInto(k *kind, raw []byte, out runtime.Object) error {
	f := formOf(out)
	if f == typed && k.transform == nil && k.target.typ != nil {
		if v := reflect.ValueOf(out); v.Kind() == reflect.Pointer && !v.IsNil() && v.Type().Elem() == k.target.typ {
			v.Elem().SetZero()
			if err := k.target.into(raw, out); err != nil {
				return err
			}
			out.GetObjectKind().SetGroupVersionKind(k.gvk)
			return nil
		}
	}
	obj, err := k.decoders[f](raw)
	if err != nil {
		return err
	}
	if k.transform != nil {
		t, err := k.transform(obj)
		if err != nil {
			return fmt.Errorf("ctrlcache: transform: %w", err)
		}
		ro, ok := t.(runtime.Object)
		if !ok {
			return fmt.Errorf("ctrlcache: transform returned %T, not an object", t)
		}
		obj = ro
	}
	ov, nv := reflect.ValueOf(out), reflect.ValueOf(obj)
	if ov.Type() != nv.Type() {
		return fmt.Errorf("ctrlcache: cache had type %s, but %s was asked for", nv.Type(), ov.Type())
	}
	ov.Elem().Set(nv.Elem())
	out.GetObjectKind().SetGroupVersionKind(k.gvk)
	return nil
}

// List lists from the watch caches of the list's kind: key-ordered, with Limit and Continue
// (continue tokens in the apiserver's format), label selectors, and field selectors with =, ==
// and != on the kind's selectable fields, JSON-path indexes (IndexJSONPath) and Go indexes
// (IndexField).
func (c *Cache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := apiutil.GVKForObject(list, c.scheme)
	if err != nil {
		return err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	k, err := c.kindForRead(ctx, gvk)
	if err != nil {
		return err
	}
	var lo client.ListOptions
	lo.ApplyOptions(opts)
	if !k.namespaced {
		lo.Namespace = ""
	}
	var goReqs, rest fields.Requirements
	if lo.FieldSelector != nil {
		c.mu.Lock()
		for _, r := range lo.FieldSelector.Requirements() {
			if _, ok := k.goIndexes[r.Field]; ok {
				goReqs = append(goReqs, r)
			} else {
				rest = append(rest, r)
			}
		}
		c.mu.Unlock()
	}
	label := ""
	if lo.LabelSelector != nil && !lo.LabelSelector.Empty() {
		label = lo.LabelSelector.String()
	}
	var items [][]byte
	var rv uint64
	var cont string
	var remaining *int64
	if len(goReqs) > 0 {
		items, rv, cont, err = c.listGoIndexed(k, lo, goReqs, rest)
	} else {
		items, rv, cont, remaining, err = c.listCache(ctx, k, lo, label, selectorString(rest))
	}
	if err != nil {
		return err
	}
	return c.fill(k, list, items, rv, cont, remaining)
}

func selectorString(reqs fields.Requirements) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		op := "="
		if r.Operator == selection.NotEquals {
			op = "!="
		}
		parts[i] = r.Field + op + fields.EscapeValue(r.Value)
	}
	return strings.Join(parts, ",")
}

// listCache answers from the watch caches: one List of the feed that holds the namespace, or of
// each namespace's feed in turn.
func (c *Cache) listCache(ctx context.Context, k *kind, lo client.ListOptions, label, field string) ([][]byte, uint64, string, *int64, error) {
	wo := watchcache.ListOptions{Namespace: lo.Namespace, LabelSelector: label, FieldSelector: field, Limit: lo.Limit, Continue: lo.Continue}
	if lo.Namespace != "" || k.feeds[""] != nil {
		feed, err := k.feedFor(lo.Namespace)
		if err != nil {
			return nil, 0, "", nil, err
		}
		res, err := feed.Cache().List(ctx, wo)
		if err != nil {
			return nil, 0, "", nil, apistatus.FromError(err)
		}
		return res.Items, res.ResourceVersion, res.Continue, res.RemainingItemCount, nil
	}
	if lo.Continue != "" {
		return nil, 0, "", nil, apierrors.NewBadRequest(ErrLimitAcrossNamespaces.Error())
	}
	var items [][]byte
	var rv uint64
	wo.Limit = 0
	for _, ns := range k.namespaces {
		wo.Namespace = ns
		res, err := k.feeds[ns].Cache().List(ctx, wo)
		if err != nil {
			return nil, 0, "", nil, apistatus.FromError(err)
		}
		items = append(items, res.Items...)
		rv = max(rv, res.ResourceVersion)
	}
	if lo.Limit > 0 && int64(len(items)) > lo.Limit {
		return nil, 0, "", nil, apierrors.NewBadRequest(ErrLimitAcrossNamespaces.Error())
	}
	return items, rv, "", nil, nil
}

// listGoIndexed answers from the Go index of the first = or == requirement on an IndexField
// field (or, with only != requirements, from every object of the informer), filtering by the
// other requirements, the namespace and the labels; pages follow key order, with tokens in the
// apiserver's format. Pages are read from the informer's current state: a continue token resumes
// after its key at the state of the next call, as the apiserver's continue at rv -1 does.
func (c *Cache) listGoIndexed(k *kind, lo client.ListOptions, goReqs, rest fields.Requirements) ([][]byte, uint64, string, error) {
	c.mu.Lock()
	f := k.goIndexes[goReqs[0].Field]
	ni := k.informers[f]
	c.mu.Unlock()
	var sel labels.Selector = labels.Everything()
	if lo.LabelSelector != nil {
		sel = lo.LabelSelector
	}
	after := ""
	if lo.Continue != "" {
		start, err := decodeContinue(lo.Continue)
		if err != nil {
			return nil, 0, "", apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		after = start
	}
	lookup := -1
	for i, r := range goReqs {
		if r.Operator != selection.NotEquals {
			lookup = i
			break
		}
	}
	var schemaFields []int
	var wschema *wcselection.Schema
	if len(rest) > 0 {
		feed, err := k.feedFor(lo.Namespace)
		if err != nil {
			return nil, 0, "", err
		}
		wschema = feed.Cache().Schema()
		for _, r := range rest {
			pos, ok := wschema.Field(r.Field)
			if !ok {
				return nil, 0, "", apierrors.NewBadRequest((&wcselection.UnsupportedFieldError{Field: r.Field}).Error())
			}
			schemaFields = append(schemaFields, pos)
		}
	}
	var items [][]byte
	var rv uint64
	cont := ""
	for _, inf := range ni.infs {
		name, value := "", ""
		if lookup >= 0 {
			name, value = fieldIndexName(goReqs[lookup].Field), goReqs[lookup].Value
		}
		var lastKey string
		r, err := inf.Entries(name, value, after, func(key string, raw []byte) bool {
			if lo.Namespace != "" && !strings.HasPrefix(key, lo.Namespace+"/") {
				return true
			}
			for i, r := range goReqs {
				if i == lookup {
					continue
				}
				has := false
				for _, v := range inf.Values(fieldIndexName(r.Field), key) {
					if v == r.Value {
						has = true
						break
					}
				}
				if has == (r.Operator == selection.NotEquals) {
					return true
				}
			}
			if !sel.Empty() && !sel.Matches(labelsOf(raw)) {
				return true
			}
			if wschema != nil {
				obj, err := wschema.Extract(raw)
				if err != nil {
					return true
				}
				for i, r := range rest {
					if (obj.Fields[schemaFields[i]] == r.Value) == (r.Operator == selection.NotEquals) {
						return true
					}
				}
			}
			if lo.Limit > 0 && int64(len(items)) == lo.Limit {
				cont = lastKey // a further match: the page ends at the previous one
				return false
			}
			items = append(items, raw)
			lastKey = key
			return true
		})
		if err != nil {
			return nil, 0, "", err
		}
		rv = max(rv, r)
		if cont != "" {
			cont = encodeContinue(rv, cont)
			break
		}
	}
	if len(ni.infs) > 1 && cont != "" {
		return nil, 0, "", apierrors.NewBadRequest(ErrLimitAcrossNamespaces.Error())
	}
	return items, rv, cont, nil
}

func labelsOf(raw []byte) labels.Set {
	set := labels.Set{}
	gjson.GetBytes(raw, "metadata.labels").ForEach(func(k, v gjson.Result) bool {
		set[k.Str] = v.Str
		return true
	})
	return set
}

// continueToken is the apiserver's continue token (DESIGN.md: base64 RawURL of this JSON).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeContinue makes the token that resumes after key ("ns/name" or "name").
func encodeContinue(rv uint64, key string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: int64(rv), StartKey: "/" + key + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue returns the key a token resumes after.
func decodeContinue(tok string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", err
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return "", err
	}
	if t.APIVersion != "meta.k8s.io/v1" || t.StartKey == "" {
		return "", errors.New("not a meta.k8s.io/v1 token")
	}
	return strings.TrimSuffix(strings.TrimPrefix(t.StartKey, "/"), "\x00"), nil
}

// fill decodes items into list, in the list's form, and sets its resourceVersion and continue.
func (c *Cache) fill(k *kind, list client.ObjectList, items [][]byte, rv uint64, cont string, remaining *int64) error {
	list.SetResourceVersion(strconv.FormatUint(rv, 10))
	list.SetContinue(cont)
	list.SetRemainingItemCount(remaining)
	f := formOf(list)
	if f == typed && k.transform == nil && k.target.typ != nil {
		// Items of the kind's own type: decoded in place into the list's slice, without an object
		// per item to copy from.
		if ptr, err := apimeta.GetItemsPtr(list); err == nil {
			if v := reflect.ValueOf(ptr).Elem(); v.Kind() == reflect.Slice && v.Type().Elem() == k.target.typ {
				s := reflect.MakeSlice(v.Type(), len(items), len(items))
				for i, raw := range items {
					if err := k.target.into(raw, s.Index(i).Addr().Interface()); err != nil {
						return err
					}
				}
				v.Set(s)
				return nil
			}
		}
	}
	decode := k.decoders[f]
	objs := make([]runtime.Object, 0, len(items))
	for _, raw := range items {
		obj, err := decode(raw)
		if err != nil {
			return err
		}
		if k.transform != nil {
			t, err := k.transform(obj)
			if err != nil {
				return fmt.Errorf("ctrlcache: transform: %w", err)
			}
			obj = t.(runtime.Object)
		}
		objs = append(objs, obj)
	}
	switch l := list.(type) {
	case *unstructured.UnstructuredList:
		l.Items = make([]unstructured.Unstructured, len(objs))
		for i, o := range objs {
			l.Items[i] = *o.(*unstructured.Unstructured)
		}
	case *metav1.PartialObjectMetadataList:
		l.Items = make([]metav1.PartialObjectMetadata, len(objs))
		for i, o := range objs {
			l.Items[i] = *o.(*metav1.PartialObjectMetadata)
		}
	default:
		if err := apimeta.SetList(list, objs); err != nil {
			return err
		}
	}
	return nil
}
