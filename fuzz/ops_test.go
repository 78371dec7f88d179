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
	// keyedFieldSelectors read metadata.namespace and metadata.name where keyed objects make them
	// differ from the key (key.go): the empty namespace, a namespace only keys have, narrowing to
	// a namespace ("-" sorts before "/") or to a single key.
	keyedFieldSelectors = []string{
		"metadata.namespace=", "metadata.namespace!=a", "metadata.namespace=zz", "metadata.namespace=-",
		"metadata.name=p3", "metadata.namespace=a,metadata.name=p3", "metadata.name!=p3,metadata.namespace!=ns-0",
		"metadata.namespace=ns-1,spec.nodeName=n1",
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

// Keys that neither side may accept (key.go): no leading slash, the cluster-scoped form, missing
// or extra segments, "." and "..", '%', invalid UTF-8.
var invalidKeys = []string{
	"p1", "a/p1", "/p1", "/a", "/a/", "//", "/", "/a/p1/x", "/a//p1", "/./p1", "/../p1", "/a/.", "/a/..",
	"/a/p%2F1", "/%/p1", "/a/p\xff", "/\xc3/p1",
}

// relist replaces the content with a random set of pods at rv.
func (h *harness) relist(c chooser, rv uint64) { h.relistWith(c, rv, false) }

// relistWith is relist; with bad, one object gets an invalid key or is listed twice (once under
// its key, once keyed by its metadata when that makes the same key), and both sides must refuse
// the whole re-list.
func (h *harness) relistWith(c chooser, rv uint64, bad bool) {
	pods := map[string]genPod{}
	var objs []KeyedObject
	var keys []string
	for _, ns := range namespaces {
		for _, name := range podNames {
			if c.intn(3) != 0 {
				k, mns, mname := h.podKey(c, ns, name)
				p := randomPod(c, mns, mname)
				raw := p.render(1 + uint64(c.intn(int(rv))))
				if _, dup := pods[k]; dup {
					continue // two draws moved to the same key ("//name")
				}
				pods[k] = p
				objs = append(objs, KeyedObject{Key: h.eventKey(c, k, p), Raw: raw})
				keys = append(keys, k)
			}
		}
	}
	if bad && len(objs) > 0 {
		i := c.intn(len(objs))
		if c.intn(2) == 0 {
			objs[i].Key = pick(c, invalidKeys...)
		} else {
			objs = append(objs, KeyedObject{Key: keys[i], Raw: objs[i].Raw})
		}
	}
	if h.replace(objs, rv) {
		h.pods = pods
		h.tokens = nil
	}
}

// podKey draws where a new pod drawn for ns/name is stored and what its metadata says: the key
// /ns/name and that namespace and name, but in keyed mode one pod in six is stored under a key its
// metadata does not make — another namespace or none in its metadata, the empty namespace in its
// key ("//name"), a key namespace no generated metadata has ("zz", "-", which sorts before "/"),
// or another name.
func (h *harness) podKey(c chooser, ns, name string) (key, metaNS, metaName string) {
	keyNS, metaNS, metaName := ns, ns, name
	if h.keyed && c.intn(6) == 0 {
		switch c.intn(6) {
		case 0, 1:
			metaNS = pick(c, "a", "a-b", "ns-0", "ns-1", "zz")
		case 2:
			metaNS = ""
		case 3:
			keyNS, metaNS = "", pick(c, "", ns)
		case 4:
			keyNS = pick(c, "zz", "-")
			metaNS = pick(c, keyNS, ns)
		case 5:
			metaName = pick(c, podNames...)
		}
		h.stats["keyed pod drawn"]++
	}
	return "/" + keyNS + "/" + name, metaNS, metaName
}

// fits reports whether p's metadata makes the key k, so that an event may leave its key out.
func fits(k string, p genPod) bool {
	return p.Metadata.Namespace != "" && k == "/"+p.Metadata.Namespace+"/"+p.Metadata.Name
}

// eventKey is the key an event for p stored under k carries: k when p's metadata does not make it,
// and otherwise, in keyed mode, k one time in four (which must behave exactly as no key).
func (h *harness) eventKey(c chooser, k string, p genPod) string {
	if !fits(k, p) {
		return k
	}
	if h.keyed && c.intn(4) == 0 {
		return k
	}
	return ""
}

func (h *harness) live(k string) bool {
	_, ok := h.pods[k]
	return ok
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

// modify changes a live pod: new node, labels, phase, IPs… (or adds one when none is live). In
// keyed mode one update in six also changes the metadata under the same key: back to what the key
// says, or away from it.
func (h *harness) modify(c chooser) {
	k, ok := h.liveKey(c)
	if !ok {
		h.add(c)
		return
	}
	p := h.pods[k]
	q := randomPod(c, p.Metadata.Namespace, p.Metadata.Name)
	if h.keyed && c.intn(6) == 0 {
		keyNS, keyName, _ := strings.Cut(k[1:], "/")
		switch c.intn(4) {
		case 0:
			q.Metadata.Namespace, q.Metadata.Name = keyNS, keyName
		case 1:
			q.Metadata.Namespace = pick(c, "a", "ns-1", "zz")
		case 2:
			q.Metadata.Namespace = ""
		case 3:
			q.Metadata.Name = pick(c, podNames...)
		}
	}
	// Keep some attributes, so that updates also leave selections unchanged.
	if c.intn(2) == 0 {
		q.Metadata.Labels = p.Metadata.Labels
	}
	if c.intn(2) == 0 {
		q.Spec.NodeName = p.Spec.NodeName
	}
	rv := h.nextRV(c)
	if h.apply(pick(c, "MODIFIED", "MODIFIED", "ADDED"), h.eventKey(c, k, q), q.render(rv), rv) {
		h.pods[k] = q
	}
}

func (h *harness) add(c chooser) {
	k, ns, name := h.podKey(c, pick(c, namespaces...), pick(c, podNames...))
	if h.live(k) {
		h.modify(c)
		return
	}
	p := randomPod(c, ns, name)
	rv := h.nextRV(c)
	if h.apply("ADDED", h.eventKey(c, k, p), p.render(rv), rv) {
		h.pods[k] = p
	}
}

// remove deletes a live pod; in keyed mode one delete in eight carries an object that names
// another pod, and removes the one under its key all the same.
func (h *harness) remove(c chooser) {
	k, ok := h.liveKey(c)
	if !ok {
		return
	}
	rv := h.nextRV(c)
	p := h.pods[k]
	if h.keyed && c.intn(8) == 0 {
		p = randomPod(c, pick(c, namespaces...), pick(c, podNames...))
	}
	if h.apply("DELETED", h.eventKey(c, k, p), p.render(rv), rv) {
		delete(h.pods, k)
	}
}

func (h *harness) bookmark(c chooser) {
	h.apply("BOOKMARK", "", nil, h.model.RV()+uint64(c.intn(3)))
}

// badEvent feeds an event both sides must reject; in keyed mode also an event with an invalid key
// and a re-list with an invalid or duplicate key.
func (h *harness) badEvent(c chooser) {
	rv := h.model.RV()
	n := 3
	if h.keyed {
		n = 5
	}
	switch c.intn(n) {
	case 0:
		if k, ok := h.liveKey(c); ok {
			h.apply("MODIFIED", h.eventKey(c, k, h.pods[k]), h.pods[k].render(rv), rv) // RV not above the current one
		}
	case 1:
		ns, name := pick(c, namespaces...), pick(c, podNames...)
		if k := "/" + ns + "/" + name; !h.live(k) {
			p := randomPod(c, ns, name)
			h.apply("DELETED", h.eventKey(c, k, p), p.render(rv+1), rv+1) // unknown key
		}
	case 2:
		if rv > 1 {
			h.apply("BOOKMARK", "", nil, rv-1)
		}
	case 3:
		typ := pick(c, "ADDED", "MODIFIED", "DELETED")
		p := randomPod(c, pick(c, namespaces...), pick(c, podNames...))
		if k, ok := h.liveKey(c); ok && c.intn(2) == 0 {
			p = h.pods[k]
		}
		h.apply(typ, pick(c, invalidKeys...), p.render(rv+1), rv+1)
	case 4:
		h.relistWith(c, rv+1+uint64(c.intn(5)), true)
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
	if h.keyed && c.intn(6) == 0 {
		return l, pick(c, keyedFieldSelectors...)
	}
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
	if h.keyed && c.intn(8) == 0 {
		q.Namespace = "zz" // only keys reach it
	}
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
