package fake

import (
	"maps"
	"math"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// The apiserver's defaulting (the v1 types' SetDefaults functions), for the kinds whose defaults
// are recorded in reference/observed-writes.md and reference/observed-defaults.md: pods and pod
// templates (in deployments, replica sets, replication controllers, stateful sets, daemon sets,
// jobs and cron jobs), services, jobs, cron jobs, daemon sets, stateful sets, replica sets,
// replication controllers, network policies, secrets, persistent volumes and their claims, nodes,
// and (defaults_more.go) the cluster-level and policy kinds. The apiserver defaults every object it
// decodes from a request (create, update, and the result of a patch), so the fake does it there
// too. Other kinds' defaults are not reproduced (README).

// applyDefaults sets the recorded defaults of obj.
func applyDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		scheme.Scheme.Default(o) // apiextensions' registered defaults
	case *corev1.Pod:
		if g := o.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
			// A pod's, not a template's (reference/observed-validation-workloads.md, wl-pod /
			// policies and grace period: -1 is not refused).
			o.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
		}
		defaultPodSpec(&o.Spec)
		if o.Spec.EnableServiceLinks == nil {
			o.Spec.EnableServiceLinks = ptr.To(true)
		}
		// Only a pod's own containers request what they limit, not a template's.
		for i := range o.Spec.InitContainers {
			defaultRequests(&o.Spec.InitContainers[i].Resources)
		}
		for i := range o.Spec.Containers {
			defaultRequests(&o.Spec.Containers[i].Resources)
		}
	case *corev1.Namespace:
		setNamespaceNameLabel(o)
		if o.Status.Phase == "" {
			// SetDefaults_NamespaceStatus: mutating webhooks see it (reference/observed-webhooks.md).
			o.Status.Phase = corev1.NamespaceActive
		}
	case *corev1.PodTemplate:
		defaultPodSpec(&o.Template.Spec)
	case *appsv1.Deployment:
		defaultDeployment(o)
	case *appsv1.ReplicaSet:
		defaultReplicas(&o.Spec.Replicas)
		defaultPodSpec(&o.Spec.Template.Spec)
	case *corev1.ReplicationController:
		defaultReplicas(&o.Spec.Replicas)
		if len(o.Spec.Selector) == 0 && o.Spec.Template != nil {
			o.Spec.Selector = maps.Clone(o.Spec.Template.Labels)
		}
		if len(o.Labels) == 0 && o.Spec.Template != nil {
			o.Labels = maps.Clone(o.Spec.Template.Labels)
		}
		if o.Spec.Template != nil {
			defaultPodSpec(&o.Spec.Template.Spec)
		}
	case *appsv1.StatefulSet:
		defaultStatefulSet(o)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *batchv1.Job:
		defaultJobLabels(o)
		defaultJobSpec(&o.Spec)
		defaultPodSpec(&o.Spec.Template.Spec)
	case *batchv1.CronJob:
		defaultCronJob(o)
	case *corev1.Service:
		defaultService(o)
	case *networkingv1.NetworkPolicy:
		defaultNetworkPolicy(o)
	case *corev1.Secret:
		mergeStringData(o)
		if o.Type == "" {
			o.Type = corev1.SecretTypeOpaque
		}
	case *corev1.PersistentVolumeClaim:
		defaultClaimSpec(&o.Spec)
	case *corev1.Node:
		// A node's allocatable resources are its capacity until its kubelet says otherwise.
		if o.Status.Allocatable == nil && o.Status.Capacity != nil {
			o.Status.Allocatable = o.Status.Capacity.DeepCopy()
		}
		// The apiserver's conversion through its internal type, which has podCIDRs only: a set
		// podCIDR that differs from podCIDRs[0] replaces the list, and podCIDR is podCIDRs[0].
		switch s := &o.Spec; {
		case s.PodCIDR != "" && (len(s.PodCIDRs) == 0 || s.PodCIDR != s.PodCIDRs[0]):
			s.PodCIDRs = []string{s.PodCIDR}
		case len(s.PodCIDRs) > 0:
			s.PodCIDR = s.PodCIDRs[0]
		}
	case *corev1.PersistentVolume:
		if o.Spec.PersistentVolumeReclaimPolicy == "" {
			o.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
		}
		if o.Spec.VolumeMode == nil {
			o.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		}
		if o.Spec.HostPath != nil && o.Spec.HostPath.Type == nil {
			o.Spec.HostPath.Type = ptr.To(corev1.HostPathUnset)
		}
	default:
		applyMoreDefaults(obj)
	}
}

// defaultJobLabels is the job defaulting of its labels: a job without labels gets its template's,
// as the same map (SetDefaults_Job assigns it), so that the labels the job strategy adds to the
// template later are the job's too. A template without labels when the request is decoded leaves
// the job's empty until the apiserver reads the stored job back, after validation (createHeld).
func defaultJobLabels(j *batchv1.Job) {
	if j.Spec.Template.Labels != nil && len(j.Labels) == 0 {
		j.Labels = j.Spec.Template.Labels
	}
}

func defaultReplicas(r **int32) {
	if *r == nil {
		*r = ptr.To[int32](1)
	}
}

// defaultRequests sets the requests a container limits and does not request to its limits.
func defaultRequests(r *corev1.ResourceRequirements) {
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			r.Requests[name] = q.DeepCopy()
		}
	}
}

// defaultPodSpec sets the defaults of a pod's spec and a pod template's.
func defaultPodSpec(s *corev1.PodSpec) {
	// v1's deprecated serviceAccount mirrors serviceAccountName (the v1 conversion: the name is
	// taken from it when missing, and it is written from the name).
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i], s.HostNetwork)
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i], s.HostNetwork)
	}
	for i := range s.EphemeralContainers {
		defaultContainer((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon), s.HostNetwork)
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
}

// defaultFileMode is the mode of the files of configMap, secret, downwardAPI and projected
// volumes (0644).
const defaultFileMode int32 = 0o644

// defaultVolume sets a volume's defaults: an emptyDir when it names no source, the file mode of
// projections, a hostPath's type, the API version of field references, an image volume's pull
// policy (a container image's rule: Always for the latest tag, reference/observed-validation-podspec.md,
// ps-image).
func defaultVolume(v *corev1.Volume) {
	vs := &v.VolumeSource
	if reflect.ValueOf(*vs).IsZero() {
		vs.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if vs.Image != nil && vs.Image.PullPolicy == "" {
		vs.Image.PullPolicy = corev1.PullIfNotPresent
		if tag := imageTag(vs.Image.Reference); vs.Image.Reference != "" && (tag == "" || tag == "latest") {
			vs.Image.PullPolicy = corev1.PullAlways
		}
	}
	mode := func(m **int32) {
		if *m == nil {
			*m = ptr.To(defaultFileMode)
		}
	}
	switch {
	case vs.ConfigMap != nil:
		mode(&vs.ConfigMap.DefaultMode)
	case vs.Secret != nil:
		mode(&vs.Secret.DefaultMode)
	case vs.DownwardAPI != nil:
		mode(&vs.DownwardAPI.DefaultMode)
		for i := range vs.DownwardAPI.Items {
			defaultFieldRef(vs.DownwardAPI.Items[i].FieldRef)
		}
	case vs.Projected != nil:
		mode(&vs.Projected.DefaultMode)
		for _, src := range vs.Projected.Sources {
			if src.DownwardAPI != nil {
				for i := range src.DownwardAPI.Items {
					defaultFieldRef(src.DownwardAPI.Items[i].FieldRef)
				}
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				src.ServiceAccountToken.ExpirationSeconds = ptr.To[int64](3600)
			}
		}
	case vs.HostPath != nil:
		if vs.HostPath.Type == nil {
			vs.HostPath.Type = ptr.To(corev1.HostPathUnset)
		}
	case vs.Ephemeral != nil && vs.Ephemeral.VolumeClaimTemplate != nil:
		defaultClaimSpec(&vs.Ephemeral.VolumeClaimTemplate.Spec)
	}
}

// defaultFieldRef sets the API version of a field reference.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultProbe sets a probe's thresholds, period and timeout, and an HTTP probe's path and scheme.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHandler(p.HTTPGet, p.GRPC)
}

// defaultHandler sets an HTTP action's path and scheme and a gRPC action's service.
func defaultHandler(h *corev1.HTTPGetAction, g *corev1.GRPCAction) {
	if h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
	if g != nil && g.Service == nil {
		g.Service = ptr.To("")
	}
}

// defaultClaimSpec sets a claim's volume mode.
func defaultClaimSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
}

// defaultContainer sets a container's defaults: the termination message path and policy, the
// image pull policy (Always for an image without a tag or tagged latest, else IfNotPresent), its
// ports' protocol (and host port, on the host's network), its probes, lifecycle handlers and the
// API version of its environment's field references.
func defaultContainer(c *corev1.Container, hostNetwork bool) {
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if hostNetwork && p.HostPort == 0 {
			p.HostPort = p.ContainerPort
		}
	}
	for i := range c.Env {
		if c.Env[i].ValueFrom != nil {
			defaultFieldRef(c.Env[i].ValueFrom.FieldRef)
		}
	}
	defaultProbe(c.LivenessProbe)
	defaultProbe(c.ReadinessProbe)
	defaultProbe(c.StartupProbe)
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHandler(h.HTTPGet, nil)
			}
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		// An image that does not parse (an empty one) has no tag, not "latest"
		// (reference/observed-validation-workloads.md, wl-pod / update clears image).
		if tag := imageTag(c.Image); c.Image != "" && (tag == "" || tag == "latest") {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
}

// imageTag returns the tag of an image reference ("" without one; a digest counts as a tag).
func imageTag(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		return image[i+1:]
	}
	last := image[strings.LastIndex(image, "/")+1:]
	if i := strings.LastIndex(last, ":"); i >= 0 {
		return last[i+1:]
	}
	return ""
}

// defaultDeployment sets a deployment's defaults.
func defaultDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptr.To[int32](1)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if d.Spec.Strategy.Type == "" {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if d.Spec.Strategy.RollingUpdate == nil {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		quarter := intstr.FromString("25%")
		if d.Spec.Strategy.RollingUpdate.MaxSurge == nil {
			d.Spec.Strategy.RollingUpdate.MaxSurge = &quarter
		}
		if d.Spec.Strategy.RollingUpdate.MaxUnavailable == nil {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = &quarter
		}
	}
	defaultPodSpec(&d.Spec.Template.Spec)
}

// admitPodTolerations are the tolerations the DefaultTolerationSeconds admission plugin adds to a
// pod that has none for these taints: 300 s for a not-ready or unreachable node.
func admitPodTolerations(p *corev1.Pod) {
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		found := false
		for _, t := range p.Spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				found = true
			}
		}
		if !found {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300),
			})
		}
	}
}

// defaultStatefulSet sets a stateful set's defaults, and those of its claim templates (which the
// apiserver stores as whole PersistentVolumeClaims: kind, apiVersion and a Pending phase).
func defaultStatefulSet(o *appsv1.StatefulSet) {
	s := &o.Spec
	defaultReplicas(&s.Replicas)
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
		}
		if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	for i := range s.VolumeClaimTemplates {
		c := &s.VolumeClaimTemplates[i]
		c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
		defaultClaimSpec(&c.Spec)
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.ClaimPending
		}
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultDaemonSet sets a daemon set's defaults.
func defaultDaemonSet(o *appsv1.DaemonSet) {
	s := &o.Spec
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if s.UpdateStrategy.RollingUpdate.MaxSurge == nil {
			s.UpdateStrategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultJobSpec sets a job's defaults (not those of a cron job's job template, which the
// apiserver leaves to the job it creates).
func defaultJobSpec(s *batchv1.JobSpec) {
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptr.To[int32](1)
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr.To[int32](1)
	}
	if s.BackoffLimit == nil {
		s.BackoffLimit = ptr.To[int32](6)
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr.To[int32](math.MaxInt32)
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(false)
	}
	if s.PodReplacementPolicy == nil {
		s.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr.To(batchv1.Failed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptr.To(false)
	}
	if p := s.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for j := range p.Rules[i].OnPodConditions {
				if c := &p.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
}

// defaultCronJob sets a cron job's defaults.
func defaultCronJob(o *batchv1.CronJob) {
	s := &o.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	defaultPodSpec(&s.JobTemplate.Spec.Template.Spec)
}

// defaultService sets a service's defaults: type ClusterIP, no session affinity, its ports'
// protocol and target port, and the traffic policies of its type. Its cluster IP and IP families
// are the service registry's (allocateService).
func defaultService(o *corev1.Service) {
	s := &o.Spec
	if s.Type == "" {
		s.Type = corev1.ServiceTypeClusterIP
	}
	if s.SessionAffinity == "" {
		s.SessionAffinity = corev1.ServiceAffinityNone
	}
	if s.SessionAffinity == corev1.ServiceAffinityClientIP && s.SessionAffinityConfig == nil {
		s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}}
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	externallyAccessible := s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer ||
		(s.Type == corev1.ServiceTypeClusterIP && len(s.ExternalIPs) > 0)
	if externallyAccessible && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.Type != corev1.ServiceTypeExternalName && s.InternalTrafficPolicy == nil {
		s.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if s.Type == corev1.ServiceTypeLoadBalancer && s.AllocateLoadBalancerNodePorts == nil {
		s.AllocateLoadBalancerNodePorts = ptr.To(true)
	}
	if s.Type == corev1.ServiceTypeLoadBalancer {
		// A load balancer's ingress IP is a virtual IP unless its controller says otherwise.
		for i := range o.Status.LoadBalancer.Ingress {
			if in := &o.Status.LoadBalancer.Ingress[i]; in.IP != "" && in.IPMode == nil {
				in.IPMode = ptr.To(corev1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// defaultNetworkPolicy sets its ports' protocol and its policy types: Ingress, and Egress when it
// has egress rules.
func defaultNetworkPolicy(o *networkingv1.NetworkPolicy) {
	proto := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				ports[i].Protocol = ptr.To(corev1.ProtocolTCP)
			}
		}
	}
	for _, r := range o.Spec.Ingress {
		proto(r.Ports)
	}
	for _, r := range o.Spec.Egress {
		proto(r.Ports)
	}
	if len(o.Spec.PolicyTypes) == 0 {
		o.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(o.Spec.Egress) > 0 {
			o.Spec.PolicyTypes = append(o.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}
