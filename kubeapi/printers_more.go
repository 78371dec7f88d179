package kubeapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	discoveryv1 "k8s.io/api/discovery/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printers of ResourceQuotas, EndpointSlices, HorizontalPodAutoscalers and
// CertificateSigningRequests, written from what kube-apiserver 1.37.2 prints for them
// (reference/observed-tables.md, kubeapi/testdata/tables/).

func resourceQuotaPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
			{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, _, status := sections(obj)
			hard, used := status.Get("hard"), status.Get("used")
			var names []string
			hard.ForEach(func(k, _ gjson.Result) bool { names = append(names, k.String()); return true })
			sort.Strings(names)
			var requests, limits []string
			for _, n := range names {
				esc := gjson.Escape(n)
				cell := n + ": " + quantity(used.Get(esc)) + "/" + quantity(hard.Get(esc))
				if prefix, _, ok := strings.Cut(n, "."); ok && prefix == "limits" {
					limits = append(limits, cell)
				} else {
					requests = append(requests, cell)
				}
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), strings.Join(requests, ", "), strings.Join(limits, ", "), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

func endpointSlicePrinter() *Printer {
	doc := discoveryv1.EndpointSlice{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "AddressType", Type: "string", Description: doc["addressType"]},
			{Name: "Ports", Type: "string", Description: doc["ports"]},
			{Name: "Endpoints", Type: "string", Description: doc["endpoints"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			s := gjson.ParseBytes(obj)
			meta := s.Get("metadata")
			var ports, addrs []string
			for _, p := range s.Get("ports").Array() {
				switch port, name := p.Get("port"), p.Get("name"); {
				case present(port):
					ports = append(ports, port.Raw)
				case present(name):
					ports = append(ports, name.String())
				default:
					ports = append(ports, "*")
				}
			}
			for _, e := range s.Get("endpoints").Array() {
				for _, a := range e.Get("addresses").Array() {
					addrs = append(addrs, a.String())
				}
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), s.Get("addressType").String(), firstThree(ports), firstThree(addrs),
				age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

// firstThree lists the first three values and how many more there are; "<unset>" when that
// prints nothing (no values, or one empty port name).
func firstThree(list []string) string {
	const max = 3
	if len(list) > max {
		return strings.Join(list[:max], ",") + " + " + strconv.Itoa(len(list)-max) + " more..."
	}
	if ret := strings.Join(list, ","); ret != "" {
		return ret
	}
	return "<unset>"
}

func horizontalPodAutoscalerPrinter() *Printer {
	spec, status := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc(), autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Reference", Type: "string", Description: spec["scaleTargetRef"]},
			{Name: "Targets", Type: "string", Description: spec["metrics"]},
			{Name: "MinPods", Type: "string", Description: spec["minReplicas"]},
			{Name: "MaxPods", Type: "string", Description: spec["maxReplicas"]},
			{Name: "Replicas", Type: "string", Description: status["currentReplicas"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			ref := spec.Get("scaleTargetRef")
			minPods := "<unset>"
			if m := spec.Get("minReplicas"); present(m) {
				minPods = strconv.FormatInt(m.Int(), 10)
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), ref.Get("kind").String() + "/" + ref.Get("name").String(),
				hpaMetrics(spec.Get("metrics").Array(), status.Get("currentMetrics").Array()),
				minPods, spec.Get("maxReplicas").Int(), status.Get("currentReplicas").Int(), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

// hpaMetrics prints an autoscaling/v2 HPA's metrics as current/target, the current value from the
// status metric at the same index ("<unknown>" when there is none), the first two of them and how
// many more there are.
func hpaMetrics(specs, statuses []gjson.Result) string {
	if len(specs) == 0 {
		return "<none>"
	}
	current := func(i int, source, path string) (gjson.Result, bool) {
		if i >= len(statuses) {
			return gjson.Result{}, false
		}
		st := statuses[i].Get(source)
		if !present(st) {
			return gjson.Result{}, false
		}
		return st.Get(path), true
	}
	var list []string
	for i, m := range specs {
		switch typ := m.Get("type").String(); typ {
		case "External", "Object":
			source := strings.ToLower(typ)
			target := m.Get(source + ".target")
			if av := target.Get("averageValue"); present(av) {
				cur := "<unknown>"
				if v, ok := current(i, source, "current.averageValue"); ok && present(v) {
					cur = quantity(v)
				}
				list = append(list, cur+"/"+quantity(av)+" (avg)")
			} else {
				cur := "<unknown>"
				if v, ok := current(i, source, "current.value"); ok {
					cur = quantity(v)
				}
				list = append(list, cur+"/"+quantity(target.Get("value")))
			}
		case "Pods":
			cur := "<unknown>"
			if v, ok := current(i, "pods", "current.averageValue"); ok {
				cur = quantity(v)
			}
			list = append(list, cur+"/"+quantity(m.Get("pods.target.averageValue")))
		case "Resource", "ContainerResource":
			source := "resource"
			if typ == "ContainerResource" {
				source = "containerResource"
			}
			name := m.Get(source + ".name").String()
			target := m.Get(source + ".target")
			if av := target.Get("averageValue"); present(av) {
				cur := "<unknown>"
				if v, ok := current(i, source, "current.averageValue"); ok {
					cur = quantity(v)
				}
				list = append(list, name+": "+cur+"/"+quantity(av))
			} else {
				cur := "<unknown>"
				if v, ok := current(i, source, "current.averageUtilization"); ok && present(v) {
					cur = fmt.Sprintf("%d%%", v.Int())
				}
				tgt := "<auto>"
				if u := target.Get("averageUtilization"); present(u) {
					tgt = fmt.Sprintf("%d%%", u.Int())
				}
				list = append(list, name+": "+cur+"/"+tgt)
			}
		default:
			list = append(list, "<unknown type>")
		}
	}
	const max = 2
	if len(list) > max {
		return strings.Join(list[:max], ", ") + " + " + strconv.Itoa(len(list)-max) + " more..."
	}
	return strings.Join(list, ", ")
}

func certificateSigningRequestPrinter() *Printer {
	spec, status := certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc(), certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn, ageColumn,
			{Name: "SignerName", Type: "string", Description: spec["signerName"]},
			{Name: "Requestor", Type: "string", Description: spec["request"]},
			{Name: "RequestedDuration", Type: "string", Description: spec["expirationSeconds"]},
			{Name: "Condition", Type: "string", Description: status["conditions"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			signer := orNone(spec.Get("signerName").String())
			requested := "<none>"
			if s := spec.Get("expirationSeconds"); present(s) {
				requested = duration.HumanDuration(time.Duration(s.Int()) * time.Second)
			}
			var approved, denied, failed bool
			for _, c := range status.Get("conditions").Array() {
				switch c.Get("type").String() {
				case "Approved":
					approved = true
				case "Denied":
					denied = true
				case "Failed":
					failed = true
				}
			}
			state := "Pending"
			switch {
			case denied:
				state = "Denied"
			case approved:
				state = "Approved"
			}
			if failed {
				state += ",Failed"
			}
			if status.Get("certificate").String() != "" {
				state += ",Issued"
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), age(meta.Get("creationTimestamp"), now), signer, spec.Get("username").String(), requested, state,
			}}
		},
	}
}

func customResourceDefinitionPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Scope", Type: "string", Description: "Cluster/Namespaced"},
			{Name: "Versions", Type: "string", Description: "Served versions"},
			{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
			{Name: "Group", Type: "string", Priority: 1, Description: "API group"},
			{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind"},
			{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names"},
			{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status"},
		},
		Row: func(obj []byte, _ time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			var versions []string
			for _, v := range spec.Get("versions").Array() {
				if !v.Get("served").Bool() {
					continue
				}
				label := v.Get("name").String()
				if v.Get("storage").Bool() {
					label += "(storage)"
				}
				versions = append(versions, label)
			}
			sort.Strings(versions)
			var short []string
			for _, s := range spec.Get("names.shortNames").Array() {
				short = append(short, s.String())
			}
			established := false
			for _, c := range status.Get("conditions").Array() {
				if c.Get("type").String() == "Established" && c.Get("status").String() == "True" {
					established = true
				}
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("scope").String(), strings.Join(versions, ","), createdAt(meta),
				spec.Get("group").String(), spec.Get("names.kind").String(), strings.Join(short, ","), established,
			}}
		},
	}
}

func storageClassPrinter() *Printer {
	row := func(effectiveDefault string) func(obj []byte, now time.Time) metav1.TableRow {
		return func(obj []byte, now time.Time) metav1.TableRow {
			sc := gjson.ParseBytes(obj)
			meta := sc.Get("metadata")
			name := meta.Get("name").String()
			if effectiveDefault != "" && name == effectiveDefault {
				name += " (default)"
			}
			reclaim, binding := "Delete", "Immediate"
			if v := sc.Get("reclaimPolicy"); present(v) {
				reclaim = v.String()
			}
			if v := sc.Get("volumeBindingMode"); present(v) {
				binding = v.String()
			}
			return metav1.TableRow{Cells: []any{
				name, sc.Get("provisioner").String(), reclaim, binding, sc.Get("allowVolumeExpansion").Bool(),
				age(meta.Get("creationTimestamp"), now),
			}}
		}
	}
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Provisioner", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["provisioner"]},
			{Name: "ReclaimPolicy", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["reclaimPolicy"]},
			{Name: "VolumeBindingMode", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["volumeBindingMode"]},
			{Name: "AllowVolumeExpansion", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["allowVolumeExpansion"]},
			ageColumn,
		},
		// One class alone is never marked: the apiserver marks the default only in a list.
		Row: row(""),
		ListRow: func(items [][]byte) func(obj []byte, now time.Time) metav1.TableRow {
			return row(effectiveDefaultClass(items))
		},
	}
}

// effectiveDefaultClass is the name of the class a list marks as default: of those annotated
// default (storageclass.kubernetes.io/is-default-class or its beta form, "true"), the most recently
// created, the first name on a tie; "" for none.
func effectiveDefaultClass(items [][]byte) string {
	var name string
	var created time.Time
	for _, it := range items {
		meta := gjson.GetBytes(it, "metadata")
		a := meta.Get("annotations")
		if a.Get(`storageclass\.kubernetes\.io/is-default-class`).String() != "true" &&
			a.Get(`storageclass\.beta\.kubernetes\.io/is-default-class`).String() != "true" {
			continue
		}
		n := meta.Get("name").String()
		t, _ := timestamp(meta.Get("creationTimestamp"))
		if name == "" || t.After(created) || (t.Equal(created) && n < name) {
			name, created = n, t
		}
	}
	return name
}

// apiServicePrinter is the aggregator's APIService printer (k8s.io/kube-aggregator
// pkg/registry/apiservice/etcd ConvertToTable): SERVICE is "Local" or namespace/name of the
// Service the API is proxied to; AVAILABLE is the Available condition's status, with its reason
// when it is not True, or "Unknown" without the condition.
func apiServicePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
			{Name: "Available", Type: "string", Description: "Whether this service is available."},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			service := "Local"
			if svc := spec.Get("service"); present(svc) {
				service = svc.Get("namespace").String() + "/" + svc.Get("name").String()
			}
			available := "Unknown"
			for _, c := range status.Get("conditions").Array() {
				if c.Get("type").String() != "Available" {
					continue
				}
				available = c.Get("status").String()
				if r := c.Get("reason").String(); available != "True" && r != "" {
					available += " (" + r + ")"
				}
				break
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), service, available, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}
