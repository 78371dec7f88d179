package kubeapi

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Printers of the core/v1 kinds but pods, nodes and namespaces, written from what kube-apiserver
// 1.37.2 prints for them (k8s.io/kubernetes pkg/printers/internalversion read for the facts;
// reference/observed-tables.md, kubeapi/testdata/tables/), and the apiserver's default table
// convertor for resources without a printer.

// GenericPrinter is the apiserver's default Table of a resource without a printer of its own:
// Name, and Created At as an RFC 3339 time (kubectl shows it as CREATED AT).
func GenericPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			m := gjson.GetBytes(obj, "metadata")
			return metav1.TableRow{Cells: []any{m.Get("name").String(), createdAt(m)}}
		},
	}
}

// createdAt is a creation time as the apiserver's table convertors print it: RFC 3339 in UTC,
// metav1.Time{} formatted ("0001-01-01T00:00:00Z") when there is none.
func createdAt(meta gjson.Result) string {
	if t, ok := timestamp(meta.Get("creationTimestamp")); ok {
		return t.UTC().Format(time.RFC3339)
	}
	return "0001-01-01T00:00:00Z"
}

// ConfigMapPrinter prints configmaps as kubectl shows them: NAME, DATA, AGE.
func ConfigMapPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			var meta gjson.Result
			n := int64(0)
			gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "metadata":
					meta = v
				case "data", "binaryData":
					v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
				}
				return true
			})
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), n, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// ServicePrinter prints services as kubectl shows them: NAME, TYPE, CLUSTER-IP, EXTERNAL-IP,
// PORT(S), AGE, and for `-o wide` SELECTOR.
func ServicePrinter() *Printer {
	spec := corev1.ServiceSpec{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Type", Type: "string", Description: spec["type"]},
			{Name: "Cluster-IP", Type: "string", Description: spec["clusterIP"]},
			{Name: "External-IP", Type: "string", Description: spec["externalIPs"]},
			{Name: "Port(s)", Type: "string", Description: spec["ports"]},
			ageColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: spec["selector"]},
		},
		Row: serviceRow,
	}
}

// serviceRow is printService (wide).
func serviceRow(obj []byte, now time.Time) metav1.TableRow {
	meta, spec, status := sections(obj)
	internalIP := "<none>"
	if ips := spec.Get("clusterIPs").Array(); len(ips) > 0 {
		internalIP = ips[0].String()
	}
	var ports []string
	for _, p := range spec.Get("ports").Array() {
		s := p.Get("port").Raw
		if np := p.Get("nodePort").Int(); np > 0 {
			s += ":" + strconv.FormatInt(np, 10)
		}
		ports = append(ports, s+"/"+p.Get("protocol").String())
	}
	svcPorts := strings.Join(ports, ",")
	if svcPorts == "" {
		svcPorts = "<none>"
	}
	return metav1.TableRow{Cells: []any{
		meta.Get("name").String(), spec.Get("type").String(), internalIP, serviceExternalIP(spec, status), svcPorts,
		age(meta.Get("creationTimestamp"), now), formatLabels(spec.Get("selector")),
	}}
}

// serviceExternalIP is getServiceExternalIP (wide: load balancer addresses are not shortened).
func serviceExternalIP(spec, status gjson.Result) string {
	var external []string
	for _, ip := range spec.Get("externalIPs").Array() {
		external = append(external, ip.String())
	}
	switch spec.Get("type").String() {
	case "ClusterIP", "NodePort":
		if len(external) > 0 {
			return strings.Join(external, ",")
		}
		return "<none>"
	case "LoadBalancer":
		seen := map[string]bool{}
		var lb []string
		for _, in := range status.Get("loadBalancer.ingress").Array() {
			v := in.Get("ip").String()
			if v == "" {
				v = in.Get("hostname").String()
			}
			if v != "" && !seen[v] {
				seen[v] = true
				lb = append(lb, v)
			}
		}
		sort.Strings(lb) // sets.String.List
		if all := append(lb, external...); len(external) > 0 {
			return strings.Join(all, ",")
		}
		if len(lb) > 0 {
			return strings.Join(lb, ",")
		}
		return "<pending>"
	case "ExternalName":
		return spec.Get("externalName").String()
	}
	return "<unknown>"
}

// formatLabels is labels.FormatLabels of a JSON map: "k=v,..." in key order, "<none>" if empty.
func formatLabels(m gjson.Result) string {
	var keys []string
	vals := map[string]string{}
	m.ForEach(func(k, v gjson.Result) bool {
		keys = append(keys, k.String())
		vals[k.String()] = v.String()
		return true
	})
	if len(keys) == 0 {
		return "<none>"
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + vals[k])
	}
	return b.String()
}

func secretPrinter() *Printer {
	doc := corev1.Secret{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Type", Type: "string", Description: doc["type"]},
			{Name: "Data", Type: "string", Description: doc["data"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			var meta, typ gjson.Result
			n := int64(0)
			gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "metadata":
					meta = v
				case "type":
					typ = v
				case "data":
					v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
				}
				return true
			})
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), typ.String(), n, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// nameAgePrinter prints Name and Age, the columns of ServiceAccounts.
func nameAgePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{nameColumn, ageColumn},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			m := gjson.GetBytes(obj, "metadata")
			return metav1.TableRow{Cells: []any{m.Get("name").String(), age(m.Get("creationTimestamp"), now)}}
		},
	}
}

func endpointsPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Endpoints", Type: "string", Description: corev1.Endpoints{}.SwaggerDoc()["subsets"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, subsets := metaAnd(obj, "subsets")
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), formatEndpoints(subsets.Array()), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// formatEndpoints lists the first three addresses (ip:port for each port of a subset, the bare ip
// for a subset without ports) and how many more there are.
func formatEndpoints(subsets []gjson.Result) string {
	if len(subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	add := func(s string) {
		if len(list) < max {
			list = append(list, s)
		}
	}
	for _, ss := range subsets {
		addrs := ss.Get("addresses").Array()
		ports := ss.Get("ports").Array()
		if len(ports) == 0 {
			count += len(addrs)
			for _, a := range addrs {
				add(a.Get("ip").String())
			}
			continue
		}
		for _, p := range ports {
			count += len(addrs)
			for _, a := range addrs {
				add(net.JoinHostPort(a.Get("ip").String(), strconv.FormatInt(p.Get("port").Int(), 10)))
			}
		}
	}
	ret := strings.Join(list, ",")
	if count > max {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

// eventFields names where an Event's printed fields are: core/v1 and events.k8s.io/v1 hold the
// same object (the apiserver prints both from one internal type) under different names.
type eventFields struct {
	first, last, count, involved, source, message, reportingController string
}

var (
	coreEventFields     = eventFields{"firstTimestamp", "lastTimestamp", "count", "involvedObject", "source", "message", "reportingComponent"}
	eventsV1EventFields = eventFields{"deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "regarding", "deprecatedSource", "note", "reportingController"}
)

func eventPrinter() *Printer { return eventPrinterOf(coreEventFields) }

// eventsV1EventPrinter prints events.k8s.io/v1 Events with the core Event's columns.
func eventsV1EventPrinter() *Printer { return eventPrinterOf(eventsV1EventFields) }

func eventPrinterOf(f eventFields) *Printer {
	doc := corev1.Event{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			{Name: "Last Seen", Type: "string", Description: doc["lastTimestamp"]},
			{Name: "Type", Type: "string", Description: doc["type"]},
			{Name: "Reason", Type: "string", Description: doc["reason"]},
			{Name: "Object", Type: "string", Description: doc["involvedObject"]},
			{Name: "Subobject", Type: "string", Priority: 1, Description: corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]},
			{Name: "Source", Type: "string", Priority: 1, Description: doc["source"]},
			{Name: "Message", Type: "string", Description: doc["message"]},
			{Name: "First Seen", Type: "string", Priority: 1, Description: doc["firstTimestamp"]},
			{Name: "Count", Type: "string", Priority: 1, Description: doc["count"]},
			{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: objectMetaDoc["name"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow { return eventRow(f, obj, now) },
	}
}

// eventRow prints an Event: first seen from firstTimestamp, else eventTime; last seen from the
// series, else lastTimestamp, else first seen; a singleton without a count counts 1.
func eventRow(f eventFields, obj []byte, now time.Time) metav1.TableRow {
	e := gjson.ParseBytes(obj)
	meta := e.Get("metadata")
	first := age(e.Get(f.first), now)
	if _, ok := timestamp(e.Get(f.first)); !ok {
		first = age(e.Get("eventTime"), now)
	}
	last := age(e.Get(f.last), now)
	if _, ok := timestamp(e.Get(f.last)); !ok {
		last = first
	}
	count := e.Get(f.count).Int()
	if series := e.Get("series"); present(series) {
		last = age(series.Get("lastObservedTime"), now)
		count = series.Get("count").Int()
	} else if count == 0 {
		count = 1
	}
	involved := e.Get(f.involved)
	target := strings.ToLower(involved.Get("kind").String())
	if name := involved.Get("name").String(); name != "" {
		target += "/" + name
	}
	source := e.Get(f.source)
	component := firstNonEmpty(source.Get("component").String(), e.Get(f.reportingController).String())
	src := component
	if instance := firstNonEmpty(source.Get("host").String(), e.Get("reportingInstance").String()); instance != "" {
		src = component + ", " + instance
	}
	return metav1.TableRow{Cells: []any{
		last, e.Get("type").String(), e.Get("reason").String(), target, involved.Get("fieldPath").String(), src,
		strings.TrimSpace(e.Get(f.message).String()), first, count, meta.Get("name").String(),
	}}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// accessModes abbreviates access modes in a fixed order, each once: RWO, ROX, RWX, RWOP.
func accessModes(modes gjson.Result) string {
	has := map[string]bool{}
	for _, m := range modes.Array() {
		has[m.String()] = true
	}
	var out []string
	for _, m := range [...]struct{ mode, short string }{
		{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"},
	} {
		if has[m.mode] {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

// quantity prints a resource quantity in its canonical form ("2000000000" is "2G"); a missing
// quantity is "0".
func quantity(v gjson.Result) string {
	if !present(v) {
		return "0"
	}
	q, err := apiresource.ParseQuantity(v.String())
	if err != nil {
		return v.String()
	}
	return q.String()
}

// storageClass is the class of a volume or claim: the beta annotation when it is set (even to ""),
// else spec.storageClassName.
func storageClass(meta, spec gjson.Result) string {
	if a := meta.Get(`annotations.volume\.beta\.kubernetes\.io/storage-class`); a.Exists() {
		return a.String()
	}
	return spec.Get("storageClassName").String()
}

// orUnset is an optional string, "<unset>" when it is not set.
func orUnset(v gjson.Result) string {
	if !present(v) {
		return "<unset>"
	}
	return v.String()
}

func persistentVolumePrinter() *Printer {
	spec, status := corev1.PersistentVolumeSpec{}.SwaggerDoc(), corev1.PersistentVolumeStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Capacity", Type: "string", Description: spec["capacity"]},
			{Name: "Access Modes", Type: "string", Description: spec["accessModes"]},
			{Name: "Reclaim Policy", Type: "string", Description: spec["persistentVolumeReclaimPolicy"]},
			{Name: "Status", Type: "string", Description: status["phase"]},
			{Name: "Claim", Type: "string", Description: spec["claimRef"]},
			{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv"},
			{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv"},
			{Name: "Reason", Type: "string", Description: status["reason"]},
			ageColumn,
			{Name: "VolumeMode", Type: "string", Priority: 1, Description: spec["volumeMode"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			claim := ""
			if ref := spec.Get("claimRef"); present(ref) {
				claim = ref.Get("namespace").String() + "/" + ref.Get("name").String()
			}
			phase := status.Get("phase").String()
			if present(meta.Get("deletionTimestamp")) {
				phase = "Terminating"
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), quantity(spec.Get("capacity.storage")), accessModes(spec.Get("accessModes")),
				spec.Get("persistentVolumeReclaimPolicy").String(), phase, claim, storageClass(meta, spec),
				orUnset(spec.Get("volumeAttributesClassName")), status.Get("reason").String(),
				age(meta.Get("creationTimestamp"), now), orUnset(spec.Get("volumeMode")),
			}}
		},
	}
}

func persistentVolumeClaimPrinter() *Printer {
	spec, status := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Status", Type: "string", Description: status["phase"]},
			{Name: "Volume", Type: "string", Description: spec["volumeName"]},
			{Name: "Capacity", Type: "string", Description: status["capacity"]},
			{Name: "Access Modes", Type: "string", Description: status["accessModes"]},
			{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
			{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
			ageColumn,
			{Name: "VolumeMode", Type: "string", Priority: 1, Description: spec["volumeMode"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			phase := status.Get("phase").String()
			if present(meta.Get("deletionTimestamp")) {
				phase = "Terminating"
			}
			volume := spec.Get("volumeName").String()
			capacity, modes := "", ""
			if volume != "" { // an unbound claim shows neither
				modes = accessModes(status.Get("accessModes"))
				capacity = quantity(status.Get("capacity.storage"))
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), phase, volume, capacity, modes, storageClass(meta, spec),
				orUnset(spec.Get("volumeAttributesClassName")), age(meta.Get("creationTimestamp"), now),
				orUnset(spec.Get("volumeMode")),
			}}
		},
	}
}
