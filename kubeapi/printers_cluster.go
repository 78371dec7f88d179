package kubeapi

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	coordinationv1 "k8s.io/api/coordination/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Printers of networking, RBAC, policy, scheduling, node, coordination and admission
// registration kinds, written from what kube-apiserver 1.37.2 prints for them
// (reference/observed-tables.md, kubeapi/testdata/tables/).

func ingressPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
			{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
			{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
			{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			class := "<none>"
			if c := spec.Get("ingressClassName"); present(c) {
				class = c.String()
			}
			ports := "80"
			if len(spec.Get("tls").Array()) > 0 {
				ports = "80, 443"
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), class, ingressHosts(spec.Get("rules").Array()),
				loadBalancerAddresses(status.Get("loadBalancer.ingress")), ports, age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

// ingressHosts lists the first three hosts the rules name ("*" if none does); when rules follow
// the third host, it adds how many rules there are beyond three (rules without a host included).
func ingressHosts(rules []gjson.Result) string {
	const max = 3
	var list []string
	more := false
	for _, r := range rules {
		if len(list) == max {
			more = true
			break
		}
		if h := r.Get("host").String(); h != "" {
			list = append(list, h)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	ret := strings.Join(list, ",")
	if more {
		return ret + " + " + strconv.Itoa(len(rules)-max) + " more..."
	}
	return ret
}

// loadBalancerAddresses is the sorted set of the ingress points' IPs (or hostnames when they have
// no IP), comma-separated: the apiserver prints wide, so the list is never shortened.
func loadBalancerAddresses(ingress gjson.Result) string {
	seen := map[string]bool{}
	var out []string
	for _, in := range ingress.Array() {
		v := in.Get("ip").String()
		if v == "" {
			v = in.Get("hostname").String()
		}
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func ingressClassPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
			{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			name := meta.Get("name").String()
			if meta.Get(`annotations.ingressclass\.kubernetes\.io/is-default-class`).String() == "true" {
				name += " (default)"
			}
			params := "<none>"
			if p := spec.Get("parameters"); present(p) {
				params = p.Get("kind").String()
				if g := p.Get("apiGroup"); present(g) {
					params += "." + g.String()
				}
				params += "/" + p.Get("name").String()
			}
			return metav1.TableRow{Cells: []any{name, spec.Get("controller").String(), params, age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func networkPolicyPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Pod-Selector", Type: "string", Description: networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			sel := spec.Get("podSelector")
			if !present(sel) {
				sel = gjson.Parse("{}") // a value, not a pointer: absent is the empty selector
			}
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), labelSelector(sel), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

func leasePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Holder", Type: "string", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, _ := sections(obj)
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), spec.Get("holderIdentity").String(), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// bindingPrinter prints RoleBindings and ClusterRoleBindings; of is how the subject columns are
// described ("roleBinding", "clusterRoleBinding").
func bindingPrinter(roleRefDoc, of string) *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Role", Type: "string", Description: roleRefDoc},
			ageColumn,
			{Name: "Users", Type: "string", Priority: 1, Description: "Users in the " + of},
			{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the " + of},
			{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the " + of},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			var meta, ref, subjects gjson.Result
			gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "metadata":
					meta = v
				case "roleRef":
					ref = v
				case "subjects":
					subjects = v
				}
				return true
			})
			var users, groups, sas []string
			for _, s := range subjects.Array() {
				switch s.Get("kind").String() {
				case "ServiceAccount":
					sas = append(sas, s.Get("namespace").String()+"/"+s.Get("name").String())
				case "User":
					users = append(users, s.Get("name").String())
				case "Group":
					groups = append(groups, s.Get("name").String())
				}
			}
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), ref.Get("kind").String() + "/" + ref.Get("name").String(), age(meta.Get("creationTimestamp"), now),
				strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", "),
			}}
		},
	}
}

func roleBindingPrinter() *Printer {
	return bindingPrinter(rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"], "roleBinding")
}

func clusterRoleBindingPrinter() *Printer {
	return bindingPrinter(rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"], "clusterRoleBinding")
}

func podDisruptionBudgetPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
			{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
			{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, spec, status := sections(obj)
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), intOrString(spec.Get("minAvailable")), intOrString(spec.Get("maxUnavailable")),
				status.Get("disruptionsAllowed").Int(), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}

func priorityClassPrinter() *Printer {
	doc := schedulingv1.PriorityClass{}.SwaggerDoc()
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Value", Type: "integer", Description: doc["value"]},
			{Name: "Global-Default", Type: "boolean", Description: doc["globalDefault"]},
			ageColumn,
			{Name: "PreemptionPolicy", Type: "string", Description: doc["preemptionPolicy"]},
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			pc := gjson.ParseBytes(obj)
			meta := pc.Get("metadata")
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), pc.Get("value").Int(), pc.Get("globalDefault").Bool(),
				age(meta.Get("creationTimestamp"), now), pc.Get("preemptionPolicy").String(),
			}}
		},
	}
}

func runtimeClassPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			// The apiserver describes the handler with ObjectMeta's documentation, which has no
			// such field: the description is empty.
			{Name: "Handler", Type: "string", Description: objectMetaDoc["handler"]},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			rc := gjson.ParseBytes(obj)
			meta := rc.Get("metadata")
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), rc.Get("handler").String(), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}

// webhookPrinter prints Validating- and MutatingWebhookConfigurations: how many webhooks each has.
func webhookPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			w := gjson.ParseBytes(obj)
			meta := w.Get("metadata")
			return metav1.TableRow{Cells: []any{meta.Get("name").String(), int64(len(w.Get("webhooks").Array())), age(meta.Get("creationTimestamp"), now)}}
		},
	}
}
