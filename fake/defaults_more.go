package fake

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// The defaults of the cluster-level and policy kinds: storage classes and CSI drivers,
// autoscalers, endpoints and endpoint slices, limit ranges, priority and ingress classes, RBAC
// bindings, admission webhooks and policies (reference/observed-defaults.md), flow control's
// priority levels and flow schemas, resource claims and their templates
// (reference/observed-writes-more.md). Like applyDefaults,
// they run on every object decoded from a request.

// applyMoreDefaults sets the recorded defaults of obj's kind, if it is one of these.
func applyMoreDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *storagev1.StorageClass:
		setDefault(&o.ReclaimPolicy, corev1.PersistentVolumeReclaimDelete)
		setDefault(&o.VolumeBindingMode, storagev1.VolumeBindingImmediate)
	case *storagev1.CSIDriver:
		defaultCSIDriver(&o.Spec)
	case *autoscalingv2.HorizontalPodAutoscaler:
		defaultAutoscaler(&o.Spec)
	case *corev1.Endpoints:
		for i := range o.Subsets {
			for j := range o.Subsets[i].Ports {
				if p := &o.Subsets[i].Ports[j]; p.Protocol == "" {
					p.Protocol = corev1.ProtocolTCP
				}
			}
		}
	case *discoveryv1.EndpointSlice:
		for i := range o.Ports {
			setDefault(&o.Ports[i].Name, "")
			setDefault(&o.Ports[i].Protocol, corev1.ProtocolTCP)
		}
	case *corev1.LimitRange:
		for i := range o.Spec.Limits {
			defaultLimitRangeItem(&o.Spec.Limits[i])
		}
	case *schedulingv1.PriorityClass:
		setDefault(&o.PreemptionPolicy, corev1.PreemptLowerPriority)
	case *networkingv1.IngressClass:
		if p := o.Spec.Parameters; p != nil {
			setDefault(&p.Scope, networkingv1.IngressClassParametersReferenceScopeCluster)
		}
	case *rbacv1.RoleBinding:
		defaultBinding(&o.RoleRef, o.Subjects)
	case *rbacv1.ClusterRoleBinding:
		defaultBinding(&o.RoleRef, o.Subjects)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules)
		}
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, &w.ClientConfig, w.Rules)
			setDefault(&w.ReinvocationPolicy, admissionregistrationv1.NeverReinvocationPolicy)
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		setDefault(&o.Spec.FailurePolicy, admissionregistrationv1.Fail)
		defaultMatchResources(o.Spec.MatchConstraints)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		defaultMatchResources(o.Spec.MatchResources)
	case *flowcontrolv1.FlowSchema:
		if o.Spec.MatchingPrecedence == 0 {
			o.Spec.MatchingPrecedence = 1000
		}
	case *flowcontrolv1.PriorityLevelConfiguration:
		defaultPriorityLevel(&o.Spec)
	case *resourcev1.ResourceClaim:
		defaultDeviceRequests(o.Spec.Devices.Requests)
		if a := o.Status.Allocation; a != nil {
			for i := range a.Devices.Results {
				defaultTolerations(a.Devices.Results[i].Tolerations)
			}
		}
	case *resourcev1.ResourceClaimTemplate:
		defaultDeviceRequests(o.Spec.Spec.Devices.Requests)
	}
}

// defaultPriorityLevel sets a priority level's concurrency shares (30 when limited, 0 when
// exempt), lendable percent (0) and queuing (64 queues, hand size 8, queue length 50), as
// flowcontrol/v1's defaults.
func defaultPriorityLevel(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
	if e := s.Exempt; e != nil {
		setDefault(&e.NominalConcurrencyShares, 0)
		setDefault(&e.LendablePercent, 0)
	}
	l := s.Limited
	if l == nil {
		return
	}
	setDefault(&l.NominalConcurrencyShares, 30)
	setDefault(&l.LendablePercent, 0)
	if q := l.LimitResponse.Queuing; q != nil {
		setIfZero(&q.HandSize, 8)
		setIfZero(&q.Queues, 64)
		setIfZero(&q.QueueLengthLimit, 50)
	}
}

// setIfZero sets *p to v when it is its type's zero value.
func setIfZero[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// defaultDeviceRequests sets a claim's device requests' allocation mode (ExactCount, of one
// device) and their tolerations' operator (Equal), as resource.k8s.io/v1's defaults.
func defaultDeviceRequests(reqs []resourcev1.DeviceRequest) {
	mode := func(m *resourcev1.DeviceAllocationMode, count *int64) {
		if *m == "" {
			*m = resourcev1.DeviceAllocationModeExactCount
		}
		if *m == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
	}
	for i := range reqs {
		if e := reqs[i].Exactly; e != nil {
			mode(&e.AllocationMode, &e.Count)
			defaultTolerations(e.Tolerations)
		}
		for j := range reqs[i].FirstAvailable {
			s := &reqs[i].FirstAvailable[j]
			mode(&s.AllocationMode, &s.Count)
			defaultTolerations(s.Tolerations)
		}
	}
}

// defaultTolerations sets device tolerations' operator to Equal.
func defaultTolerations(ts []resourcev1.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

// setDefault points *p at v when it is nil.
func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}

// defaultCSIDriver is SetDefaults_CSIDriver with kube-apiserver 1.37.2's default feature gates
// (SELinuxMountReadWriteOncePod and VolumeLimitScaling on).
func defaultCSIDriver(s *storagev1.CSIDriverSpec) {
	setDefault(&s.AttachRequired, true)
	setDefault(&s.PodInfoOnMount, false)
	setDefault(&s.StorageCapacity, false)
	setDefault(&s.FSGroupPolicy, storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	setDefault(&s.RequiresRepublish, false)
	setDefault(&s.SELinuxMount, false)
	setDefault(&s.PreventPodSchedulingIfMissing, false)
}

// defaultAutoscaler is autoscaling/v2's defaulting: one replica at least, a CPU utilization
// target of 80% without metrics, and the apiserver's scaling rules for what a behavior leaves
// out.
func defaultAutoscaler(s *autoscalingv2.HorizontalPodAutoscalerSpec) {
	setDefault(&s.MinReplicas, 1)
	if len(s.Metrics) == 0 {
		s.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)}}}}
	}
	if b := s.Behavior; b != nil {
		up := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
		down := &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
		b.ScaleUp = scalingRules(b.ScaleUp, up)
		b.ScaleDown = scalingRules(b.ScaleDown, down)
	}
}

// scalingRules is the apiserver's copyHPAScalingRules: the fields from sets, over the defaults.
func scalingRules(from, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return defaults
	}
	if from.SelectPolicy != nil {
		defaults.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		defaults.Policies = from.Policies
	}
	if from.Tolerance != nil {
		defaults.Tolerance = from.Tolerance
	}
	return defaults
}

// defaultLimitRangeItem fills a container limit's default limits from its maxima, and its default
// requests from its default limits, then from its minima.
func defaultLimitRangeItem(l *corev1.LimitRangeItem) {
	if l.Type != corev1.LimitTypeContainer {
		return
	}
	if l.Default == nil {
		l.Default = corev1.ResourceList{}
	}
	if l.DefaultRequest == nil {
		l.DefaultRequest = corev1.ResourceList{}
	}
	fill := func(to, from corev1.ResourceList) {
		for k, v := range from {
			if _, ok := to[k]; !ok {
				to[k] = v.DeepCopy()
			}
		}
	}
	fill(l.Default, l.Max)
	fill(l.DefaultRequest, l.Default)
	fill(l.DefaultRequest, l.Min)
}

// defaultBinding sets the RBAC API group of a binding's role reference and of its user and group
// subjects.
func defaultBinding(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		if s := &subjects[i]; s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}

// defaultWebhook sets the defaults every admission webhook has: failure policy Fail, match policy
// Equivalent, empty selectors, a 10 s timeout, port 443 of a service, and the scope "*" of rules.
func defaultWebhook(failure **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
	ns, objs **metav1.LabelSelector, timeout **int32, cc *admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations) {
	setDefault(failure, admissionregistrationv1.Fail)
	setDefault(match, admissionregistrationv1.Equivalent)
	setDefault(ns, metav1.LabelSelector{})
	setDefault(objs, metav1.LabelSelector{})
	setDefault(timeout, 10)
	if cc.Service != nil {
		setDefault(&cc.Service.Port, 443)
	}
	for i := range rules {
		setDefault(&rules[i].Scope, admissionregistrationv1.AllScopes)
	}
}

// defaultMatchResources sets an admission policy's match defaults: Equivalent, empty selectors,
// the scope "*" of its rules.
func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	setDefault(&m.MatchPolicy, admissionregistrationv1.Equivalent)
	setDefault(&m.NamespaceSelector, metav1.LabelSelector{})
	setDefault(&m.ObjectSelector, metav1.LabelSelector{})
	for i := range m.ResourceRules {
		setDefault(&m.ResourceRules[i].Scope, admissionregistrationv1.AllScopes)
	}
	for i := range m.ExcludeResourceRules {
		setDefault(&m.ExcludeResourceRules[i].Scope, admissionregistrationv1.AllScopes)
	}
}
