package etcd

import "errors"

// Errors of the source. Errors from etcd and from the caches are wrapped with the resource prefix and
// revision they concern; test with errors.Is.
var (
	// ErrUndecodable: a value cannot be decoded — encrypted at rest (and not read through
	// Options.Transform), protobuf of a kind Options.Scheme lacks, malformed protobuf, CBOR or JSON,
	// or empty. Such objects are skipped and counted (Stats.Skipped, Source.Skips by reason); the
	// error is only logged, once per reason and resource at Warn.
	ErrUndecodable = errors.New("etcd: value cannot be decoded")
	// ErrUntransformable: Options.Transform failed on a value (e.g. it was written with another
	// encryption key or transformer prefix). Such objects are skipped and counted like undecodable
	// ones, and listed by Source.Unreadable.
	ErrUntransformable = errors.New("etcd: value cannot be transformed from storage")
	// ErrClientConfig: NewClient or ClientConfig.TLS was given no endpoint, half a client
	// certificate, or TLS files that cannot be read.
	ErrClientConfig = errors.New("etcd: invalid client configuration")
	// ErrRunning: Run was called twice, or Add after the context of Run ended.
	ErrRunning = errors.New("etcd: source already running")
	// ErrNoResources: Run was called before any Add.
	ErrNoResources = errors.New("etcd: no resources added")
	// ErrInvalidPrefix: Add was given an empty, unclean or duplicate resource prefix.
	ErrInvalidPrefix = errors.New("etcd: invalid resource prefix")
	// ErrZeroRevision: etcd answered with revision 0, which no list may carry (rules 1.8, 6.4).
	ErrZeroRevision = errors.New("etcd: the current resource version must be greater than 0")
	// ErrNoPrevKV: a DELETE event came without the deleted value, so the cache cannot emit its DELETED
	// event; the source re-lists.
	ErrNoPrevKV = errors.New("etcd: delete event without previous value")
)
