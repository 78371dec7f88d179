package fake

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestLimitBounds checks one container's requests and limits against a limit's min, max and
// ratio, with the plugin's messages (reference/observed-admission.md, lrcontainer), including
// what the recording does not reach: quantities too large for milli-units, a zero request.
func TestLimitBounds(t *testing.T) {
	list := resourceList
	tests := []struct {
		name             string
		limit            corev1.LimitRangeItem
		requests, limits corev1.ResourceList
		want             string
	}{
		{"within", corev1.LimitRangeItem{Type: "Container", Min: list("cpu", "100m"), Max: list("cpu", "1")},
			list("cpu", "100m"), list("cpu", "1"), ""},
		{"no request for min", corev1.LimitRangeItem{Type: "Container", Min: list("cpu", "100m")},
			nil, list("cpu", "1"), "minimum cpu usage per Container is 100m.  No request is specified"},
		{"limit below min", corev1.LimitRangeItem{Type: "Container", Min: list("cpu", "100m")},
			list("cpu", "100m"), list("cpu", "50m"), "minimum cpu usage per Container is 100m, but limit is 50m"},
		{"request above max", corev1.LimitRangeItem{Type: "Container", Max: list("memory", "1Gi")},
			list("memory", "2Gi"), list("memory", "1Gi"), "maximum memory usage per Container is 1Gi, but request is 2Gi"},
		{"min and max of two resources in name order", corev1.LimitRangeItem{Type: "Pod", Min: list("memory", "1Gi", "cpu", "1")},
			list("memory", "1Mi", "cpu", "1m"), nil,
			"[minimum cpu usage per Pod is 1, but request is 1m, minimum memory usage per Pod is 1Gi, but request is 1Mi]"},
		{"whole units beyond milli-units", corev1.LimitRangeItem{Type: "Container", Max: list("ephemeral-storage", "6E")},
			nil, list("ephemeral-storage", "5E"), ""},
		{"whole units above max", corev1.LimitRangeItem{Type: "Container", Max: list("ephemeral-storage", "5E")},
			nil, list("ephemeral-storage", "6E"), "maximum ephemeral-storage usage per Container is 5E, but limit is 6E"},
		{"zero request for a ratio", corev1.LimitRangeItem{Type: "Container", MaxLimitRequestRatio: list("cpu", "2")},
			list("cpu", "0"), list("cpu", "1"), "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"},
		{"ratio at the bound", corev1.LimitRangeItem{Type: "Container", MaxLimitRequestRatio: list("cpu", "1500m")},
			list("cpu", "200m"), list("cpu", "300m"), ""},
		{"ratio above a fractional bound", corev1.LimitRangeItem{Type: "Container", MaxLimitRequestRatio: list("cpu", "1500m")},
			list("cpu", "200m"), list("cpu", "301m"), "cpu max limit to request ratio per Container is 1500m, but provided ratio is 1.505000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{tt.limit}}}
			pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: tt.requests, Limits: tt.limits}}}}}
			got := ""
			if err := podBounds(lr, pod); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCheckQuotas is the plugin's decision on a create and an update against quotas whose status
// a controller set (reference/observed-admission.md, quota*): what is charged, and the refusals'
// messages.
func TestCheckQuotas(t *testing.T) {
	s := &Server{}
	quota := func(name string, hard, used corev1.ResourceList, scopes ...corev1.ResourceQuotaScope) *corev1.ResourceQuota {
		return &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Scopes: scopes},
			Status: corev1.ResourceQuotaStatus{Hard: hard, Used: used}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	list := resourceList
	svc := func(typ corev1.ServiceType, ports int) *corev1.Service {
		out := &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}}
		for range ports {
			out.Spec.Ports = append(out.Spec.Ports, corev1.ServicePort{})
		}
		return out
	}
	services := s.quotaKindOf(schema.GroupResource{Resource: "services"})
	tests := []struct {
		name     string
		quotas   []*corev1.ResourceQuota
		obj, old *corev1.Service
		want     map[int]string // a quota's new services.nodeports, by index
		err      string
	}{
		{"no quota", nil, svc(corev1.ServiceTypeClusterIP, 1), nil, map[int]string{}, ""},
		{"quota without status", []*corev1.ResourceQuota{quota("q", nil, nil)}, svc(corev1.ServiceTypeNodePort, 1), nil, map[int]string{}, ""},
		{"status unknown", []*corev1.ResourceQuota{quota("q", list("services", "1", "services.nodeports", "1"), list("services", "0"))},
			svc(corev1.ServiceTypeNodePort, 1), nil, nil, "status unknown for quota: q, resources: services,services.nodeports"},
		{"charged", []*corev1.ResourceQuota{quota("q", list("services.nodeports", "3"), list("services.nodeports", "1"))},
			svc(corev1.ServiceTypeNodePort, 2), nil, map[int]string{0: "3"}, ""},
		{"exceeded", []*corev1.ResourceQuota{quota("q", list("services.nodeports", "3", "services", "5"), list("services.nodeports", "2", "services", "0"))},
			svc(corev1.ServiceTypeNodePort, 2), nil, nil, "exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=2, limited: services.nodeports=3"},
		{"an update charges what it adds", []*corev1.ResourceQuota{quota("q", list("services.nodeports", "3", "services.loadbalancers", "1"), list("services.nodeports", "2", "services.loadbalancers", "0"))},
			svc(corev1.ServiceTypeLoadBalancer, 3), svc(corev1.ServiceTypeNodePort, 2), map[int]string{0: "3"}, ""},
		{"an update that adds nothing", []*corev1.ResourceQuota{quota("q", list("services.nodeports", "1"), list("services.nodeports", "5"))},
			svc(corev1.ServiceTypeClusterIP, 1), svc(corev1.ServiceTypeNodePort, 1), map[int]string{}, ""},
		{"a scoped quota matches no service", []*corev1.ResourceQuota{quota("q", list("services", "0"), list("services", "0"), corev1.ResourceQuotaScopeBestEffort)},
			svc(corev1.ServiceTypeClusterIP, 1), nil, map[int]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old runtime.Object
			if tt.old != nil {
				old = tt.old
			}
			charged, err := checkQuotas(services, tt.quotas, tt.obj, old, "")
			if got := errString(err); got != tt.err {
				t.Fatalf("error %q, want %q", got, tt.err)
			}
			if err != nil {
				return
			}
			if len(charged) != len(tt.want) {
				t.Fatalf("charged %v, want %v", charged, tt.want)
			}
			for i, w := range tt.want {
				if got := charged[i][corev1.ResourceServicesNodePorts]; got.String() != w {
					t.Errorf("quota %d: services.nodeports %s, want %s", i, got.String(), w)
				}
			}
		})
	}
}

// resourceList is a list of names and quantities, in pairs.
func resourceList(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
