package kubeapi

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Printers of the other resources `serve` answers, ported like those of printers.go from
// k8s.io/kubernetes v1.37.2 pkg/printers/internalversion/printers.go (printConfigMap,
// printService), and the apiserver's default table convertor (k8s.io/apiserver
// pkg/registry/rest/table.go) for resources without a printer.

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
			created := "0001-01-01T00:00:00Z" // metav1.Time{} formatted, as the convertor does
			if t, ok := timestamp(m.Get("creationTimestamp")); ok {
				created = t.UTC().Format(time.RFC3339)
			}
			return metav1.TableRow{Cells: []any{m.Get("name").String(), created}}
		},
	}
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
