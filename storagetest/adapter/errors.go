package adapter

import (
	"errors"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

// toStorageError maps an error of the cache to what storage.Interface callers test for: a missing
// object is the storage package's key-not-found error (storage.IsNotFound), everything else is the
// apiserver Status apistatus.FromError gives (storage.IsTooLargeResourceVersion,
// apierrors.IsResourceExpired, IsBadRequest, IsInvalid, IsTooManyRequests all work on it).
func toStorageError(err error, key string, rv uint64) error {
	if err == nil {
		return nil
	}
	var nf *watchcache.NotFoundError
	if errors.As(err, &nf) {
		return newNotFound(key, rv)
	}
	return apistatus.FromError(err)
}
