package fuzz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/watchcache/watchcache/index"
)

// Selectors the queries draw from: over labels and fields that have indexes in some runs and not
// in others, matching and not matching, including the quirks of rules 4.1–4.4 and a few errors.
var (
	labelSelectors = []string{
		"", "", "", "app=web", "app!=web", "app in (web,db)", "app notin (db)", "app", "!app",
		"tier>1", "tier<10", "app=web,tier", "app==", "tier in (1,x)", "app=db,tier!=2", "app=web,tier=2",
	}
	fieldSelectors = []string{
		"", "", "", "spec.nodeName=n1", "spec.nodeName!=n1", "spec.nodeName=", "spec.host=n2",
		"metadata.namespace=a", "metadata.namespace=a-b,spec.nodeName=n0", "metadata.namespace=ns-1,status.phase!=Running",
		"metadata.name=p3", "metadata.name=p3,metadata.namespace=ns-0", "status.phase=Running", "status.podIP=10.0.0.1",
		"status.podIPs=10.0.0.1", "status.podIPs!=x", "spec.hostNetwork=true", "spec.hostNetwork=false",
		"spec.serviceAccountName=sa2", "spec.restartPolicy=Never", "status.nominatedNodeName=n1",
		"spec.priorityClassName=high", "spec.priorityClassName!=low", "spec.priority=1000", "spec.priority!=0",
		"spec.nodeName=n1,spec.priorityClassName=high",
	}
	badSelectors = []struct{ label, field string }{
		{"app=(", ""}, {"", "spec.nodeName"}, {"", "spec.foo=x"}, {"", `spec.nodeName=a\x`}, {"", "spec.nodeName = n1"},
		{"", "spec.priority=0"}, {"", "spec.priorityClassName=high"},
	}
	indexSpecs = []index.Spec{
		{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Field, Name: "metadata.namespace"},
		{Kind: index.Field, Name: "status.phase"}, {Kind: index.Field, Name: "spec.hostNetwork"},
		{Kind: index.Field, Name: "status.podIP"}, {Kind: index.Field, Name: "metadata.name"},
		{Kind: index.Field, Name: "spec.priorityClassName"}, {Kind: index.Field, Name: "spec.priority"},
		{Kind: index.Label, Name: "app"}, {Kind: index.Label, Name: "tier"},
	}
	customFields = [][2]string{{"spec.priorityClassName", "spec.priorityClassName"}, {"spec.priority", "spec.priority"}}
)

// runOps runs up to n operations drawn from c against h, starting with a re-list.
func runOps(h *harness, c chooser, n int) {
	h.tb.Helper()
	h.relist(c, 10)
	for i := 0; i < n && !c.done(); i++ {
		switch op := c.intn(100); {
		case op < 33:
			h.modify(c)
		case op < 45:
			h.add(c)
		case op < 52:
			h.remove(c)
		case op < 56:
			h.bookmark(c)
		case op < 57:
			h.relist(c, h.model.RV()+1+uint64(c.intn(5)))
		case op < 59:
			h.addIndex(pick(c, indexSpecs...))
		case op < 60:
			if f := pick(c, customFields...); !h.fields[f[0]] {
				h.registerField(f[0], f[1])
			}
		case op < 62:
			h.badEvent(c)
		case op < 76:
			q := h.randomQuery(c)
			if c.intn(3) == 0 {
				h.listAll(q)
			} else if got, want := h.list(q); got.Err == nil && got.Continue != "" && want.Continue != "" {
				q.Continue, q.ResourceVersion, q.ResourceVersionMatch = got.Continue, "", ""
				h.keepToken(q)
			}
		case op < 86:
			h.continueLater(c)
		default:
			h.randomWatch(c)
		}
	}
}

func (h *harness) nextRV(c chooser) uint64 { return h.model.RV() + 1 + uint64(c.intn(3)) }

// relist replaces the content with a random set of pods at rv.
func (h *harness) relist(c chooser, rv uint64) {
	h.pods = map[string]genPod{}
	var objs [][]byte
	for _, ns := range namespaces {
		for _, name := range podNames {
			if c.intn(3) != 0 {
				p := randomPod(c, ns, name)
				h.pods[ns+"/"+name] = p
				objs = append(objs, p.render(1+uint64(c.intn(int(rv)))))
			}
		}
	}
	h.replace(objs, rv)
	h.tokens = nil
}

func (h *harness) liveKey(c chooser) (string, bool) {
	if len(h.pods) == 0 {
		return "", false
	}
	keys := make([]string, 0, len(h.pods))
	for k := range h.pods {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[c.intn(len(keys))], true
}

// modify changes a live pod: new node, labels, phase, IPs… (or adds one when none is live).
func (h *harness) modify(c chooser) {
	k, ok := h.liveKey(c)
	if !ok {
		h.add(c)
		return
	}
	p := h.pods[k]
	q := randomPod(c, p.Metadata.Namespace, p.Metadata.Name)
	// Keep some attributes, so that updates also leave selections unchanged.
	if c.intn(2) == 0 {
		q.Metadata.Labels = p.Metadata.Labels
	}
	if c.intn(2) == 0 {
		q.Spec.NodeName = p.Spec.NodeName
	}
	rv := h.nextRV(c)
	if h.apply(pick(c, "MODIFIED", "MODIFIED", "ADDED"), q.render(rv), rv) {
		h.pods[k] = q
	}
}

func (h *harness) add(c chooser) {
	ns, name := pick(c, namespaces...), pick(c, podNames...)
	k := ns + "/" + name
	if _, live := h.pods[k]; live {
		h.modify(c)
		return
	}
	p := randomPod(c, ns, name)
	rv := h.nextRV(c)
	if h.apply("ADDED", p.render(rv), rv) {
		h.pods[k] = p
	}
}

func (h *harness) remove(c chooser) {
	k, ok := h.liveKey(c)
	if !ok {
		return
	}
	rv := h.nextRV(c)
	if h.apply("DELETED", h.pods[k].render(rv), rv) {
		delete(h.pods, k)
	}
}

func (h *harness) bookmark(c chooser) {
	h.apply("BOOKMARK", nil, h.model.RV()+uint64(c.intn(3)))
}

// badEvent feeds an event both sides must reject.
func (h *harness) badEvent(c chooser) {
	rv := h.model.RV()
	switch c.intn(3) {
	case 0:
		if k, ok := h.liveKey(c); ok {
			h.apply("MODIFIED", h.pods[k].render(rv), rv) // RV not above the current one
		}
	case 1:
		ns, name := pick(c, namespaces...), pick(c, podNames...)
		if _, live := h.pods[ns+"/"+name]; !live {
			h.apply("DELETED", randomPod(c, ns, name).render(rv+1), rv+1) // unknown key
		}
	case 2:
		if rv > 1 {
			h.apply("BOOKMARK", nil, rv-1)
		}
	}
}

// randomRV draws a resourceVersion around the window: mostly inside, sometimes too old, sometimes
// in the future.
func (h *harness) randomRV(c chooser) uint64 {
	cur := h.model.RV()
	switch c.intn(12) {
	case 0:
		return cur + 1 + uint64(c.intn(3))
	case 1:
		return 1 + uint64(c.intn(int(cur)))
	}
	lo := h.model.listRV
	if lo > 3 {
		lo -= 3
	}
	return lo + uint64(c.intn(int(cur-lo)+1))
}

// randomSelectors draws a label and a field selector; selectors on registered fields only once
// they are registered, but for the rare bad selector.
func (h *harness) randomSelectors(c chooser) (string, string) {
	if c.intn(25) == 0 {
		b := pick(c, badSelectors...)
		return b.label, b.field
	}
	l := pick(c, labelSelectors...)
	for {
		f := pick(c, fieldSelectors...)
		if !strings.Contains(f, "priority") || h.fields["spec.priority"] && h.fields["spec.priorityClassName"] ||
			(h.fields["spec.priority"] && !strings.Contains(f, "priorityClassName")) ||
			(h.fields["spec.priorityClassName"] && !strings.Contains(f, "priority=") && !strings.Contains(f, "priority!=")) {
			return l, f
		}
	}
}

func (h *harness) randomQuery(c chooser) Query {
	var q Query
	q.Namespace = pick(c, "", "", "", "a", "a-b", "ns-0", "zz")
	q.LabelSelector, q.FieldSelector = h.randomSelectors(c)
	switch c.intn(5) {
	case 0:
	case 4:
		if c.intn(8) == 0 {
			q.Limit = -1
			break
		}
		fallthrough
	default:
		q.Limit = 1 + int64(c.intn(5))
	}
	switch c.intn(9) {
	case 0, 1:
	case 2:
		q.ResourceVersion = "0"
	case 3, 4:
		q.ResourceVersion, q.ResourceVersionMatch = fmt.Sprint(h.randomRV(c)), "Exact"
	case 5:
		q.ResourceVersion, q.ResourceVersionMatch = fmt.Sprint(h.randomRV(c)), "NotOlderThan"
	case 6, 7:
		q.ResourceVersion = fmt.Sprint(h.randomRV(c))
	case 8: // rule 0 validation errors
		q.ResourceVersion, q.ResourceVersionMatch = pick(c, "", "0", "abc", "5"), pick(c, "", "Exact", "Newest")
		if c.intn(2) == 0 {
			t := true
			q.SendInitialEvents = &t
		}
	}
	return q
}

// continueLater continues a kept list after whatever was written since (rule 2.8: at the token's
// snapshot, or 410 once it left the window), sometimes with other parameters.
func (h *harness) continueLater(c chooser) {
	if len(h.tokens) == 0 {
		return
	}
	q := h.tokens[c.intn(len(h.tokens))]
	switch c.intn(12) {
	case 0:
		q.ResourceVersion = "0" // tolerated (rule 2.5)
	case 1:
		q.ResourceVersion = fmt.Sprint(h.model.RV()) // 400 (rule 2.5)
	case 2:
		q.LabelSelector, q.FieldSelector = h.randomSelectors(c) // not bound to the token (rule 2.5)
	case 3:
		q.Limit = int64(c.intn(4))
	}
	if c.intn(2) == 0 {
		h.listAll(q)
		return
	}
	if got, want := h.list(q); got.Err == nil && got.Continue != "" && want.Continue != "" {
		q.Continue = got.Continue
		h.keepToken(q)
	}
}

// randomWatch compares a watch: a replay from an RV, a watch-list, or a start at the current RV.
func (h *harness) randomWatch(c chooser) {
	q := Query{Namespace: pick(c, "", "", "a", "ns-0"), AllowWatchBookmarks: true}
	q.LabelSelector, q.FieldSelector = h.randomSelectors(c)
	yes, no := true, false
	var from uint64
	switch c.intn(7) {
	case 0, 1, 2:
		from = h.randomRV(c)
		q.ResourceVersion = fmt.Sprint(from)
	case 3:
		q.ResourceVersion = pick(c, "", "0") // rule 0.7: a watch-list
	case 4:
		from = h.randomRV(c)
		q.ResourceVersion, q.ResourceVersionMatch, q.SendInitialEvents = fmt.Sprint(from), "NotOlderThan", &yes
	case 5:
		q.ResourceVersionMatch, q.SendInitialEvents = "NotOlderThan", &no
		q.ResourceVersion = "0"
		if c.intn(2) == 0 {
			q.ResourceVersion = "" // rule 5.1: from the source's current RV
		}
	case 6: // rule 0.6 validation errors
		q.ResourceVersion = pick(c, "", "5", "x")
		q.ResourceVersionMatch = pick(c, "", "NotOlderThan", "Exact")
		q.SendInitialEvents = pick(c, nil, &yes, &no)
	}
	until := h.model.RV()
	if from < until && c.intn(2) == 0 {
		until = from + uint64(c.intn(int(until-from)+1))
	}
	h.watch(q, until)
}
