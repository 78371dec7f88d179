// Package depcheck holds no code: its test fails when a core package (watchcache, index,
// selection, rvclock) depends on more packages than its bound or on a package of the deny-list,
// so that what a controller embedding the cache compiles and links stays small.
package depcheck
