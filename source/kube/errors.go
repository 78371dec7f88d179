package kube

import "errors"

// Errors of the source. Errors from the server and from the cache are wrapped with the request they
// concern; test with errors.Is, or apierrors for the server's Status.
var (
	// ErrRunning: Run was called twice.
	ErrRunning = errors.New("kube: source already running")
	// ErrNoResource: Options.Resource is empty.
	ErrNoResource = errors.New("kube: no resource")
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
