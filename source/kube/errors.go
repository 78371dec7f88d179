package kube

import "errors"

// Errors of the source. Errors from the server and from the cache are wrapped with the request they
// concern; test with errors.Is, or apierrors for the server's Status.
var (
	// ErrRunning: Run was called twice, or Add after Run.
	ErrRunning = errors.New("kube: source already running")
	// ErrNoResources: Run was called before any Add.
	ErrNoResources = errors.New("kube: no resources added")
	// ErrInvalidResource: Add was given an empty resource name, a name with a '/', a nil cache, or
	// a resource added before.
	ErrInvalidResource = errors.New("kube: invalid resource")
	// ErrMalformedResponse: a list response or a watch event that is not what the API returns
	// (no items array, no object, an unknown event type, an unparseable resourceVersion).
	ErrMalformedResponse = errors.New("kube: malformed response")
	// ErrWatchEnded: the server ended the watch normally (timeoutSeconds elapsed, or it closed the
	// stream); the source watches again from the last resourceVersion.
	ErrWatchEnded = errors.New("kube: watch ended")
	// ErrListBehind: a re-list answered at a resourceVersion older than the cache's; the cache keeps
	// its state and the source lists again after a backoff.
	ErrListBehind = errors.New("kube: list older than the cache")
)
