package adapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"

	"github.com/watchcache/watchcache/watchcache"
)

// Messages of the 410s the adapter answers for revisions etcd has compacted (rules 1.18, 2.9), the
// same as the cache's own for revisions that left its window.
const (
	msgListTooOld     = "The resourceVersion for the provided list is too old."
	msgContinueTooOld = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an " +
		"inconsistent list - objects that were created, modified, or deleted between the time the first " +
		"chunk was returned and now may show up in the list."
)

// Get implements storage.Interface with the apiserver's routing (rule 6.7, CacheDelegator.Get):
// resourceVersion "" goes to etcd (the etcd3 store), as does every Get while the cache is not ready
// (before its first list, during a re-list: KEP 4568); "0" is the cache's latest state, N its
// state once it has reached N (504 after 3 s if it does not). With Config.ConsistentGetFromCache,
// "" is the cache's too, as a consistent read. A key the cache lacks because the source could not read its value through
// the store's transformer is InternalError, as in the etcd3 store (unreadable.go).
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if (opts.ResourceVersion == "" && !s.getFromCache) || s.cache.Ready() != nil {
		return s.etcd.Get(ctx, key, opts, out)
	}
	preparedKey, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	sc := s.parseScope(preparedKey, false)
	if sc.none {
		// No object is stored under such a key; an empty name makes the cache answer NotFound after
		// its usual resourceVersion handling.
		sc.namespace, sc.name = "", ""
	}
	raw, rv, err := s.cache.Get(ctx, sc.namespace, sc.name, opts.ResourceVersion)
	if err != nil {
		var nf *watchcache.NotFoundError
		if errors.As(err, &nf) {
			// Missing from the cache because the source could not read it: the etcd3 store's
			// InternalError, not NotFound.
			if uerr := s.unreadable(keyRange{prefix: preparedKey}); uerr != nil {
				return uerr
			}
			if opts.IgnoreNotFound {
				return runtime.SetZeroValue(out)
			}
		}
		return toStorageError(err, preparedKey, rv)
	}
	if err := runtime.DecodeInto(s.codec, raw, out); err != nil {
		return storage.NewCorruptObjError(preparedKey, err)
	}
	return nil
}

// GetList implements storage.Interface from the cache. The options map one to one onto the cache's
// (the Kubernetes query parameters); the key becomes a namespace, or a single name for a
// non-recursive list. The suite's predicates carry GetAttrs functions; the cache evaluates the same
// selectors on the fields it extracts from the JSON (Config.Fields), so a predicate whose GetAttrs
// leaves a field out would differ — none of the suite's does for the fields it selects on. A range
// holding a key whose value the store's transformer cannot read fails with InternalError, as in the
// etcd3 store (unreadable.go).
func (s *Store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	preparedKey, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return err
	}
	pred := opts.Predicate
	sc := s.narrow(s.parseScope(preparedKey, opts.Recursive), pred.Field)
	lo := watchcache.ListOptions{
		Namespace:            sc.namespace,
		LabelSelector:        labelString(pred.Label),
		FieldSelector:        sc.fieldSelector(pred.Field),
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: string(opts.ResourceVersionMatch),
		Limit:                pred.Limit,
	}
	root := s.cacheRoot(sc)
	compacted := s.etcd.CompactRevision()
	span := keyRange{prefix: preparedKey, recursive: opts.Recursive}
	if opts.Recursive && pred.Continue != "" {
		start, rv, err := storage.DecodeContinue(pred.Continue, preparedKey)
		if err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		if rv > 0 && rv < compacted {
			// Rule 2.9: the rv -1 token continues at the latest state from the same key.
			return continueTooOld(start, key)
		}
		span.from = start
		lo.Continue = encodeToken(rv, "/"+strings.TrimPrefix(start, root))
	} else if rv, ok := exactRV(opts); ok && int64(rv) < compacted {
		return apierrors.NewResourceExpired(msgListTooOld)
	}

	res, err := s.cache.List(ctx, lo)
	if err != nil {
		var expired *watchcache.ExpiredError
		if errors.As(err, &expired) && expired.Continue != "" {
			if start, _, derr := storage.DecodeContinue(expired.Continue, root); derr == nil {
				return continueTooOld(start, key)
			}
		}
		return toStorageError(err, preparedKey, 0)
	}

	last, err := s.decodeList(res.Items, listObj)
	if err != nil {
		return storage.NewCorruptObjError(preparedKey, err)
	}
	if res.Continue != "" && last != nil {
		// A page read the keys up to its last item; an unreadable key after it fails a later page.
		span.through = s.objectKey(last.GetNamespace(), last.GetName())
	}
	if err := s.unreadable(span); err != nil {
		return err
	}
	var token string
	if res.Continue != "" && last != nil {
		_, rv, err := storage.DecodeContinue(res.Continue, root)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("adapter: the cache's continue token: %w", err))
		}
		// As the cacher does (storage.PrepareContinueToken): the last key plus NUL, relative to the
		// key the caller passed.
		if token, err = storage.EncodeContinue(s.objectKey(last.GetNamespace(), last.GetName())+"\x00", key, rv); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	return s.versioner.UpdateList(listObj, res.ResourceVersion, token, res.RemainingItemCount)
}

// decodeList decodes the items into the list's Items slice (never left nil: an empty list has
// items: [], rule 6.5) and returns the last item's metadata.
func (s *Store) decodeList(items [][]byte, listObj runtime.Object) (metav1.Object, error) {
	itemsPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return nil, err
	}
	v, err := conversion.EnforcePtr(itemsPtr)
	if err != nil || v.Kind() != reflect.Slice {
		return nil, fmt.Errorf("adapter: list items are not a slice: %v", err)
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, len(items)))
	elemType := v.Type().Elem()
	isPtr := elemType.Kind() == reflect.Pointer
	if isPtr {
		elemType = elemType.Elem()
	}
	var last metav1.Object
	for _, raw := range items {
		elem := reflect.New(elemType)
		obj, ok := elem.Interface().(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("adapter: %v is not a runtime.Object", elemType)
		}
		if err := runtime.DecodeInto(s.codec, raw, obj); err != nil {
			return nil, err
		}
		if last, err = meta.Accessor(obj); err != nil {
			return nil, err
		}
		if isPtr {
			v.Set(reflect.Append(v, elem))
		} else {
			v.Set(reflect.Append(v, elem.Elem()))
		}
	}
	return last, nil
}

// exactRV returns the RV of a list that reads a snapshot (rules 1.1, 1.6): Exact, or the legacy
// RV=N with a limit.
func exactRV(opts storage.ListOptions) (uint64, bool) {
	rv := opts.ResourceVersion
	switch {
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
	case opts.ResourceVersionMatch == "" && opts.Predicate.Limit > 0 && rv != "" && rv != "0":
	default:
		return 0, false
	}
	n, err := storage.APIObjectVersioner{}.ParseResourceVersion(rv)
	return n, err == nil && n > 0
}

// continueTooOld is rule 2.9's 410 with the rv -1 token resuming at start, relative to key.
func continueTooOld(start, key string) error {
	st := apierrors.NewResourceExpired(msgContinueTooOld)
	if token, err := storage.EncodeContinue(start, key, -1); err == nil {
		st.ErrStatus.ListMeta.Continue = token
	}
	return st
}

// encodeToken writes a continue token (rule 2.1) with start relative to the cache's list root.
func encodeToken(rv int64, start string) string {
	b, _ := json.Marshal(struct {
		V     string `json:"v"`
		RV    int64  `json:"rv"`
		Start string `json:"start"`
	}{"meta.k8s.io/v1", rv, start})
	return base64.RawURLEncoding.EncodeToString(b)
}

func labelString(l labels.Selector) string {
	if l == nil || l.Empty() {
		return ""
	}
	return l.String()
}

// newNotFound is the storage package's error for a missing key (storage.IsNotFound).
func newNotFound(key string, rv uint64) error {
	return storage.NewKeyNotFoundError(key, int64(rv))
}
