package adapter

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
)

// The write path and the storage-level queries go to the etcd3 store unchanged, as the apiserver's
// CacheDelegator sends them (rule 6.6): etcd is authoritative, and a write is visible to the cache's
// reads once its watch event has arrived (consistent reads wait for it, rule 1.8).

// Versioner implements storage.Interface.
func (s *Store) Versioner() storage.Versioner { return s.versioner }

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	return s.etcd.Create(ctx, key, obj, out, ttl)
}

// Delete implements storage.Interface. cachedExistingObject is passed on as the apiserver's
// delegator passes its cached copy: a hint the etcd3 store checks against etcd.
func (s *Store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	return s.etcd.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
}

// GuaranteedUpdate implements storage.Interface.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	return s.etcd.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate, cachedExistingObject)
}

// Stats implements storage.Interface. With SizeBasedListCostEstimate on, the etcd3 store answers
// from its size estimator, whose keys come from the cache (sizes.go); otherwise it counts the keys
// in etcd.
func (s *Store) Stats(ctx context.Context) (storage.Stats, error) { return s.etcd.Stats(ctx) }

// RequestWatchProgress implements storage.Interface: it asks etcd for progress notifications on the
// source's watches, which reach the cache as bookmarks.
func (s *Store) RequestWatchProgress(ctx context.Context) error { return s.source.RequestProgress(ctx) }

// GetCurrentResourceVersion implements storage.Interface.
func (s *Store) GetCurrentResourceVersion(ctx context.Context) (uint64, error) {
	return s.etcd.GetCurrentResourceVersion(ctx)
}

// EnableResourceSizeEstimation implements storage.Interface.
func (s *Store) EnableResourceSizeEstimation(f storage.KeysFunc) error {
	return s.etcd.EnableResourceSizeEstimation(f)
}

// CompactRevision implements storage.Interface.
func (s *Store) CompactRevision() int64 { return s.etcd.CompactRevision() }

// ReadinessCheck implements storage.Interface: the cache's readiness (429 before its first list and
// while it re-lists, rule 3.7).
func (s *Store) ReadinessCheck() error {
	if err := s.cache.Ready(); err != nil {
		return toStorageError(err, "", 0)
	}
	return nil
}
