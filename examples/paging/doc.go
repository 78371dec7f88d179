// Package paging holds an example test (paging_test.go) of code that lists with limit/continue
// and field selectors through client-go, run against the writable fake.
package paging
