// Package kube feeds a watch cache from a Kubernetes API server — a real kube-apiserver, or another
// cache served over HTTP — with a reflector's semantics, keeping the objects as the raw JSON the
// server sent.
//
// A Source reads one group and version through one client and feeds one cache per resource added
// to it (New, then Add for each resource, then Run), as the etcd source feeds one cache per etcd
// prefix; each resource has its own list and watch loop. For each, the source lists in pages
// (limit/continue, resourceVersion "" so the list is consistent) and hands the items to
// Cache.Replace at the list's resourceVersion, then watches from that resourceVersion with
// allowWatchBookmarks:
//
//	server                                    cache
//	list page(s) at RV N                      Replace(items, N)
//	ADDED / MODIFIED / DELETED at RV M        Apply(type, object, M)
//	BOOKMARK at RV M                          Apply(BOOKMARK, M)        (rule 3.1)
//	watch ends (timeoutSeconds, EOF)          watch again from the last RV, no re-list
//	stream breaks, 5xx, 429                   watch again from the last RV after a backoff
//	410 Gone (ERROR event or response)        re-list; reads keep the last state until Replace (rule 5.3)
//
// No object is decoded into a Go type. A list response is parsed once with gjson and each item is
// copied out as its own byte slice (so the page's buffer is not retained by the longest-lived item);
// a watch stream is read with a json.Decoder into one json.RawMessage per event, and the event's
// "object" is a sub-slice of it, handed to the cache as is. The cache parses each object once, as it
// does for every source.
//
// List items from a kube-apiserver carry no kind or apiVersion (the list has them); the source writes
// them into each item, from the list's kind without its "List" suffix and the list's apiVersion, so
// that listed objects and watched objects look alike when the cache serves them.
//
// Requests go through a client-go rest.Interface bound to the resource's group and version, e.g.
// kubernetes.Clientset.CoreV1().RESTClient() for pods, or rest.RESTClientFor for any group; the
// source asks for application/json whatever the client's default content type.
package kube
