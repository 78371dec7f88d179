package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// tcase is one request sent to both servers. Placeholders in path: {R} the resourceVersion of the
// phase's first list, {TOK} the apiserver's continue token of that list (limit=3, all namespaces),
// {TOKL} its token of `labelSelector=app=web&limit=3`, {TOKO} ours' token of the first list,
// {TOKNS} the apiserver's token of `namespaces/ns-0/pods?limit=100`, {RMID} a revision in the middle
// of the snapshot phase's writes, {TOKX} the rv=-1 token the apiserver returned in the expired phase.
type tcase struct {
	id    string
	path  string
	pages int    // 0/1: one request; n: follow each server's own continue tokens for n pages; -1: to the end
	rule  string // what the reference says (rule numbers of reference/apiserver-semantics.md)
}

// state carries resourceVersions and tokens from one phase to the next (the expired phase runs
// minutes later, after compaction).
type state map[string]map[string]string

const pods = "/api/v1/pods"

var mainCases = []tcase{
	// Pagination and continue tokens.
	{"P1", pods + "?limit=3", 3, "2.1-2.8: full pages, token {rv, start=last key+\\0}, remainingItemCount"},
	{"P2", pods + "?limit=500", -1, "2.6-2.8: a continue chain to the end"},
	{"P3", pods + "?limit=3&continue={TOK}", 1, "2.5: the apiserver's token, sent to both"},
	{"P4", pods + "?limit=3&continue={TOKO}", 1, "2.5: ours' token, sent to both (portable tokens)"},
	{"P5", "/api/v1/namespaces/ns-3/pods?limit=3", 2, "2.2: namespaced list, token start relative to /pods/ns-3"},
	{"P6", "/api/v1/nodes?limit=30", -1, "cluster-scoped chain"},
	{"P7", "/api/v1/namespaces?limit=3", -1, "cluster-scoped chain"},
	{"P8", "/api/v1/services", 1, "services (prefix services/specs)"},
	{"P9", "/api/v1/configmaps?limit=1", -1, "configmaps chain"},
	{"P10", pods + "?limit=3&continue={TOK}&resourceVersion=0", 1, "2.5: RV=0 with continue tolerated; cache ignores limit (2.6)"},
	{"P11", "/api/v1/namespaces/nope/pods?limit=3", 1, "6.5: empty list has items: []"},
	// resourceVersion semantics.
	{"R1", pods + "?limit=3&resourceVersion=0", 1, "2.6: the apiserver ignores limit at RV=0 (kubernetes#125335)"},
	{"R2", pods + "?resourceVersion=0", 1, "1.9: any"},
	{"R3", pods + "?limit=3&resourceVersion={R}&resourceVersionMatch=NotOlderThan", 2, "1.9: list RV = current, ≥ R"},
	{"R4", pods + "?limit=3&resourceVersion={R}&resourceVersionMatch=Exact", 2, "1.6: list RV = R exactly"},
	{"R5", pods + "?limit=3&resourceVersion={R}", 2, "1.1/1.6: legacy exact (RV=N + limit, no RVM)"},
	{"R6", pods + "?resourceVersion={R}", 1, "1.9: RV=N without limit is NotOlderThan"},
	{"R7", pods + "?resourceVersion={R}&resourceVersionMatch=Exact", 1, "1.6: exact, no limit"},
	{"R8", pods + "?limit=3&resourceVersion=2&resourceVersionMatch=Exact", 1, "1.3/1.18: an RV before the cache's window"},
	{"R9", pods + "?limit=3&resourceVersion=1", 1, "legacy exact at RV 1"},
	// Selectors.
	{"S1", pods + "?labelSelector=app%3Dweb&limit=3", 3, "2.7: no remainingItemCount with a selector"},
	{"S2", pods + "?labelSelector=app%3Dweb,tier%3Dfrontend&limit=500", -1, "4.1"},
	{"S3", pods + "?labelSelector=app+in+(web,db)&limit=500", -1, "4.1: set-based"},
	{"S4", pods + "?labelSelector=app!%3Dweb&limit=3", 1, "4.1"},
	{"S5", pods + "?labelSelector=!tier", 1, "4.1: !key, no match"},
	{"S6", pods + "?labelSelector=tier&limit=3", 1, "4.1: exists"},
	{"S7", pods + "?labelSelector=app%3D%3D&limit=3", 1, "4.1: app== is app equal to empty"},
	{"S8", pods + "?labelSelector=app%3Dweb&limit=3&continue={TOKL}", 1, "the apiserver's label-selector token, sent to both"},
	{"F1", pods + "?fieldSelector=spec.nodeName%3Dnode-7", 1, "4.7: indexed in both"},
	{"F2", pods + "?fieldSelector=spec.nodeName%3Dnode-7&limit=3", -1, "2.6: chain over an indexed selector"},
	{"F3", pods + "?fieldSelector=spec.nodeName!%3Dnode-7&limit=3", 1, "4.2"},
	{"F4", pods + "?fieldSelector=metadata.name%3Dpod-000007", 1, "4.6: single-name list"},
	{"F5", pods + "?fieldSelector=metadata.namespace%3Dns-3&limit=3", 3, "4.6: scope narrowing; DESIGN lists an apiserver bug on page 2"},
	{"F6", "/api/v1/namespaces/ns-7/pods?fieldSelector=spec.nodeName%3Dnode-7&labelSelector=app%3Dcache", 1, "field + label, namespaced"},
	{"F7", pods + "?fieldSelector=spec.nodeName%3Dnode-7&resourceVersion=0", 1, "4.7"},
	{"F8", pods + "?fieldSelector=spec.nodeName%3Dnode-7&resourceVersion={R}&resourceVersionMatch=Exact&limit=5", -1, "1.6 + 4.7: exact RV pages with a field selector"},
	{"F9", pods + "?fieldSelector=status.phase%3DPending&limit=3", 1, "4.4"},
	{"F10", pods + "?fieldSelector=spec.host%3Dnode-7&limit=3", 1, "4.3: spec.host is spec.nodeName"},
	{"F11", pods + "?fieldSelector=status.podIPs%3Dx", 1, "4.4: accepted, never matches"},
	{"F12", pods + "?fieldSelector=spec.nodeName%3Dnode-7,spec.nodeName%3Dnode-8", 1, "contradiction: empty"},
	{"F13", "/api/v1/nodes?fieldSelector=metadata.name%3Dnode-7", 1, "nodes by name"},
	{"F14", "/api/v1/namespaces?fieldSelector=status.phase%3DActive&limit=3", 1, "namespaces field"},
	{"F16", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue", 1, "nodes field"},
	{"F17", "/api/v1/nodes?labelSelector=zone%3Dz1&limit=10", -1, "nodes label chain"},
	{"F18", "/api/v1/services?fieldSelector=spec.clusterIP%3D10.96.0.1", 1, "4.3: services select on spec.clusterIP"},
	{"F19", "/api/v1/services?fieldSelector=spec.type%3DClusterIP", 1, "4.3: services select on spec.type"},
	{"F20", "/api/v1/services?fieldSelector=spec.clusterIPs%3D10.96.0.1", 1, "4.3: unsupported field of a kind with a conversion func"},
	{"F21", "/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx", 1, "4.3: namespaces do not select on metadata.namespace"},
	{"F15", pods + "?fieldSelector=spec.nodeName%3D&limit=3", 1, "4.2: missing field is \"\" (all pods are bound here: empty)"},
	// Gets: the object alone, with kind and apiVersion first (byte for byte like everything else).
	{"G1", "/api/v1/nodes/node-7", 1, "6.7: get of a cluster-scoped object"},
	{"G2", "/api/v1/namespaces/ns-3", 1, "6.7: get of a namespace"},
	{"G3", "/api/v1/namespaces/default/services/kubernetes", 1, "6.7: get of a namespaced object"},
	{"G4", "/api/v1/namespaces/ns-3/pods/nope", 1, "6.7: 404 of a get"},
	// Errors.
	{"E1", pods + "?limit=3&continue=not-a-valid-token", 1, "2.3/2.4"},
	{"E2", pods + "?limit=3&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NX0", 1, "2.3: empty start"},
	{"E3", pods + "?limit=3&continue=" + encodeToken(token{V: "meta.k8s.io/v2", RV: 5, Start: "a"}), 1, "2.3: wrong version"},
	{"E4", pods + "?limit=3&continue=" + encodeToken(token{V: "meta.k8s.io/v1", RV: 0, Start: "a"}), 1, "2.3: rv 0"},
	{"E5", pods + "?limit=3&continue=" + encodeToken(token{V: "meta.k8s.io/v1", RV: 5, Start: "../secrets/x"}), 1, "2.3: path traversal"},
	{"E6", pods + "?fieldSelector=spec.foo%3Dbar", 1, "4.3"},
	{"E7", "/api/v1/namespaces/ns-0/pods?fieldSelector=spec.foo%3Dbar&limit=3", 1, "4.3"},
	{"E8", "/api/v1/nodes?fieldSelector=spec.foo%3Dbar", 1, "4.3 (nodes)"},
	{"E9", pods + "?limit=3&continue={TOK}&resourceVersion={R}", 1, "2.5"},
	{"E10", pods + "?resourceVersion=abc&limit=3", 1, "0.8"},
	{"E11", pods + "?limit=abc", 1, "limit parse"},
	{"E12", pods + "?resourceVersionMatch=NotOlderThan&limit=3", 1, "0.1"},
	{"E13", pods + "?resourceVersionMatch=Exact&resourceVersion=0", 1, "0.4"},
	{"E14", pods + "?resourceVersionMatch=Foo&resourceVersion=5", 1, "0.3"},
	{"E15", pods + "?resourceVersionMatch=NotOlderThan&resourceVersion={R}&continue={TOK}", 1, "0.2"},
	{"E16", pods + "?fieldSelector=spec.nodeName&limit=3", 1, "4.2: no operator"},
	{"E17", pods + "?labelSelector=app+in+(", 1, "4.1: bad label selector"},
	{"E18", pods + "?limit=-1&fieldSelector=spec.nodeName%3Dnode-7", 1, "limit<=0: no paging"},
	{"E19", "/api/v1/namespaces?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0", 1, "0.5"},
	{"E20", pods + "?resourceVersion=-5&limit=3", 1, "0.8"},
	{"T1", pods + "?resourceVersion=999999999", 1, "3.3/3.4: 504 after 3 s, Retry-After 1"},
	{"T2", pods + "?resourceVersion=999999999&limit=3", 1, "3.4 (legacy exact)"},
	{"T3", pods + "?resourceVersion=999999999&resourceVersionMatch=Exact&limit=3", 1, "3.4"},
	{"T4", pods + "?resourceVersion=999999999&resourceVersionMatch=NotOlderThan", 1, "3.4"},
}

// protobufCases are sent with Accept: application/vnd.kubernetes.protobuf (what client-go's typed
// clients and kubectl send for built-in kinds): lists, chains, gets and Status errors. The
// apiserver encodes its typed objects; ours encodes the stored JSON's objects, and the bodies must
// be the same bytes.
var protobufCases = []tcase{
	{"PB1", pods + "?limit=3", 3, "2.1-2.8 in protobuf: ListMeta with continue and remainingItemCount"},
	{"PB2", pods + "?limit=500", -1, "a chain to the end in protobuf"},
	{"PB3", "/api/v1/nodes?limit=30", -1, "cluster-scoped chain"},
	{"PB4", "/api/v1/namespaces", 1, "namespaces"},
	{"PB5", "/api/v1/services", 1, "services"},
	{"PB6", "/api/v1/configmaps?limit=1", -1, "configmaps chain"},
	{"PB7", pods + "?fieldSelector=spec.nodeName%3Dnode-7", 1, "4.7: indexed"},
	{"PB8", pods + "?labelSelector=app%3Dweb&limit=3", 2, "2.7"},
	{"PB9", "/api/v1/namespaces/nope/pods?limit=3", 1, "6.5: empty list"},
	{"PB10", "/api/v1/nodes/node-7", 1, "6.7: get"},
	{"PB11", "/api/v1/namespaces/default/services/kubernetes", 1, "6.7: get"},
	{"PB12", "/api/v1/namespaces/ns-3/pods/nope", 1, "6.7: 404 Status in protobuf"},
	{"PB13", pods + "?limit=3&continue=not-a-valid-token", 1, "2.3: 400 Status in protobuf"},
	{"PB14", pods + "?fieldSelector=spec.foo%3Dbar", 1, "4.3: 400 Status in protobuf"},
	{"PB15", pods + "?resourceVersionMatch=NotOlderThan&limit=3", 1, "0.1: 422 Status in protobuf"},
}

// watchCases are watches that end by their timeoutSeconds: the whole stream is compared byte for
// byte (events in order, objects with kind and apiVersion, the initial-events bookmark); protobuf
// ones are in protobufWatchCases. A watch from an RV before the caches' windows is left out: the
// apiserver's cache, started before the load, still holds every event since RV 1 and replays them,
// while ours (like any apiserver started after the load) answers an ERROR 410 event, so the
// answer depends on when each cache started, not on its semantics.
var watchCases = []tcase{
	{"WA1", pods + "?watch=1&resourceVersion=0&fieldSelector=spec.nodeName%3Dnode-7&timeoutSeconds=1", 1, "5.x: RV=0 watch starts with ADDED for the current state"},
	{"WA2", pods + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=&fieldSelector=spec.nodeName%3Dnode-7&timeoutSeconds=1", 1, "watch-list: initial events then the initial-events-end bookmark"},
	{"WA3", "/api/v1/nodes?watch=1&resourceVersion=0&labelSelector=zone%3Dz1&timeoutSeconds=1", 1, "cluster-scoped RV=0 watch"},
	{"WA4", pods + "?watch=1&resourceVersion={R}&timeoutSeconds=1", 1, "watch from the list's RV: no events on a quiet resource"},
	{"WA5", "/api/v1/namespaces/ns-3/pods?watch=1&resourceVersion=0&labelSelector=app%3Dweb&timeoutSeconds=1", 1, "namespaced RV=0 watch with a label selector"},
	{"WA6", pods + "?watch=1&resourceVersion=0&fieldSelector=spec.foo%3Dbar", 1, "4.3: 400 on a watch"},
}

var protobufWatchCases = []tcase{
	{"PBW1", pods + "?watch=1&resourceVersion=0&fieldSelector=spec.nodeName%3Dnode-7&timeoutSeconds=1", 1, "a protobuf watch stream: length-prefixed WatchEvents"},
	{"PBW2", pods + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=&fieldSelector=spec.nodeName%3Dnode-7&timeoutSeconds=1", 1, "watch-list in protobuf"},
}

var snapshotCases = []tcase{
	{"W1", pods + "?limit=3&continue={TOK}", 2, "2.8: a token from before the writes lists the old state"},
	{"W2", "/api/v1/namespaces/ns-0/pods?limit=100&continue={TOKNS}", -1, "2.8: ns-0 from its old token: pod-000030 still there, no pod-x"},
	{"W3", "/api/v1/namespaces/ns-0/pods?resourceVersion={R}&resourceVersionMatch=Exact&limit=500", -1, "1.6: old state"},
	{"W4", "/api/v1/namespaces/ns-0/pods?resourceVersion={R}&limit=500", -1, "1.6 legacy exact: old state"},
	{"W5", "/api/v1/namespaces/ns-0/pods?resourceVersion={RMID}&resourceVersionMatch=Exact&limit=500", -1, "1.6: state in the middle of the writes"},
	{"W6", "/api/v1/namespaces/ns-0/pods?limit=500", -1, "1.8: consistent, new state"},
	{"W7", "/api/v1/namespaces/ns-0/pods?resourceVersion={R}", 1, "1.9: not older than R: new state"},
	{"W8", pods + "?labelSelector=app%3Dweb&resourceVersion={R}&resourceVersionMatch=Exact&limit=500", -1, "1.6 + selector at an old RV"},
	{"W9", pods + "?labelSelector=app%3Dweb&limit=500", -1, "new state"},
	{"W10", pods + "?fieldSelector=spec.nodeName%3Dnode-7&resourceVersion={R}&resourceVersionMatch=Exact", 1, "old state, field selector"},
	{"W11", pods + "?fieldSelector=spec.nodeName%3Dnode-7", 1, "new state, field selector"},
	{"W12", pods + "?labelSelector=app%3Dchanged", 1, "the relabelled pod"},
}

var expiredCases = []tcase{
	{"X1", pods + "?limit=3&continue={TOK}", 1, "2.9: 410 + rv -1 token"},
	{"X2", pods + "?labelSelector=app%3Dweb&limit=3&continue={TOKL}", 1, "2.9 with a selector"},
	{"X3", pods + "?limit=3&resourceVersion={R}&resourceVersionMatch=Exact", 1, "1.18: 410 too old"},
	{"X4", pods + "?limit=3&resourceVersion={R}", 1, "1.18 legacy exact"},
	{"X5", pods + "?limit=3&resourceVersion={R}&resourceVersionMatch=NotOlderThan", 1, "1.9: still fine"},
	{"X6", pods + "?limit=3&continue={TOKX}", 2, "2.8: the rv=-1 token reads the latest state"},
	{"X7", pods + "?resourceVersion={R}&resourceVersionMatch=Exact", 1, "1.18, no limit"},
}

// compare runs a phase and prints its table.
func compare(as, us *server, phase, statePath, rawPath string) error {
	st := state{}
	if b, err := os.ReadFile(statePath); err == nil {
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("%s: %w", statePath, err)
		}
	}
	var raw io.Writer = io.Discard
	if rawPath != "" {
		f, err := os.OpenFile(rawPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		raw = f
	}
	var cases, pbCases []tcase
	vars := map[string]string{}
	switch {
	case strings.HasPrefix(phase, "main"):
		if err := firstLists(as, us, vars); err != nil {
			return err
		}
		st[phase] = vars
		cases = append(slices.Clip(mainCases), watchCases...)
		pbCases = append(slices.Clip(protobufCases), protobufWatchCases...)
	case phase == "snapshot":
		if err := firstLists(as, us, vars); err != nil {
			return err
		}
		if err := writes(as, vars); err != nil {
			return err
		}
		st[phase] = vars
		cases = snapshotCases
	case strings.HasPrefix(phase, "expired"):
		from := "main"
		if _, ok := st["main"]; !ok {
			return errors.New("expired: no main phase in the state file")
		}
		for k, v := range st[from] {
			vars[k] = v
		}
		// The rv=-1 token comes from the apiserver's answer to the expired token.
		if a := as.get(expand(pods+"?limit=3&continue={TOK}", vars)); a.StatusCont != "" {
			vars["TOKX"] = a.StatusCont
		} else {
			vars["TOKX"] = encodeToken(token{V: "meta.k8s.io/v1", RV: -1, Start: "ns-0/pod-000020\x00"})
		}
		cases = expiredCases
	default:
		return fmt.Errorf("unknown phase %q", phase)
	}
	if err := os.MkdirAll(filepath.Dir(statePath), 0o755); err == nil {
		b, _ := json.MarshalIndent(st, "", "  ")
		os.WriteFile(statePath, b, 0o644)
	}

	fmt.Printf("\n### Phase %s (%s)\n\n", phase, time.Now().UTC().Format(time.RFC3339))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range vars {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		v := vars[k]
		if strings.HasPrefix(k, "TOK") {
			v += " = " + showToken(v)
		}
		fmt.Printf("- `{%s}` = `%s`\n", k, v)
	}
	fmt.Printf("\n| id | request | rule | apiserver | ours | verdict |\n|---|---|---|---|---|---|\n")
	same, diff, kinded := 0, 0, 0
	type run struct {
		c      tcase
		accept string
	}
	var runs []run
	for _, c := range cases {
		runs = append(runs, run{c, ""})
	}
	for _, c := range pbCases {
		runs = append(runs, run{c, protobuf})
	}
	for _, ru := range runs {
		c := ru.c
		p := expand(c.path, vars)
		rows := runCase(as, us, c, p, ru.accept)
		for _, r := range rows {
			json.NewEncoder(raw).Encode(map[string]any{"phase": phase, "id": r.id, "path": r.path, "apiserver": r.a, "ours": r.o, "diffs": r.diffs})
			if r.a.ItemsWithKind != r.o.ItemsWithKind {
				kinded++ // reported once below, not per row
			}
			verdict := "same"
			if len(r.diffs) > 0 {
				verdict = "**different**: " + strings.Join(r.diffs, "; ")
				diff++
			} else {
				same++
			}
			fmt.Printf("| %s | `%s` | %s | %s | %s | %s |\n", r.id, mdEscape(shorten(r.path)), mdEscape(c.rule), mdEscape(r.aSum), mdEscape(r.oSum), mdEscape(verdict))
		}
	}
	fmt.Printf("\n%d rows: %d same, %d different\n", same+diff, same, diff)
	if kinded > 0 {
		fmt.Printf("\nNot in the verdicts: in %d rows the items of ours carry \"kind\" and \"apiVersion\" (as stored in etcd) while the apiserver's list items do not.\n", kinded)
	}
	return nil
}

// firstLists fills {R}, {TOK}, {TOKO}, {TOKL}, {TOKNS} from first pages.
func firstLists(as, us *server, vars map[string]string) error {
	a := as.get(pods + "?limit=3")
	if a.Code != 200 || a.Continue == "" {
		return fmt.Errorf("apiserver first list: %s", a.summary())
	}
	vars["R"], vars["TOK"] = a.RV, a.Continue
	o := us.get(pods + "?limit=3")
	if o.Code != 200 || o.Continue == "" {
		return fmt.Errorf("ours first list: %s", o.summary())
	}
	vars["TOKO"] = o.Continue
	if l := as.get(pods + "?labelSelector=app%3Dweb&limit=3"); l.Continue != "" {
		vars["TOKL"] = l.Continue
	}
	if l := as.get("/api/v1/namespaces/ns-0/pods?limit=100"); l.Continue != "" {
		vars["TOKNS"] = l.Continue
	}
	return nil
}

// writes changes ns-0 through the apiserver: creates pod-x00000..pod-x00004 (node-7, app=web),
// relabels pod-000020 to app=changed and deletes pod-000030. {RMID} is the revision of the third
// create.
func writes(as *server, vars map[string]string) error {
	for i := range 5 {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-x%05d","namespace":"ns-0","labels":{"app":"web","tier":"frontend"}},"spec":{"nodeName":"node-7","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}`, i)
		a := as.do("POST", "/api/v1/namespaces/ns-0/pods", "application/json", []byte(body))
		if a.Code != 201 {
			return fmt.Errorf("create pod-x%05d: %s", i, a.summary())
		}
		if i == 2 {
			g := as.get("/api/v1/namespaces/ns-0/pods?fieldSelector=metadata.name%3Dpod-x00002")
			if len(g.ItemRVs) == 1 {
				vars["RMID"] = g.ItemRVs[0]
			}
		}
	}
	a := as.do("PATCH", "/api/v1/namespaces/ns-0/pods/pod-000020", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"app":"changed"}}}`))
	if a.Code != 200 {
		return fmt.Errorf("relabel: %s", a.summary())
	}
	a = as.do("DELETE", "/api/v1/namespaces/ns-0/pods/pod-000030?gracePeriodSeconds=0", "", nil)
	if a.Code != 200 && a.Code != 202 {
		return fmt.Errorf("delete: %s", a.summary())
	}
	return nil
}

type row struct {
	id, path   string
	a, o       answer
	aSum, oSum string
	diffs      []string
}

// runCase sends the case to both servers at once (so that the 3 s waits overlap and both see the
// same etcd state), following continue tokens for chains; accept is the Accept header (JSON when
// empty).
func runCase(as, us *server, c tcase, p, accept string) []row {
	pages := c.pages
	if pages == 0 {
		pages = 1
	}
	var aPages, oPages []answer
	var wg sync.WaitGroup
	wg.Go(func() { aPages = chain(as, p, accept, pages) })
	wg.Go(func() { oPages = chain(us, p, accept, pages) })
	wg.Wait()
	if c.pages == -1 {
		// One summary row for the whole chain: page count, items, and the pages that differ.
		r := row{id: c.id, path: p}
		var aItems, oItems []string
		for _, a := range aPages {
			aItems = append(aItems, a.Items...)
		}
		for _, o := range oPages {
			oItems = append(oItems, o.Items...)
		}
		r.aSum = chainSummary(aPages, aItems)
		r.oSum = chainSummary(oPages, oItems)
		if len(aPages) != len(oPages) {
			r.diffs = append(r.diffs, fmt.Sprintf("%d pages vs %d", len(aPages), len(oPages)))
		}
		for i := range min(len(aPages), len(oPages)) {
			for _, d := range diffAnswers(aPages[i], oPages[i]) {
				r.diffs = append(r.diffs, fmt.Sprintf("page %d: %s", i+1, d))
			}
		}
		if !slices.Equal(aItems, oItems) {
			r.diffs = append(r.diffs, fmt.Sprintf("concatenated items differ (%d vs %d)", len(aItems), len(oItems)))
		}
		if len(r.diffs) > 6 {
			r.diffs = append(r.diffs[:6], fmt.Sprintf("… %d more", len(r.diffs)-6))
		}
		r.a, r.o = aPages[0], oPages[0]
		return []row{r}
	}
	var rows []row
	for i := range max(len(aPages), len(oPages)) {
		r := row{id: c.id, path: p}
		if i > 0 {
			r.id = fmt.Sprintf("%s.%d", c.id, i+1)
			r.path = "…page " + fmt.Sprint(i+1) + " (each server's own token)"
		}
		if i < len(aPages) {
			r.a, r.aSum = aPages[i], aPages[i].summary()
		} else {
			r.aSum = "(no page)"
		}
		if i < len(oPages) {
			r.o, r.oSum = oPages[i], oPages[i].summary()
		} else {
			r.oSum = "(no page)"
		}
		if i < len(aPages) && i < len(oPages) {
			r.diffs = diffAnswers(r.a, r.o)
		} else {
			r.diffs = []string{"page count"}
		}
		rows = append(rows, r)
	}
	return rows
}

// chain requests p and then follows continue tokens until pages are done (-1: until no token).
func chain(s *server, p, accept string, pages int) []answer {
	var out []answer
	a := s.getAs(p, accept)
	out = append(out, a)
	for a.Code == 200 && a.Continue != "" && (pages < 0 || len(out) < pages) {
		a = s.getAs(withContinue(p, a.Continue), accept)
		out = append(out, a)
	}
	return out
}

// withContinue replaces the request's resourceVersion/resourceVersionMatch/continue by a continue
// token, as client-go's pager does.
func withContinue(p, tok string) string {
	path, query, _ := strings.Cut(p, "?")
	var keep []string
	for kv := range strings.SplitSeq(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if k == "continue" || k == "resourceVersion" || k == "resourceVersionMatch" || kv == "" {
			continue
		}
		keep = append(keep, kv)
	}
	keep = append(keep, "continue="+tok)
	return path + "?" + strings.Join(keep, "&")
}

func chainSummary(pages []answer, items []string) string {
	last := pages[len(pages)-1]
	if last.Code != 200 {
		return fmt.Sprintf("%d pages, last: %s", len(pages), last.summary())
	}
	var sizes []string
	for _, p := range pages {
		sizes = append(sizes, fmt.Sprint(len(p.Items)))
	}
	if len(sizes) > 8 {
		sizes = append(sizes[:3], "…", sizes[len(sizes)-2], sizes[len(sizes)-1])
	}
	s := fmt.Sprintf("200, %d pages (%s), %d items, rv=%s", len(pages), strings.Join(sizes, "+"), len(items), pages[0].RV)
	if len(items) > 0 {
		s += fmt.Sprintf(", %s … %s", items[0], items[len(items)-1])
	}
	if len(pages) > 1 {
		s += ", page 1 continue " + showToken(pages[0].Continue)
		if r := pages[0].Remaining; r != nil {
			s += fmt.Sprintf(" remaining %d", *r)
		}
	}
	return s
}

var currentRV = regexp.MustCompile(`current: \d+`)

// diffAnswers lists what differs between the apiserver's answer a and ours o: the fields below,
// then, when they all agree, the bodies byte for byte. Nothing is canonicalised: the apiserver
// writes every object and list in its types' field order and every map in key order, and so must
// we.
func diffAnswers(a, o answer) []string {
	d := diffFields(a, o)
	if len(d) == 0 && a.Err == "" && o.Err == "" && !bytes.Equal(a.Body, o.Body) {
		d = append(d, bodyDiff(a.Body, o.Body))
	}
	return d
}

// bodyDiff says where two bodies first differ, with some context of each.
func bodyDiff(a, o []byte) string {
	i := 0
	for i < len(a) && i < len(o) && a[i] == o[i] {
		i++
	}
	from := max(0, i-60)
	ctx := func(b []byte) string { return string(b[from:min(len(b), i+60)]) }
	return fmt.Sprintf("bytes differ at %d of %d/%d: %q vs %q", i, len(a), len(o), ctx(a), ctx(o))
}

// diffFields lists what differs between the reduced answers.
func diffFields(a, o answer) []string {
	var d []string
	if a.Err != "" || o.Err != "" {
		if a.Err != o.Err {
			d = append(d, fmt.Sprintf("transport %q vs %q", a.Err, o.Err))
		}
		return d
	}
	if a.Code != o.Code {
		d = append(d, fmt.Sprintf("code %d vs %d", a.Code, o.Code))
	}
	if a.ContentType != o.ContentType {
		d = append(d, fmt.Sprintf("Content-Type %q vs %q", a.ContentType, o.ContentType))
	}
	if a.Kind != o.Kind {
		d = append(d, fmt.Sprintf("kind %s vs %s", a.Kind, o.Kind))
		return d
	}
	if a.Kind == "Status" {
		if a.Reason != o.Reason {
			d = append(d, fmt.Sprintf("reason %s vs %s", a.Reason, o.Reason))
		}
		if a.Message != o.Message {
			if currentRV.ReplaceAllString(a.Message, "current: N") == currentRV.ReplaceAllString(o.Message, "current: N") {
				d = append(d, "message differs only in the current RV")
			} else {
				d = append(d, fmt.Sprintf("message %q vs %q", a.Message, o.Message))
			}
		}
		if !slices.Equal(a.Causes, o.Causes) {
			d = append(d, fmt.Sprintf("causes %v vs %v", a.Causes, o.Causes))
		}
		if a.RetrySecs != o.RetrySecs || a.RetryAfter != o.RetryAfter {
			d = append(d, fmt.Sprintf("retry %d/%q vs %d/%q", a.RetrySecs, a.RetryAfter, o.RetrySecs, o.RetryAfter))
		}
		if td := diffTokens(a.StatusCont, o.StatusCont); td != "" {
			d = append(d, "status continue "+td)
		}
		return d
	}
	if a.RV != o.RV {
		d = append(d, fmt.Sprintf("list rv %s vs %s", a.RV, o.RV))
	}
	if !slices.Equal(a.Items, o.Items) {
		i := 0
		for i < len(a.Items) && i < len(o.Items) && a.Items[i] == o.Items[i] {
			i++
		}
		d = append(d, fmt.Sprintf("items %d vs %d, first difference at %d", len(a.Items), len(o.Items), i))
	} else if !slices.Equal(a.ItemRVs, o.ItemRVs) {
		d = append(d, "item resourceVersions differ")
	}

	if td := diffTokens(a.Continue, o.Continue); td != "" {
		d = append(d, "continue "+td)
	}
	switch {
	case (a.Remaining == nil) != (o.Remaining == nil):
		d = append(d, fmt.Sprintf("remainingItemCount %s vs %s", showInt(a.Remaining), showInt(o.Remaining)))
	case a.Remaining != nil && *a.Remaining != *o.Remaining:
		d = append(d, fmt.Sprintf("remainingItemCount %d vs %d", *a.Remaining, *o.Remaining))
	}
	return d
}

func diffTokens(a, o string) string {
	if a == o {
		return ""
	}
	if a == "" || o == "" {
		return fmt.Sprintf("%s vs %s", showToken(a), showToken(o))
	}
	ta, ea := decodeToken(a)
	to, eo := decodeToken(o)
	if ea != nil || eo != nil {
		return fmt.Sprintf("undecodable %v/%v", ea, eo)
	}
	var d []string
	if ta.V != to.V {
		d = append(d, "v "+ta.V+" vs "+to.V)
	}
	if ta.RV != to.RV {
		d = append(d, fmt.Sprintf("rv %d vs %d", ta.RV, to.RV))
	}
	if ta.Start != to.Start {
		if strings.TrimPrefix(ta.Start, "/") == strings.TrimPrefix(to.Start, "/") {
			d = append(d, fmt.Sprintf("start form %s vs %s (same key)", showToken(a), showToken(o)))
		} else {
			d = append(d, fmt.Sprintf("start %q vs %q", ta.Start, to.Start))
		}
	}
	return strings.Join(d, ", ")
}

func showInt(p *int64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

func expand(p string, vars map[string]string) string {
	for k, v := range vars {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	return p
}

// shorten abbreviates long tokens in a request for the table.
func shorten(p string) string {
	path, query, ok := strings.Cut(p, "?")
	if !ok {
		return p
	}
	var parts []string
	for kv := range strings.SplitSeq(query, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == "continue" && len(v) > 16 {
			kv = k + "=<" + showToken(v) + ">"
		}
		parts = append(parts, kv)
	}
	return path + "?" + strings.Join(parts, "&")
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
