// Command summarize turns the `go test -json` output of the storagetest suite (TestStorage/<case>/<backend>)
// into the Markdown table of RESULTS.md: one row per case, one column per backend, and a note for
// every failure or skip of ours (notes.go), so that each result stands beside the apiserver's.
//
//	go test -json . | go run ./cmd/summarize           # print the table
//	go run ./cmd/summarize -update RESULTS.md out.json  # also replace the table between the
//	                                                    # <!-- table --> and <!-- /table --> markers
//	go run ./cmd/summarize -readme ../README.md out.json  # and the short table (one-line notes,
//	                                                    # notes.go: short) between <!-- storagetest
//	                                                    # table --> and <!-- /storagetest table -->
//
// It exits 1 when ours has a result that notes.go does not expect (a new failure, or a recorded
// failure that now passes), so a CI job notices both regressions and stale notes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

var backends = []string{"etcd3", "cacher", "ours"}

type event struct {
	Time    time.Time
	Action  string
	Test    string
	Elapsed float64
	Output  string
}

type result struct {
	action  string
	elapsed float64
	skipMsg string
}

func main() {
	update := flag.String("update", "", "a Markdown file whose table (between <!-- table --> and <!-- /table -->) to replace")
	readme := flag.String("readme", "", "a Markdown file whose short table (between <!-- storagetest table --> and <!-- /storagetest table -->) to replace")
	flag.Parse()
	var in io.Reader = os.Stdin
	if flag.NArg() > 0 {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	results, order, wall, err := read(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(order) == 0 {
		fmt.Fprintln(os.Stderr, "summarize: no TestStorage/<case>/<backend> results in the input")
		os.Exit(2)
	}
	var table strings.Builder
	unexpected := write(&table, results, order, wall)
	fmt.Print(table.String())
	if *update != "" {
		if err := replaceTable(*update, "<!-- table -->\n", "<!-- /table -->", table.String()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if *readme != "" {
		var short strings.Builder
		writeShort(&short, results, order)
		if err := replaceTable(*readme, "<!-- storagetest table -->\n", "<!-- /storagetest table -->", short.String()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	for _, u := range unexpected {
		fmt.Fprintln(os.Stderr, "unexpected:", u)
	}
	if len(unexpected) > 0 {
		os.Exit(1)
	}
}

// others are the results of the package's other top-level tests (TestDifferential, TestUpdateWithoutNamespaceServedFromKey).
var others = map[string]*result{}

var othersOrder []string

func read(in io.Reader) (map[string]map[string]*result, []string, time.Duration, error) {
	results := map[string]map[string]*result{}
	var order []string
	lastOutput := map[string]string{}
	started := map[string]int{}
	var first, last time.Time
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if !e.Time.IsZero() {
			if first.IsZero() {
				first = e.Time
			}
			last = e.Time
		}
		if e.Test != "" && e.Test != "TestStorage" && !strings.Contains(e.Test, "/") {
			switch e.Action {
			case "output":
				if o := strings.TrimSpace(e.Output); strings.Contains(o, "_test.go:") {
					lastOutput[e.Test] = o[strings.Index(o, ": ")+2:]
				}
			case "pass", "fail", "skip":
				if others[e.Test] == nil {
					othersOrder = append(othersOrder, e.Test)
				}
				others[e.Test] = &result{action: e.Action, elapsed: e.Elapsed, skipMsg: lastOutput[e.Test]}
			}
			continue
		}
		if e.Action == "run" {
			// The cases start in the order of the suite's table (the parallel ones pause at
			// once), but finish in any order: rows follow the starts.
			if c, ok := strings.CutPrefix(e.Test, "TestStorage/"); ok {
				if _, seen := started[c]; !seen {
					started[c] = len(started)
				}
			}
			continue
		}
		name, b, ok := split(e.Test)
		if !ok {
			continue
		}
		switch e.Action {
		case "output":
			if o := strings.TrimSpace(e.Output); strings.Contains(o, "suite_test.go:") || strings.Contains(o, "_test.go:") && strings.Contains(o, "skip") {
				lastOutput[e.Test] = o[strings.Index(o, ": ")+2:]
			}
		case "pass", "fail", "skip":
			if results[name] == nil {
				results[name] = map[string]*result{}
				order = append(order, name)
			}
			r := &result{action: e.Action, elapsed: e.Elapsed}
			if e.Action == "skip" {
				r.skipMsg = lastOutput[e.Test]
			}
			results[name][b] = r
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return startIndex(started, order[i]) < startIndex(started, order[j]) })
	return results, order, last.Sub(first), sc.Err()
}

// startIndex is the position of a case among the subtests started, or after all of them.
func startIndex(started map[string]int, name string) int {
	if i, ok := started[name]; ok {
		return i
	}
	return len(started)
}

// split parses TestStorage/<case>/<backend>; a case name may contain '/'.
func split(test string) (name, backend string, ok bool) {
	rest, found := strings.CutPrefix(test, "TestStorage/")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, "/")
	if i < 0 {
		return "", "", false
	}
	name, backend = rest[:i], rest[i+1:]
	for _, b := range backends {
		if b == backend {
			return name, backend, true
		}
	}
	return "", "", false
}

func write(w io.Writer, results map[string]map[string]*result, order []string, wall time.Duration) (unexpected []string) {
	counts := map[string]map[string]int{}
	for _, b := range backends {
		counts[b] = map[string]int{}
	}
	fmt.Fprintln(w, "| test | etcd3 | apiserver cache | ours | note (for ours: why it fails or is skipped) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, name := range order {
		row := results[name]
		cells := make([]string, 0, len(backends))
		for _, b := range backends {
			r := row[b]
			if r == nil {
				cells = append(cells, "—")
				continue
			}
			counts[b][r.action]++
			cells = append(cells, cell(r))
		}
		note := notes[name]
		ours := row["ours"]
		if flaky, ok := oursFlaky[name]; ok {
			note = join(flaky, note)
		} else if ours != nil && ours.action != "pass" {
			reason, known := oursReasons[name]
			if !known && ours.action == "fail" {
				unexpected = append(unexpected, name+": ours fails")
			}
			if reason == "" {
				reason = ours.skipMsg
			}
			if reason == "" {
				reason = "**no recorded reason**"
			}
			note = join(reason, note)
		} else if _, known := oursReasons[name]; known && ours != nil {
			unexpected = append(unexpected, name+": ours passes but notes.go records a reason for failing")
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, strings.Join(cells, " | "), note)
	}
	fmt.Fprintln(w)
	for _, b := range backends {
		label := map[string]string{"etcd3": "etcd3", "cacher": "apiserver cache", "ours": "ours"}[b]
		fmt.Fprintf(w, "- %s: %d pass, %d fail, %d skip\n", label, counts[b]["pass"], counts[b]["fail"], counts[b]["skip"])
	}
	for _, name := range othersOrder {
		r := others[name]
		fmt.Fprintf(w, "- %s: %s", name, cell(r))
		if r.skipMsg != "" {
			fmt.Fprintf(w, " (%s)", r.skipMsg)
		}
		fmt.Fprintln(w)
		if r.action == "fail" {
			unexpected = append(unexpected, name+" fails")
		}
	}
	if wall > 0 {
		fmt.Fprintf(w, "- wall time of the run: %s\n", wall.Round(time.Second))
	}
	sort.Strings(unexpected)
	return unexpected
}

// writeShort writes the README's table: the results and a one-line note (notes.go: short).
func writeShort(w io.Writer, results map[string]map[string]*result, order []string) {
	fmt.Fprintln(w, "| test | etcd3 | apiserver cache | ours | note |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	counts := map[string]map[string]int{}
	for _, b := range backends {
		counts[b] = map[string]int{}
	}
	for _, name := range order {
		row := results[name]
		cells := make([]string, 0, len(backends))
		for _, b := range backends {
			if r := row[b]; r != nil {
				counts[b][r.action]++
				cells = append(cells, cell(r))
			} else {
				cells = append(cells, "—")
			}
		}
		note := short[name]
		if ours := row["ours"]; ours != nil && ours.action != "pass" && note == "" {
			note = "**no recorded reason**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", name, strings.Join(cells, " | "), note)
	}
	fmt.Fprintln(w)
	var totals []string
	for _, b := range backends {
		label := map[string]string{"etcd3": "etcd3", "cacher": "apiserver cache", "ours": "ours"}[b]
		totals = append(totals, fmt.Sprintf("%s %d pass / %d fail / %d skip", label, counts[b]["pass"], counts[b]["fail"], counts[b]["skip"]))
	}
	fmt.Fprintf(w, "Totals: %s.\n", strings.Join(totals, "; "))
}

func replaceTable(path, open, close, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, open), strings.Index(s, close)
	if i < 0 || j < i {
		return fmt.Errorf("summarize: %s has no %q … %q markers", path, strings.TrimSpace(open), close)
	}
	s = s[:i+len(open)] + table + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

func cell(r *result) string {
	switch r.action {
	case "pass":
		return "pass"
	case "fail":
		return "**fail**"
	}
	return "skip"
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}
