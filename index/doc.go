// Package index holds ordered secondary indexes over a key-ordered store.
//
// An Index is a set of (value, key) entries: a directory of the distinct values (a hash trie),
// each with its keys in key order (one inline, up to 32 in a sorted slice, more in a B-tree of
// their own). An exact-match requirement on the indexed value (a field selector `f=v`, a label
// selector `k=v`) becomes a range scan of v's keys from startKey: results come out in key order,
// so a page that starts at any continue key costs O(log n + page) instead of a scan of the whole
// store, and counting a value's entries (to pick the most selective index) costs one lookup.
//
// Indexes are cloned copy-on-write with the store they index (Clone is O(1)), so every snapshot of
// a cache keeps indexes that describe exactly its own state. An index never changes what a query
// returns, only how fast: the planner that uses it (package watchcache) applies every requirement
// as a filter as well.
package index
