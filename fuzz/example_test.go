package fuzz_test

import (
	"fmt"

	"github.com/watchcache/watchcache/fuzz"
)

func ExampleModel() {
	m := fuzz.NewModel(100)
	pod := func(name, node string, rv int) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"a","resourceVersion":"%d"},"spec":{"nodeName":%q}}`, name, rv, node)
	}
	_ = m.Replace([][]byte{pod("p1", "n1", 1), pod("p2", "n2", 2), pod("p3", "n1", 3)}, 10)
	_ = m.Apply("MODIFIED", pod("p3", "n2", 11), 11)

	page := m.List(fuzz.Query{FieldSelector: "spec.nodeName=n1", ResourceVersion: "10", ResourceVersionMatch: "Exact"})
	fmt.Println(len(page.Items), "on n1 at RV", page.RV)
	page = m.List(fuzz.Query{Limit: 2})
	fmt.Println(len(page.Items), "items, remaining", *page.Remaining, "at RV", page.RV)
	for _, ev := range m.Watch(fuzz.Query{FieldSelector: "spec.nodeName=n1", ResourceVersion: "10"}, 11).Events {
		fmt.Println(ev.Type, ev.RV)
	}
	// Output:
	// 2 on n1 at RV 10
	// 2 items, remaining 1 at RV 11
	// DELETED 11
}
