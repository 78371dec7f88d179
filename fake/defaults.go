package fake

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// The apiserver's defaulting, for the kinds whose defaults are recorded in
// reference/observed-writes.md (create / pod, create / deployment, create / service invalid name):
// pods, pod templates in deployments, deployments, and services' ports. The apiserver defaults every object it decodes from a request
// (create, update, and the result of a patch), so the fake does it there too. Other kinds' defaults
// are not reproduced (README).

// applyDefaults sets the recorded defaults of obj.
func applyDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		scheme.Scheme.Default(o) // apiextensions' registered defaults
	case *corev1.Pod:
		defaultPodSpec(&o.Spec)
		if o.Spec.EnableServiceLinks == nil {
			o.Spec.EnableServiceLinks = ptr.To(true)
		}
	case *appsv1.Deployment:
		defaultDeployment(o)
	case *corev1.Service:
		for i := range o.Spec.Ports {
			p := &o.Spec.Ports[i]
			if p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
			if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 {
				p.TargetPort = intstr.FromInt32(p.Port)
			}
		}
	}
}

// defaultPodSpec sets the defaults of a pod's spec and a pod template's.
func defaultPodSpec(s *corev1.PodSpec) {
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
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
}

// defaultContainer sets a container's defaults: the termination message path and policy, and the
// image pull policy (Always for an image without a tag or tagged latest, else IfNotPresent).
func defaultContainer(c *corev1.Container) {
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if tag := imageTag(c.Image); tag == "" || tag == "latest" {
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

// defaultTolerations are the tolerations the DefaultTolerationSeconds admission plugin adds to a
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
