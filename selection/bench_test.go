package selection

import (
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
)

var sizes = []struct {
	name       string
	containers int
}{{"pod-4KiB", 1}, {"pod-7KiB", 4}, {"pod-15KiB", 12}}

// Extract on pods of increasing size (performance target: ≤ ~5 µs and ≤ 3 allocs for 4 KiB).
func BenchmarkExtract(b *testing.B) {
	s := PodSchema()
	for _, sz := range sizes {
		raw := podJSON(sz.containers)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Extract(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ReferenceExtract: the two-pass extraction (validJSON, then a gjson walk) that Extract's single
// pass is compared with.
func BenchmarkReferenceExtract(b *testing.B) {
	s := PodSchema()
	for _, sz := range sizes {
		raw := podJSON(sz.containers)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.referenceExtract(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ValidBytes: what validation adds to Extract.
func BenchmarkValidBytes(b *testing.B) {
	for _, sz := range sizes {
		raw := podJSON(sz.containers)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if !gjson.ValidBytes(raw) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// Extract with registered fields of each kind: served by the pass, by gjson on a sub-object
// (query), by the array fallback (index), and by a whole-object gjson (modifier).
func BenchmarkExtractRegistered(b *testing.B) {
	paths := map[string][]string{
		"plain":    {"metadata.labels.tier", "status.qosClass", "spec.priority"},
		"query":    {`status.conditions.#(type=="Ready").status`},
		"index":    {"spec.containers.0.image"},
		"modifier": {"@this.kind"},
	}
	for _, name := range []string{"plain", "query", "index", "modifier"} {
		s := PodSchema()
		for i, p := range paths[name] {
			s, _ = s.WithField(fmt.Sprint("x", i), p)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Extract(pod4K); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The design's rejected alternative (reference/feasibility.md): one gjson.GetManyBytes over the
// same paths rescans from byte 0 per path.
func BenchmarkBaselineGetMany(b *testing.B) {
	paths := []string{"metadata.name", "metadata.namespace", "metadata.resourceVersion", "metadata.labels",
		"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
		"status.phase", "status.podIP", "status.nominatedNodeName"}
	b.ReportAllocs()
	for b.Loop() {
		_ = gjson.GetManyBytes(pod4K, paths...)
	}
}

// The floor of the gjson approach: the top-level ForEach alone, which already scans (squashes)
// metadata, spec and status once before Extract descends into them.
func BenchmarkBaselineTopLevelForEach(b *testing.B) {
	json := string(pod4K)
	b.ReportAllocs()
	for b.Loop() {
		gjson.Parse(json).ForEach(func(_, _ gjson.Result) bool { return true })
	}
}

func labelSet(n int) Labels {
	m := map[string]string{"app": "web", "tier": "frontend", "version": "v1"}
	for i := len(m); i < n; i++ {
		m[fmt.Sprintf("extra-%02d", i)] = "x"
	}
	return NewLabels(m)
}

// Label matching by label-set size (linear lookup up to 32 labels, binary search beyond).
func BenchmarkLabelMatches(b *testing.B) {
	l, _ := ParseLabels("app=web,tier in (frontend,backend),version,!gone,env!=prod")
	for _, n := range []int{3, 8, 32, 64} {
		ls := labelSet(n)
		b.Run(fmt.Sprintf("labels-%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !l.Matches(ls) {
					b.Fatal("no match")
				}
			}
		})
		b.Run(fmt.Sprintf("labels-%d-apimachinery-map", n), func(b *testing.B) {
			set := ls.Set()
			b.ReportAllocs()
			for b.Loop() {
				if !l.Selector.Matches(set) {
					b.Fatal("no match")
				}
			}
		})
	}
}

func BenchmarkFieldMatches(b *testing.B) {
	s := PodSchema()
	o, _ := s.Extract(pod4K)
	for _, sel := range []string{"spec.nodeName=node-0042", "spec.nodeName=node-0042,status.phase!=Failed,metadata.namespace=team-a"} {
		f, _ := s.ParseFields(sel)
		b.Run(fmt.Sprintf("terms-%d", len(f.terms)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !f.Matches(o.Fields) {
					b.Fatal("no match")
				}
			}
		})
	}
}

func BenchmarkParseFields(b *testing.B) {
	s := PodSchema()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ParseFields("spec.nodeName=node-0042,status.phase!=Failed"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseLabels(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseLabels("app=web,tier in (frontend,backend)"); err != nil {
			b.Fatal(err)
		}
	}
}

// MarkStringEnds: the bitmap of string ends Extract builds before its pass, per implementation
// the CPU can run.
func BenchmarkMarkStringEnds(b *testing.B) {
	raw := podJSON(1)
	var buf endsBuf
	ends := buf[:(len(raw)+63)/64]
	benchEachMarker(b, func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			markStringEnds(raw, ends)
		}
	})
}
