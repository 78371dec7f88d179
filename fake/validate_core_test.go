package fake

import (
	"fmt"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// causes renders an error list as the apiserver's Status lists them, one "field: detail" each.
func causes(errs field.ErrorList) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return strings.Join(out, "; ")
}

func TestIntOrPercent(t *testing.T) {
	for _, c := range []struct {
		v    intstr.IntOrString
		want string
	}{
		{intstr.FromInt32(0), ""},
		{intstr.FromInt32(3), ""},
		{intstr.FromInt32(-1), "p: Invalid value: -1: must be greater than or equal to 0"},
		{intstr.FromString("100%"), ""},
		{intstr.FromString("101%"), `p: Invalid value: "101%": must not be greater than 100%`},
		{intstr.FromString("half"), `p: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
	} {
		p := field.NewPath("p")
		errs := append(positiveIntOrPercent(c.v, p), notMoreThan100Percent(c.v, p)...)
		if got := causes(errs); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.String(), got, c.want)
		}
	}
}

func TestPortNumOrName(t *testing.T) {
	for _, c := range []struct {
		v    intstr.IntOrString
		want string
	}{
		{intstr.FromInt32(8080), ""},
		{intstr.FromInt32(0), "p: Invalid value: 0: must be between 1 and 65535, inclusive"},
		{intstr.FromString("http"), ""},
		{intstr.FromString("Bad_Name"), `p: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`},
	} {
		if got := causes(portNumOrName(c.v, field.NewPath("p"))); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.String(), got, c.want)
		}
	}
}

// TestValidateRules pins the order of the causes: the handwritten ones, then the declarative
// required verbs (reference/observed-validation-core.md, core-rbac).
func TestValidateRules(t *testing.T) {
	for _, c := range []struct {
		name       string
		rules      []rbacv1.PolicyRule
		namespaced bool
		want       string
	}{
		{"resource rule", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}, true, ""},
		{"no verbs", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}, true, "rules[0].verbs: Required value"},
		{"URLs in a role", []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Verbs: []string{"get"}}}, true,
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs`},
		{"URLs and resources, no verbs", []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Resources: []string{"pods"}}}, false,
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs; rules[0].verbs: Required value`},
		{"no groups, no verbs", []rbacv1.PolicyRule{{Resources: []string{"pods"}}, {Verbs: []string{"get"}, APIGroups: []string{""}}}, true,
			"rules[0].apiGroups: Required value: resource rules must supply at least one api group; rules[1].resources: Required value: resource rules must supply at least one resource; rules[0].verbs: Required value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := causes(append(validateRules(c.rules, c.namespaced), requiredVerbs(c.rules)...)); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

func TestValidateHPASpec(t *testing.T) {
	ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}
	for _, c := range []struct {
		name      string
		spec, old *autoscalingv2.HorizontalPodAutoscalerSpec
		want      string
	}{
		{"good", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: ptr.To[int32](1), MaxReplicas: 2}, nil, ""},
		{"max below min", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: ptr.To[int32](3), MaxReplicas: 2}, nil,
			"spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"},
		{"max zero", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref}, nil, "spec.maxReplicas: Required value"},
		{"to zero without an object metric", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: ptr.To[int32](0), MaxReplicas: 2}, nil,
			"spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"},
		{"core group", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 1}, nil,
			`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`},
		{"core group kept by an update", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 1},
			&autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment", Name: "e"}, MaxReplicas: 1}, ""},
		{"replication controller", &autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "ReplicationController", Name: "d"}, MaxReplicas: 1}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := causes(validateHPASpec(c.spec, c.old, field.NewPath("spec"))); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

// TestInternalPVCSpecDiff pins the diff of the immutable-spec cause to the apiserver's, which
// diffs its internal types' JSON (reference/observed-validation-core.md, core-pvc / update spec).
func TestInternalPVCSpecDiff(t *testing.T) {
	spec := func(mode corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{mode},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			VolumeMode:  ptr.To(corev1.PersistentVolumeFilesystem),
		}}
	}
	got := causes(validatePVCUpdate(spec(corev1.ReadWriteMany), spec(corev1.ReadWriteOnce)))
	want := "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n" +
		"@@ -1,6 +1,6 @@\n {\n  \"AccessModes\": [\n-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n  ],\n  \"Selector\": null,\n  \"Resources\": {\n"
	if got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if got := causes(validatePVCUpdate(spec(corev1.ReadWriteOnce), spec(corev1.ReadWriteOnce))); got != "" {
		t.Errorf("unchanged spec: %q", got)
	}
}

func TestValidateSecretTypes(t *testing.T) {
	for _, c := range []struct {
		typ  corev1.SecretType
		data map[string][]byte
		want string
	}{
		{corev1.SecretTypeOpaque, nil, ""},
		{corev1.SecretTypeTLS, nil, "data[tls.crt]: Required value; data[tls.key]: Required value"},
		{corev1.SecretTypeBasicAuth, map[string][]byte{"password": nil}, ""},
		{corev1.SecretTypeBasicAuth, nil, "data[username]: Required value; data[password]: Required value"},
		{corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte("{")}, `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`},
		{corev1.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": nil}, "data[ssh-privatekey]: Required value"},
		{corev1.SecretTypeServiceAccountToken, nil, "metadata.annotations[kubernetes.io/service-account.name]: Required value"},
		{"example.com/custom", map[string][]byte{"a b": nil}, `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
	} {
		if got := causes(validateSecret(&corev1.Secret{Type: c.typ, Data: c.data})); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.typ, c.data, got, c.want)
		}
	}
}

func TestEndpointIP(t *testing.T) {
	for _, c := range []struct{ ip, want string }{
		{"10.1.2.3", ""},
		{"2001:db8::1", ""},
		{"0.0.0.0", `ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`},
		{"127.0.0.1", `ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`},
		{"169.254.1.1", `ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`},
		{"224.0.0.1", `ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`},
		{"300.1.2.3", `ip: Invalid value: "300.1.2.3": must be a valid IP address`},
	} {
		if got := causes(endpointIP(c.ip, field.NewPath("ip"))); got != c.want {
			t.Errorf("%s: %q, want %q", c.ip, got, c.want)
		}
	}
}

func TestMetricTarget(t *testing.T) {
	neg := resource.MustParse("-1")
	for _, c := range []struct {
		name   string
		target autoscalingv2.MetricTarget
		want   string
	}{
		{"utilization", autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)}, ""},
		{"no type", autoscalingv2.MetricTarget{AverageUtilization: ptr.To[int32](50)},
			`t.type: Required value: must specify a metric target type; t.type: Invalid value: "": must be either Utilization, Value, or AverageValue`},
		{"both", autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](0), AverageValue: &neg},
			`t.averageValue: Invalid value: "-1": must be positive; t.averageUtilization: Invalid value: 0: must be greater than 0; t.averageValue: Forbidden: may not set both a target raw value and a target utilization`},
		{"neither", autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType},
			"t.averageUtilization: Required value: must set either a target raw value or a target utilization"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := causes(validateResourceTarget(&c.target, field.NewPath("t"))); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

func TestScalingRules(t *testing.T) {
	def := autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15}}}
	if got := scalingRules(nil, def.DeepCopy()); *got.StabilizationWindowSeconds != 0 || len(got.Policies) != 1 {
		t.Errorf("nil rules: %+v", got)
	}
	got := scalingRules(&autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)}, def.DeepCopy())
	if *got.StabilizationWindowSeconds != 60 || len(got.Policies) != 1 {
		t.Errorf("a window: %+v", got)
	}
	got = scalingRules(&autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}}, def.DeepCopy())
	if len(got.Policies) != 0 {
		t.Errorf("empty policies are kept (and refused by validation): %+v", got)
	}
}

func TestHealthCheckNodePortRequired(t *testing.T) {
	lb := func(policy corev1.ServiceExternalTrafficPolicy, port int32) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: policy, HealthCheckNodePort: port,
			InternalTrafficPolicy: ptr.To(corev1.ServiceInternalTrafficPolicyCluster),
		}}
	}
	for _, c := range []struct {
		name     string
		svc, old *corev1.Service
		want     string
	}{
		{"create, allocated", lb(corev1.ServiceExternalTrafficPolicyLocal, 31000), nil, ""},
		{"create, none", lb(corev1.ServiceExternalTrafficPolicyLocal, 0), nil, "spec.healthCheckNodePort: Required value"},
		{"update to Local, not allocated", lb(corev1.ServiceExternalTrafficPolicyLocal, 0), lb(corev1.ServiceExternalTrafficPolicyCluster, 0), "spec.healthCheckNodePort: Required value"},
		{"update of Local, port dropped", lb(corev1.ServiceExternalTrafficPolicyLocal, 0), lb(corev1.ServiceExternalTrafficPolicyLocal, 31000), "spec.healthCheckNodePort: Required value"},
		{"Cluster with a port", lb(corev1.ServiceExternalTrafficPolicyCluster, 31000), nil,
			"spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := causes(validateTrafficPolicies(c.svc, c.old)); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

// TestValidateCoreKindZeroValues runs every validator on empty objects, as created and as updated
// over themselves: none may panic on the nil maps, slices and pointers of an empty object.
func TestValidateCoreKindZeroValues(t *testing.T) {
	for _, obj := range []runtime.Object{
		&corev1.Service{}, &corev1.ConfigMap{}, &corev1.Secret{}, &corev1.PersistentVolumeClaim{}, &corev1.Endpoints{},
		&discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{}}, Endpoints: []discoveryv1.Endpoint{{}}},
		&rbacv1.Role{Rules: []rbacv1.PolicyRule{{}}}, &rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{}},
		&rbacv1.RoleBinding{Subjects: []rbacv1.Subject{{}}}, &rbacv1.ClusterRoleBinding{},
		&coordinationv1.Lease{}, &policyv1.PodDisruptionBudget{},
		&autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			Metrics:  []autoscalingv2.MetricSpec{{}, {Object: &autoscalingv2.ObjectMetricSource{}, Pods: &autoscalingv2.PodsMetricSource{}}},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{}},
		}},
		&networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{
			Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{}}, From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{}}}}},
		}},
		&networkingv1.Ingress{Spec: networkingv1.IngressSpec{
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{}},
			Rules:          []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{}}}}}},
			TLS:            []networkingv1.IngressTLS{{}},
		}},
		&schedulingv1.PriorityClass{}, &storagev1.StorageClass{},
	} {
		t.Run(fmt.Sprintf("%T", obj), func(t *testing.T) {
			if errs := validateCoreKind(obj, nil); len(errs) == 0 && fmt.Sprintf("%T", obj) == "*v1.Service" {
				t.Errorf("an empty service is valid")
			}
			validateCoreKind(obj, obj.DeepCopyObject())
		})
	}
}

func TestUniqueCauses(t *testing.T) {
	p := field.NewPath("spec", "scopes")
	errs := field.ErrorList{
		field.Invalid(p, []string{"A"}, "unsupported scope applied to resource"),
		field.Invalid(p, []string{"A"}, "unsupported scope applied to resource"),
		field.Invalid(p, []string{"B"}, "unsupported scope applied to resource"),
		field.Required(p, ""),
	}
	want := `spec.scopes: Invalid value: ["A"]: unsupported scope applied to resource; spec.scopes: Invalid value: ["B"]: unsupported scope applied to resource; spec.scopes: Required value`
	if got := causes(uniqueCauses(errs)); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := uniqueCauses(nil); len(got) != 0 {
		t.Errorf("nil: %v", got)
	}
}
