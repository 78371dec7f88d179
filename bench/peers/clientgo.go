package peers

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/cache"
)

// NodeNameIndex is the client-go index on spec.nodeName (what kubelet-like controllers register).
const NodeNameIndex = "spec.nodeName"

// PodDecoder decodes pod JSON with the Kubernetes JSON serializer
// (k8s.io/apimachinery/pkg/runtime/serializer/json, case-sensitive sigs.k8s.io/json underneath) —
// what a client-go informer runs on a JSON response. It is safe for concurrent use.
var PodDecoder kruntime.Decoder = json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{})

// DecodePod decodes one pod.
func DecodePod(raw []byte) (*corev1.Pod, error) {
	obj, _, err := PodDecoder.Decode(raw, nil, &corev1.Pod{})
	if err != nil {
		return nil, err
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("decoded %T, not a pod", obj)
	}
	return p, nil
}

// NewClientGoIndexer returns a client-go Indexer keyed by namespace/name with the namespace and
// spec.nodeName indexes — an informer's store as a node-scoped controller configures it.
func NewClientGoIndexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		NodeNameIndex: func(obj any) ([]string, error) {
			return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
		},
	})
}

// ClientGoIngest decodes each raw pod and adds it to idx, one by one on the calling goroutine (an
// informer processes its DeltaFIFO on one goroutine).
func ClientGoIngest(idx cache.Indexer, raw [][]byte) error {
	for _, r := range raw {
		p, err := DecodePod(r)
		if err != nil {
			return err
		}
		if err := idx.Add(p); err != nil {
			return err
		}
	}
	return nil
}

// ClientGoLoad is ClientGoIngest with decoding on all cores (fixture setup, not measured).
func ClientGoLoad(raw [][]byte) (cache.Indexer, error) {
	pods := make([]*corev1.Pod, len(raw))
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(raw); i += workers {
				p, err := DecodePod(raw[i])
				if err != nil {
					errs[w] = err
					return
				}
				pods[i] = p
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	idx := NewClientGoIndexer()
	for _, p := range pods {
		if err := idx.Add(p); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// ClientGoQuery is a Query compiled once, as a controller builds its selectors once: the
// spec.nodeName value to look up in the index (if the field selector requires one), the label
// selector, and the remaining field requirements checked on the typed object.
type ClientGoQuery struct {
	node     string
	useIndex bool
	labels   labels.Selector
	fields   []fields.Requirement
	limit    int
}

// CompileClientGo compiles q for ClientGoList.
func CompileClientGo(q Query) (*ClientGoQuery, error) {
	ls, err := labels.Parse(q.LabelSelector)
	if err != nil {
		return nil, err
	}
	fs, err := fields.ParseSelector(q.FieldSelector)
	if err != nil {
		return nil, err
	}
	cq := &ClientGoQuery{labels: ls, limit: int(q.Limit)}
	for _, r := range fs.Requirements() {
		if r.Field == "spec.nodeName" && (r.Operator == selection.Equals || r.Operator == selection.DoubleEquals) && !cq.useIndex {
			cq.node, cq.useIndex = r.Value, true
			continue
		}
		if _, ok := podField(&corev1.Pod{}, r.Field); !ok {
			return nil, fmt.Errorf("field %q not supported", r.Field)
		}
		cq.fields = append(cq.fields, r)
	}
	return cq, nil
}

// ClientGoList answers q from idx: ByIndex on spec.nodeName when the query requires a node, List
// otherwise; then the label selector (labels.Selector.Matches on the typed pod's labels) and the
// other field requirements, stopping after limit matches. client-go has no order and no paging:
// "the first page" is the first limit matches in the store's (map) order.
func ClientGoList(idx cache.Indexer, q *ClientGoQuery) ([]*corev1.Pod, error) {
	var objs []any
	if q.useIndex {
		var err error
		if objs, err = idx.ByIndex(NodeNameIndex, q.node); err != nil {
			return nil, err
		}
	} else {
		objs = idx.List()
	}
	n := len(objs)
	if q.limit > 0 {
		n = min(n, q.limit)
	}
	out := make([]*corev1.Pod, 0, n)
	for _, o := range objs {
		p := o.(*corev1.Pod)
		if !q.labels.Matches(labels.Set(p.Labels)) || !q.matchFields(p) {
			continue
		}
		out = append(out, p)
		if q.limit > 0 && len(out) == q.limit {
			break
		}
	}
	return out, nil
}

func (q *ClientGoQuery) matchFields(p *corev1.Pod) bool {
	for _, r := range q.fields {
		v, _ := podField(p, r.Field)
		switch r.Operator {
		case selection.Equals, selection.DoubleEquals:
			if v != r.Value {
				return false
			}
		case selection.NotEquals:
			if v == r.Value {
				return false
			}
		}
	}
	return true
}

// podField reads a selectable pod field from the typed object without building a fields.Set
// (a controller would read the struct field directly).
func podField(p *corev1.Pod, name string) (string, bool) {
	switch name {
	case "metadata.name":
		return p.Name, true
	case "metadata.namespace":
		return p.Namespace, true
	case "spec.nodeName":
		return p.Spec.NodeName, true
	case "spec.restartPolicy":
		return string(p.Spec.RestartPolicy), true
	case "spec.schedulerName":
		return p.Spec.SchedulerName, true
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, true
	case "spec.hostNetwork":
		return strconv.FormatBool(p.Spec.HostNetwork), true
	case "status.phase":
		return string(p.Status.Phase), true
	case "status.nominatedNodeName":
		return p.Status.NominatedNodeName, true
	case "status.podIP":
		if len(p.Status.PodIPs) > 0 {
			return p.Status.PodIPs[0].IP, true
		}
		return p.Status.PodIP, true
	}
	return "", false
}

// PodKeys returns "<namespace>/<name>" of each pod.
func PodKeys(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

// PodVersions returns "<namespace>/<name>@<uid>/<generation>" of each pod.
func PodVersions(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = fmt.Sprintf("%s/%s@%s/%d", p.Namespace, p.Name, p.UID, p.Generation)
	}
	return out
}
