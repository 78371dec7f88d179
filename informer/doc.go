// Package informer is a client-go cache.SharedIndexInformer backed by a watch cache: a
// watchcache.Cache fed from the API server through source/kube holds the objects as the raw JSON
// the server sent, and typed objects are decoded from it when a caller asks — once per event for
// the event handlers and the indexers, which share the decoded object, and once per object read
// through GetIndexer. client-go's typed listers and cache.WaitForCacheSync work unchanged:
//
//	f := informer.NewFactory(cfg, informer.FactoryOptions{})
//	pods, _ := f.InformerFor(&corev1.Pod{})
//	f.Start(ctx.Done())
//	cache.WaitForCacheSync(ctx.Done(), pods.HasSynced)
//	lister := corelisters.NewPodLister(pods.GetIndexer())
//
// What differs from client-go's informer, and why:
//
//   - Memory is the raw JSON's (shared with the watch cache), not a decoded object per key; a read
//     through GetIndexer decodes, so objects returned are the caller's to mutate.
//   - The watch cache answers List with limit/continue and any field selector (Cache); an
//     informer's handlers see the cache's events in resourceVersion order.
//   - While the source re-lists after a 410, reads keep the last complete state; the re-list's
//     result is delivered as the reflector delivers a relist: adds, updates, and deletes of objects
//     that disappeared as cache.DeletedFinalStateUnknown.
//   - SetWatchErrorHandler is accepted but never called: the source retries server errors itself
//     with backoff and logs them (source/kube).
//
// Concurrency: every method of Informer and Factory is safe for concurrent use.
package informer
