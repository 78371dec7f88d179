// Command report turns the benchstat CSV of a bench/run.sh run into BENCHMARKS.md: per-workload
// tables of medians for every peer and size, ratios of ours against each peer, and the
// performance targets with met / not met.
//
// Usage: report -csv results/benchstat.csv -text results/benchstat.txt -machine "..." -cmd "..." > BENCHMARKS.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// key identifies one benchmark row: Workload/n=<size>/peer=<peer>.
type key struct{ workload, size, peer string }

// medians[key][unit] is benchstat's median.
type medians map[key]map[string]float64

var nameRE = regexp.MustCompile(`^([A-Za-z]+)/n=([0-9a-z]+)/peer=(.+?)(?:-\d+)?$`)

func parseCSV(r io.Reader) (medians, error) {
	m := medians{}
	sc := bufio.NewScanner(r)
	unit := ""
	for sc.Scan() {
		line := sc.Text()
		f := strings.Split(line, ",")
		switch {
		case len(f) < 2:
			unit = ""
		case f[0] == "" && len(f) >= 3 && f[2] == "CI":
			unit = f[1]
		case f[0] == "" || unit == "":
		default:
			g := nameRE.FindStringSubmatch(f[0])
			if g == nil {
				continue
			}
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				continue
			}
			k := key{g[1], g[2], g[3]}
			if m[k] == nil {
				m[k] = map[string]float64{}
			}
			m[k][unit] = v
		}
	}
	return m, sc.Err()
}

func (m medians) get(w, size, peer, unit string) (float64, bool) {
	v, ok := m[key{w, size, peer}][unit]
	return v, ok
}

func (m medians) sizes() []string {
	set := map[string]bool{}
	for k := range m {
		set[k.size] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int { return sizeOf(a) - sizeOf(b) })
	return out
}

func sizeOf(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	}
	n, _ := strconv.Atoi(s)
	return n * mult
}

// dur formats seconds.
func dur(sec float64) string {
	switch a := math.Abs(sec); {
	case a == 0:
		return "0"
	case a < 1e-6:
		return fmt.Sprintf("%.0f ns", sec*1e9)
	case a < 1e-3:
		return fmt.Sprintf("%.3g µs", sec*1e6)
	case a < 1:
		return fmt.Sprintf("%.3g ms", sec*1e3)
	}
	return fmt.Sprintf("%.3g s", sec)
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func bytesFmt(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.3g GiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.3g MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.3g KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

// ratio renders how many times faster a (ours) is than b: "3.2× faster" or "2.1× slower".
func ratio(ours, peer float64) string {
	if ours <= 0 || peer <= 0 {
		return "–"
	}
	r := peer / ours
	if r >= 1 {
		return fmt.Sprintf("**%s× faster**", sig(r))
	}
	return fmt.Sprintf("**%s× slower**", sig(1/r))
}

func sig(r float64) string {
	switch {
	case r >= 1000:
		return fmt.Sprintf("%.3g", r)
	case r >= 10:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2g", r)
}

// workload describes one table.
type workload struct {
	name, title, what string
	ours              string   // the peer the ratios are computed for
	peers             []string // in table order
	extra             []string // extra units to show
}

var workloads = []workload{
	{"Ingest", "Ingest: raw JSON → queryable (with the spec.nodeName index)",
		"ns/op is building from all N pods; per event = per object. ours-replace: Replace of the list; ours-apply: N ADDED events applied one by one (the default window; a snapshot published every 128 events unless a reader needs one sooner); client-go: decode (k8s JSON serializer) + Indexer.Add on one goroutine; cacher-build: NewCacherFromConfig + Wait over etcd (its list from etcd, decode, store).",
		"ours-replace", []string{"ours-replace", "ours-apply", "client-go", "cacher-build"}, []string{"sec/event", "cpu-sec/event"}},
	{"IndexedPage", "Indexed field page: fieldSelector=spec.nodeName=X, limit 500",
		"≈N/5000 matches, rotating over 64 nodes (items/op is the average over the nodes a peer queried: the etcd path, at one query per run, samples 5 nodes). client-go: ByIndex (no order, no paging).",
		"ours", []string{"ours", "ours-rv0", "client-go", "cacher-rv0", "cacher", "etcd"}, []string{"items/op"}},
	{"IndexedLabelPage", "Indexed field + label: spec.nodeName=X,status.phase=Running + app=frontend, limit 500",
		"client-go: ByIndex + phase + labels.Selector.Matches.",
		"ours", []string{"ours", "ours-rv0", "client-go", "cacher-rv0", "cacher", "etcd"}, []string{"items/op"}},
	{"HeadPage", "Head page of 500, no selector, consistent read (RV=\"\")", "",
		"ours", []string{"ours", "cacher", "etcd"}, []string{"items/op"}},
	{"LabelPage", "Unindexed 1%-selective label (app=web): first page of 500", "client-go: List + Matches until 500 matches (map order). cacher at RV=\"\" (RV=0 ignores the limit). ours-labelidx has a label index on app (not unindexed: shown for scale).",
		"ours", []string{"ours", "ours-labelidx", "client-go", "cacher"}, []string{"items/op"}},
	{"LabelList", "Unindexed 1%-selective label (app=web): full list", "client-go: List + labels.Selector.Matches on the typed pods; cacher at RV=0.",
		"ours", []string{"ours", "ours-labelidx", "client-go", "cacher-rv0"}, []string{"items/op"}},
	{"FullList", "Full list, no selector", "", "ours", []string{"ours", "client-go", "cacher-rv0"}, []string{"items/op"}},
	{"ContinuePage", "Continue page of 500 deep in a list, after 10,000 changes since its first page",
		"The token after page N/1000 of an all-pods list; 10,000 churn changes applied after the token was issued; served from the list's snapshot (to-etcd/op = 0 for the cacher).",
		"ours", []string{"ours", "cacher"}, []string{"items/op"}},
	{"WatchDispatch", "Watch dispatch: one change delivered to 5,000 node-filtered watchers",
		"Per change, until every delivery (≈1.2 per change: old and new node) is received by the draining goroutines. ours-nowatch: Apply alone. etcd-put: the etcd write alone. cacher-5000w: etcd write → etcd watch → decode → cacher → trigger dispatch, pipelined over 4 writers (bounded below by etcd-put).",
		"ours-5000w", []string{"ours-nowatch", "ours-5000w", "etcd-put", "cacher-5000w"}, []string{"deliveries/op"}},
	{"Memory", "Heap per object after load (live heap after GC, by difference)",
		"raw-B/object is the JSON itself. gc-cpu-sec is the CPU time one full garbage collection spends on what the peer holds (the per-cycle price of keeping the objects: the mark phase scans every pointer). ours-10k-snaps: after 10,000 churn changes with the 10,000 snapshots retained (B/object per live object; load-B/object before the churn; snap-B per retained snapshot, which includes the object version it displaced).",
		"ours", []string{"ours", "client-go", "ours-10k-snaps"}, []string{"B/object", "raw-B/object", "gc-cpu-sec", "load-B/object", "snap-B"}},
}

func main() {
	csvPath := flag.String("csv", "", "benchstat -format csv output")
	textPath := flag.String("text", "", "benchstat text output (appended)")
	machine := flag.String("machine", "", "machine line")
	command := flag.String("cmd", "bench/run.sh", "the command that produced the results")
	notes := flag.String("notes", "", "file with notes to include (optional)")
	flag.Parse()
	f, err := os.Open(*csvPath)
	if err != nil {
		fatal(err)
	}
	m, err := parseCSV(f)
	f.Close()
	if err != nil {
		fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	p := func(format string, a ...any) { fmt.Fprintf(out, format, a...) }

	p("# Benchmarks: watchcache vs client-go, the apiserver's etcd path and the apiserver's watch cache\n\n")
	p("Generated by `bench/run.sh` (issue 7). Do not edit by hand: re-run it.\n\n")
	p("- **Machine:** %s\n", *machine)
	p("- **Command:** `%s`\n", *command)
	p("- **Data:** pods from the project's deterministic generator (seed 7), 5,000 nodes, 200 namespaces, ≈3.6 KiB of JSON per pod; every peer is fed the same bytes in the same process.\n")
	p("- **Numbers:** medians (benchstat) of the runs listed in the appendix. Wall time (`time/op`) is the benchmark's own; `cpu/op` is the process's user+system CPU per op (all goroutines, GC and the in-process etcd), steadier on a shared machine. Ratios are of medians of wall time.\n\n")
	if *notes != "" {
		if b, err := os.ReadFile(*notes); err == nil {
			p("%s\n", b)
		}
	}
	sizes := m.sizes()

	p("## Targets (issue 7)\n\n")
	targets(p, m)

	p("\n## Results by workload\n\n")
	for _, w := range workloads {
		p("### %s\n\n", w.title)
		if w.what != "" {
			p("%s\n\n", w.what)
		}
		p("| peer |")
		cols := 0
		for _, s := range sizes {
			if w.name == "Memory" {
				for _, u := range w.extra {
					if hasUnit(m, w, s, u) {
						p(" %s n=%s |", u, s)
						cols++
					}
				}
				continue
			}
			p(" time/op n=%s |", s)
			cols++
			if hasUnit(m, w, s, "cpu-sec/op") {
				p(" cpu/op n=%s |", s)
				cols++
			}
			p(" allocs/op n=%s |", s)
			cols++
			for _, u := range w.extra {
				if hasUnit(m, w, s, u) {
					p(" %s n=%s |", unitName(u), s)
					cols++
				}
			}
		}
		p("\n|---|%s\n", strings.Repeat("---|", cols))
		for _, peer := range w.peers {
			if !hasPeer(m, w.name, peer) {
				continue
			}
			p("| %s |", peer)
			for _, s := range sizes {
				if w.name == "Memory" {
					for _, u := range w.extra {
						if hasUnit(m, w, s, u) {
							v, ok := m.get(w.name, s, peer, u)
							p(" %s |", orDash(ok, bytesOrNum(u, v)))
						}
					}
					continue
				}
				v, ok := m.get(w.name, s, peer, "sec/op")
				p(" %s |", orDash(ok, dur(v)))
				if hasUnit(m, w, s, "cpu-sec/op") {
					v, ok = m.get(w.name, s, peer, "cpu-sec/op")
					p(" %s |", orDash(ok, dur(v)))
				}
				v, ok = m.get(w.name, s, peer, "allocs/op")
				p(" %s |", orDash(ok, num(v)))
				for _, u := range w.extra {
					if hasUnit(m, w, s, u) {
						v, ok := m.get(w.name, s, peer, u)
						p(" %s |", orDash(ok, fmtUnit(u, v)))
					}
				}
			}
			p("\n")
		}
		// Ratios of ours against each peer.
		unit := "sec/op"
		if w.name == "Ingest" {
			unit = "sec/event"
		}
		if w.name == "Memory" {
			unit = "B/object"
		}
		var lines []string
		for _, s := range sizes {
			ov, ok := m.get(w.name, s, w.ours, unit)
			if !ok {
				continue
			}
			for _, peer := range w.peers {
				if peer == w.ours || strings.HasPrefix(peer, "ours") && w.name != "WatchDispatch" {
					continue
				}
				pv, ok := m.get(w.name, s, peer, unit)
				if !ok {
					continue
				}
				if w.name == "Memory" {
					line := fmt.Sprintf("n=%s: %s %s vs %s %s → %.2f× of it", s, w.ours, bytesFmt(ov), peer, bytesFmt(pv), ov/pv)
					og, ok1 := m.get(w.name, s, w.ours, "gc-cpu-sec")
					pg, ok2 := m.get(w.name, s, peer, "gc-cpu-sec")
					if ok1 && ok2 && og > 0 {
						line += fmt.Sprintf(" (GC cycle %s vs %s: %s× less)", dur(og), dur(pg), sig(pg/og))
					}
					lines = append(lines, line)
					continue
				}
				lines = append(lines, fmt.Sprintf("n=%s: %s %s vs %s %s → %s", s, w.ours, fmtUnit(unit, ov), peer, fmtUnit(unit, pv), ratio(ov, pv)))
			}
		}
		if len(lines) > 0 {
			p("\nRatios: ")
			p("%s.\n", strings.Join(lines, "; "))
		}
		p("\n")
	}
	if *textPath != "" {
		if b, err := os.ReadFile(*textPath); err == nil {
			p("## Appendix: benchstat output\n\n```\n%s```\n", b)
		}
	}
}

func hasPeer(m medians, w, peer string) bool {
	for k := range m {
		if k.workload == w && k.peer == peer {
			return true
		}
	}
	return false
}

func hasUnit(m medians, w workload, size, unit string) bool {
	for _, peer := range w.peers {
		if _, ok := m.get(w.name, size, peer, unit); ok {
			return true
		}
	}
	return false
}

func unitName(u string) string {
	switch u {
	case "sec/event":
		return "per event"
	case "cpu-sec/event":
		return "cpu/event"
	}
	return u
}

func fmtUnit(u string, v float64) string {
	if strings.HasPrefix(u, "sec/") || strings.HasPrefix(u, "cpu-sec/") {
		return dur(v)
	}
	return num(v)
}

func bytesOrNum(u string, v float64) string {
	if strings.Contains(u, "sec") {
		return dur(v)
	}
	if strings.Contains(u, "B") {
		return num(v) + " B"
	}
	return num(v)
}

func orDash(ok bool, s string) string {
	if !ok {
		return "–"
	}
	return s
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// targets prints the performance targets, evaluated on the largest size measured for each (100k by
// default).
func targets(p func(string, ...any), m medians) {
	size := "100k"
	if _, ok := m.get("IndexedPage", size, "ours", "sec/op"); !ok {
		if s := m.sizes(); len(s) > 0 {
			size = s[len(s)-1]
		}
	}
	p("Evaluated at n=%s on medians, once on wall time (what a caller waits) and once on process CPU time (steadier on a shared machine; see the notes).\n\n", size)
	p("| target | ours | peer | wall: ratio | verdict | CPU: ratio | verdict |\n|---|---|---|---|---|---|---|\n")
	verdict := func(r, want float64) string {
		if r >= want {
			return "**met**"
		}
		return fmt.Sprintf("**not met** (%s× short)", sig(want/r))
	}
	speed := func(name, w, ours, peer, unit string, want float64) {
		ov, ok1 := m.get(w, size, ours, unit)
		pv, ok2 := m.get(w, size, peer, unit)
		if !ok1 || !ok2 {
			p("| %s | not measured | | | | | |\n", name)
			return
		}
		r := pv / ov
		cr, cv := "–", "–"
		cpuUnit := "cpu-" + unit
		oc, ok1 := m.get(w, size, ours, cpuUnit)
		pc, ok2 := m.get(w, size, peer, cpuUnit)
		cpuCell := ""
		if ok1 && ok2 && oc > 0 {
			cr, cv = sig(pc/oc)+"×", verdict(pc/oc, want)
			cpuCell = fmt.Sprintf(" (cpu %s)", fmtUnit(unit, oc))
		}
		peerCPU := ""
		if ok2 {
			peerCPU = fmt.Sprintf(" (cpu %s)", fmtUnit(unit, pc))
		}
		p("| %s | %s %s%s | %s %s%s | %s× | %s | %s | %s |\n", name, ours, fmtUnit(unit, ov), cpuCell, peer, fmtUnit(unit, pv), peerCPU, sig(r), verdict(r, want), cr, cv)
	}
	speed("ingest ≥ 10× client-go (Replace)", "Ingest", "ours-replace", "client-go", "sec/event", 10)
	speed("ingest ≥ 10× client-go (Apply per event)", "Ingest", "ours-apply", "client-go", "sec/event", 10)
	speed("build from a 100k list ≥ 10× faster than the apiserver cache", "Ingest", "ours-replace", "cacher-build", "sec/event", 10)
	speed("indexed spec.nodeName page ≥ 1,000,000× faster than the etcd path", "IndexedPage", "ours", "etcd", "sec/op", 1e6)
	speed("indexed spec.nodeName page ≥ 30× faster than the apiserver cache (RV=0)", "IndexedPage", "ours", "cacher-rv0", "sec/op", 30)
	speed("indexed spec.nodeName page ≥ 30× faster than the apiserver cache (consistent)", "IndexedPage", "ours", "cacher", "sec/op", 30)
	speed("indexed spec.nodeName page at least as fast as client-go ByIndex", "IndexedPage", "ours", "client-go", "sec/op", 1)
	speed("indexed field + label page at least as fast as client-go ByIndex + filter", "IndexedLabelPage", "ours", "client-go", "sec/op", 1)
	speed("head page of 500 ≥ 100× faster than the apiserver cache", "HeadPage", "ours", "cacher", "sec/op", 100)
	speed("continue page of 500 ≥ 100× faster than the apiserver cache", "ContinuePage", "ours", "cacher", "sec/op", 100)
	speed("1% unindexed label full list ≥ 5× faster than client-go List + Matches", "LabelList", "ours", "client-go", "sec/op", 5)
	ov, ok1 := m.get("Memory", size, "ours", "B/object")
	pv, ok2 := m.get("Memory", size, "client-go", "B/object")
	if ok1 && ok2 {
		r := ov / pv
		v := "**met**"
		if r > 0.5 {
			v = fmt.Sprintf("**not met** (%.0f B/object above 0.5×)", ov-pv/2)
		}
		p("| memory per object ≤ 0.5× client-go typed | ours %s | client-go %s | %.2f× | %s | (not a time) | |\n", bytesFmt(ov), bytesFmt(pv), r, v)
	} else {
		p("| memory per object ≤ 0.5× client-go typed | not measured | | | | | |\n")
	}
}
