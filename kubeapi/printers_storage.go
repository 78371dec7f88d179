package kubeapi

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Printers of storage, flow-control, service-CIDR, DRA and admission-policy kinds, written from
// what kube-apiserver 1.37.2 prints for them (reference/observed-tables.md,
// kubeapi/testdata/tables/).

// countPrinter prints Name, the number of elements of one array field (at path) and Age: CSINodes'
// drivers, admission policies' validations or mutations with their ParamKind.
func countPrinter(column metav1.TableColumnDefinition, path string, paramKind bool) *Printer {
	cols := []metav1.TableColumnDefinition{nameColumn, column}
	if paramKind {
		cols = append(cols, metav1.TableColumnDefinition{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"})
	}
	return &Printer{
		Columns: append(cols, ageColumn),
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			o := gjson.ParseBytes(obj)
			meta := o.Get("metadata")
			cells := []any{meta.Get("name").String(), int64(len(o.Get(path).Array()))}
			if paramKind {
				pk := "<unset>"
				if k := o.Get("spec.paramKind"); present(k) {
					pk = k.Get("apiVersion").String() + "/" + k.Get("kind").String()
				}
				cells = append(cells, pk)
			}
			return metav1.TableRow{Cells: append(cells, age(meta.Get("creationTimestamp"), now))}
		},
	}
}

func csiNodePrinter() *Printer {
	return countPrinter(metav1.TableColumnDefinition{Name: "Drivers", Type: "integer", Description: "Drivers indicates the number of CSI drivers registered on the node"}, "spec.drivers", false)
}

func validatingAdmissionPolicyPrinter() *Printer {
	return countPrinter(metav1.TableColumnDefinition{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration"}, "spec.validations", true)
}

func mutatingAdmissionPolicyPrinter() *Printer {
	return countPrinter(metav1.TableColumnDefinition{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration"}, "spec.mutations", true)
}

// policyBindingPrinter prints Validating- and MutatingAdmissionPolicyBindings: the policy and the
// parameter reference (`ns/name`, `*/name` without a namespace, else the selector as its Go String
// method prints it).
func policyBindingPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
			{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param"},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			param := "<unset>"
			if pr := spec.Get("paramRef"); present(pr) {
				name, ns, sel := pr.Get("name").String(), pr.Get("namespace").String(), pr.Get("selector")
				switch {
				case name != "" && ns != "":
					param = ns + "/" + name
				case name != "":
					param = "*/" + name
				case present(sel):
					var ls metav1.LabelSelector
					if err := json.Unmarshal([]byte(sel.Raw), &ls); err == nil {
						param = ls.String()
					}
				}
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), spec.Get("policyName").String(), param, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func csiDriverPrinter() *Printer {
	doc := storagev1.CSIDriverSpec{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "AttachRequired", Type: "boolean", Description: doc["attachRequired"]},
			{Name: "PodInfoOnMount", Type: "boolean", Description: doc["podInfoOnMount"]},
			{Name: "StorageCapacity", Type: "boolean", Description: doc["storageCapacity"]},
			{Name: "TokenRequests", Type: "string", Description: doc["tokenRequests"]},
			{Name: "RequiresRepublish", Type: "boolean", Description: doc["requiresRepublish"]},
			{Name: "Modes", Type: "string", Description: doc["volumeLifecycleModes"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			attach := true // unset means required
			if a := spec.Get("attachRequired"); present(a) {
				attach = a.Bool()
			}
			tokens := "<unset>"
			if tr := spec.Get("tokenRequests"); present(tr) {
				var aud []string
				for _, t := range tr.Array() {
					aud = append(aud, t.Get("audience").String())
				}
				tokens = strings.Join(aud, ",")
			}
			var modes []string
			for _, m := range spec.Get("volumeLifecycleModes").Array() {
				modes = append(modes, m.String())
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), attach, spec.Get("podInfoOnMount").Bool(), spec.Get("storageCapacity").Bool(),
				tokens, spec.Get("requiresRepublish").Bool(), orNone(strings.Join(modes, ",")), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

func volumeAttachmentPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Attacher", Type: "string", Format: "name", Description: storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["attacher"]},
			{Name: "PV", Type: "string", Description: storagev1.VolumeAttachmentSource{}.SwaggerDoc()["persistentVolumeName"]},
			{Name: "Node", Type: "string", Description: storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["nodeName"]},
			{Name: "Attached", Type: "boolean", Description: storagev1.VolumeAttachmentStatus{}.SwaggerDoc()["attached"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("attacher").String(), spec.Get("source.persistentVolumeName").String(),
				spec.Get("nodeName").String(), status.Get("attached").Bool(), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

// fieldPrinter prints Name, one top-level string field and Age (VolumeAttributesClasses' driver).
func fieldPrinter(column metav1.TableColumnDefinition, field string) *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{nameColumn, column, ageColumn},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			o := gjson.ParseBytes(obj)
			meta := o.Get("metadata")
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), o.Get(field).String(), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func volumeAttributesClassPrinter() *Printer {
	return fieldPrinter(metav1.TableColumnDefinition{Name: "DriverName", Type: "string", Description: storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]}, "driverName")
}

func serviceCIDRPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "CIDRs", Type: "string", Description: networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			var cidrs []string
			for _, c := range spec.Get("cidrs").Array() {
				cidrs = append(cidrs, c.String())
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), strings.Join(cidrs, ","), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// ipAddressPrinter prints IPAddresses. The apiserver defines two columns and prints three cells
// (the age as well); kubectl shows the two.
func ipAddressPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "ParentRef", Type: "string", Description: networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			parent := "<none>"
			if ref := spec.Get("parentRef"); present(ref) {
				gr := schema.GroupResource{Group: ref.Get("group").String(), Resource: ref.Get("resource").String()}
				parent = strings.ToLower(gr.String())
				if ns := ref.Get("namespace").String(); ns != "" {
					parent += "/" + ns
				}
				parent += "/" + ref.Get("name").String()
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), parent, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func priorityLevelConfigurationPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Type", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]},
			{Name: "NominalConcurrencyShares", Type: "string", Description: flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]},
			{Name: "Queues", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queues"]},
			{Name: "HandSize", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["handSize"]},
			{Name: "QueueLengthLimit", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queueLengthLimit"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			// Numbers where the spec has them, "<none>" otherwise: the cells mix the two.
			var ncs, queues, hand, limit any = "<none>", "<none>", "<none>", "<none>"
			if l := spec.Get("limited"); present(l) {
				ncs = l.Get("nominalConcurrencyShares").Int()
				if q := l.Get("limitResponse.queuing"); present(q) {
					queues, hand, limit = q.Get("queues").Int(), q.Get("handSize").Int(), q.Get("queueLengthLimit").Int()
				}
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), spec.Get("type").String(), ncs, queues, hand, limit, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func flowSchemaPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "PriorityLevel", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]},
			{Name: "MatchingPrecedence", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["matchingPrecedence"]},
			{Name: "DistinguisherMethod", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["distinguisherMethod"]},
			ageColumn,
			{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration"},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			method := "<none>"
			if d := spec.Get("distinguisherMethod"); present(d) {
				method = d.Get("type").String()
			}
			missing := "?" // the Dangling condition's status, "?" without one
			for _, c := range status.Get("conditions").Array() {
				if c.Get("type").String() == "Dangling" {
					missing = c.Get("status").String()
					break
				}
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), spec.Get("priorityLevelConfiguration.name").String(), spec.Get("matchingPrecedence").Int(),
				method, age(meta.Get("creationTimestamp"), now), missing,
			}}
		},
		Order: func(items [][]byte) [][]byte {
			out := slices.Clone(items)
			key := func(o []byte) (int64, string) {
				r := gjson.GetManyBytes(o, "spec.matchingPrecedence", "metadata.name")
				return r[0].Int(), r[1].String()
			}
			slices.SortFunc(out, func(a, b []byte) int {
				pa, na := key(a)
				pb, nb := key(b)
				if pa != pb {
					return cmp.Compare(pa, pb)
				}
				return strings.Compare(na, nb)
			})
			return out
		},
	}
}
