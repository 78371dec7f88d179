package watchcache

import apierrors "k8s.io/apimachinery/pkg/api/errors"

// statusFromError is apistatus.FromError. This package's tests cannot import apistatus (it imports
// this package), so the external test package sets it (apistatus_test.go); a test calls ToStatus.
var statusFromError func(error) *apierrors.StatusError

// SetStatusFromError is how apistatus_test.go, in package watchcache_test, sets statusFromError.
func SetStatusFromError(f func(error) *apierrors.StatusError) { statusFromError = f }

// ToStatus maps err to the apiserver's Status as the edge does (apistatus.FromError), so that this
// package's tests can assert the Status of the errors the cache returns.
func ToStatus(err error) *apierrors.StatusError { return statusFromError(err) }
