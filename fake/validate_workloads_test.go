package fake

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// TestValidateWorkloadKind covers rules of validateWorkloadKind that the recording
// (reference/observed-validation-workloads.md) does not, as pkg/apis/{core,apps,batch}/validation
// state them; each case's causes were also checked by hand against a kube-apiserver 1.37.2 (the
// oracle). Each case lists the causes as "field: type", in order.
func TestValidateWorkloadKind(t *testing.T) {
	pod := func(mut func(*corev1.PodSpec)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
		}}
		if mut != nil {
			mut(&p.Spec)
		}
		applyDefaults(p)
		return p
	}
	job := func(name string, mut func(*batchv1.JobSpec)) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "u"}, Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		}}
		if mut != nil {
			mut(&j.Spec)
		}
		applyDefaults(j)
		generateJobSelector(j)
		return j
	}
	cronJob := func(tz string) *batchv1.CronJob {
		c := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj", Namespace: "ns"}, Spec: batchv1.CronJobSpec{
			Schedule: "@hourly", TimeZone: &tz,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}},
		}}
		applyDefaults(c)
		return c
	}
	daemonSet := func(unavailable, surge intstr.IntOrString) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns"}, Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &unavailable, MaxSurge: &surge}},
		}}
		applyDefaults(d)
		return d
	}
	deployment := func(st appsv1.DeploymentStatus) *appsv1.Deployment {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}, Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		}, Status: st}
		applyDefaults(d)
		return d
	}
	suspended := func(mut func(*batchv1.JobSpec)) *batchv1.Job {
		return job("j", func(s *batchv1.JobSpec) {
			s.Suspend = ptr.To(true)
			if mut != nil {
				mut(s)
			}
		})
	}
	statefulSet := func(claim corev1.PersistentVolumeClaimSpec) *appsv1.StatefulSet {
		ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ss", Namespace: "ns"}, Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: claim}},
		}}
		applyDefaults(ss)
		return ss
	}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	for _, tc := range []struct {
		name     string
		obj, old runtime.Object
		want     []string
	}{
		{name: "valid pod", obj: pod(nil)},
		{name: "init container probe", obj: pod(func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", LivenessProbe: probe}}
		}), want: []string{"spec.initContainers[0].livenessProbe: FieldValueForbidden"}},
		{name: "sidecar probe", obj: pod(func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", LivenessProbe: probe, RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		})},
		{name: "lifecycle hooks", obj: pod(func(s *corev1.PodSpec) {
			s.TerminationGracePeriodSeconds = ptr.To[int64](10)
			s.Containers[0].Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{},
				PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 20}, Exec: &corev1.ExecAction{Command: []string{"x"}}}}
		}), want: []string{"spec.containers[0].lifecycle.postStart: FieldValueRequired", "spec.containers[0].lifecycle.preStop.sleep: FieldValueForbidden"}},
		{name: "preStop sleep beyond the grace period", obj: pod(func(s *corev1.PodSpec) {
			s.TerminationGracePeriodSeconds = ptr.To[int64](10)
			s.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 20}}}
		}), want: []string{"spec.containers[0].lifecycle.preStop.sleep: FieldValueInvalid"}},
		{name: "extended resource without limit", obj: pod(func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
		}), want: []string{"spec.containers[0].resources.limits: FieldValueRequired"}},
		{name: "unknown resource name", obj: pod(func(s *corev1.PodSpec) {
			s.Containers[0].Resources.Limits = corev1.ResourceList{"foo": resource.MustParse("1")}
		}), want: []string{"spec.containers[0].resources.limits[foo]: FieldValueInvalid", "spec.containers[0].resources.limits[foo]: FieldValueInvalid",
			"spec.containers[0].resources.requests[foo]: FieldValueInvalid", "spec.containers[0].resources.requests[foo]: FieldValueInvalid"}},
		{name: "pod status-only update", obj: func() runtime.Object {
			p := pod(func(s *corev1.PodSpec) { s.Containers = nil })
			p.Status.Phase = corev1.PodRunning
			return p
		}(), old: pod(func(s *corev1.PodSpec) { s.Containers = nil })},
		{name: "indexed job name too long for its pods", obj: job(strings.Repeat("j", 62), func(s *batchv1.JobSpec) {
			s.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			s.Completions = ptr.To[int32](10)
		}), want: []string{"metadata.name: FieldValueInvalid"}},
		{name: "job completions immutable", obj: job("j", func(s *batchv1.JobSpec) { s.Completions = ptr.To[int32](2) }),
			old: job("j", nil), want: []string{"spec.completions: FieldValueInvalid"}},
		{name: "cron job Local time zone", obj: cronJob("Local"), want: []string{"spec.timeZone: FieldValueInvalid"}},
		{name: "cron job unknown time zone", obj: cronJob("Mars/Olympus_Mons"), want: []string{"spec.timeZone: FieldValueInvalid"}},
		{name: "cron job time zone", obj: cronJob("Europe/Paris")},
		{name: "daemon set surge and unavailable", obj: daemonSet(intstr.FromInt32(1), intstr.FromInt32(1)),
			want: []string{"spec.updateStrategy.rollingUpdate.maxSurge: FieldValueInvalid"}},
		{name: "daemon set surge only", obj: daemonSet(intstr.FromInt32(0), intstr.FromString("10%"))},
		{name: "deployment status", obj: deployment(appsv1.DeploymentStatus{Replicas: -1}), old: deployment(appsv1.DeploymentStatus{}),
			want: []string{"status.replicas: FieldValueInvalid", "status.updatedReplicas: FieldValueInvalid", "status.readyReplicas: FieldValueInvalid", "status.availableReplicas: FieldValueInvalid"}},
		{name: "deployment status above replicas", obj: deployment(appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 3, UpdatedReplicas: 4}), old: deployment(appsv1.DeploymentStatus{}),
			want: []string{"status.updatedReplicas: FieldValueInvalid", "status.readyReplicas: FieldValueInvalid", "status.availableReplicas: FieldValueInvalid", "status.availableReplicas: FieldValueInvalid"}},
		{name: "daemon set collision count decremented", obj: func() runtime.Object {
			d := daemonSet(intstr.FromInt32(1), intstr.FromInt32(0))
			d.Status.CollisionCount = ptr.To[int32](0)
			return d
		}(), old: func() runtime.Object {
			d := daemonSet(intstr.FromInt32(1), intstr.FromInt32(0))
			d.Status.CollisionCount = ptr.To[int32](1)
			return d
		}(), want: []string{"status.collisionCount: FieldValueInvalid"}},
		{name: "suspended job image", obj: suspended(func(s *batchv1.JobSpec) { s.Template.Spec.Containers[0].Image = "busybox:2" }),
			old: suspended(nil), want: []string{"spec.template.spec: FieldValueInvalid"}},
		{name: "suspended job node selector, labels and resources", obj: suspended(func(s *batchv1.JobSpec) {
			s.Template.Spec.NodeSelector = map[string]string{"a": "b"}
			s.Template.Labels = map[string]string{"x": "y"}
			s.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}), old: suspended(nil)},
		{name: "claim template without modes and storage", obj: statefulSet(corev1.PersistentVolumeClaimSpec{}),
			want: []string{"spec.volumeClaimTemplates[0].spec.accessModes: FieldValueRequired", "spec.volumeClaimTemplates[0].spec.resources[storage]: FieldValueRequired"}},
		{name: "claim template modes, storage, class, volume mode", obj: statefulSet(corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce, "Bogus"},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("0")}},
			StorageClassName: ptr.To("Bad_Class"), VolumeMode: ptr.To(corev1.PersistentVolumeMode("Bogus")),
		}), want: []string{"spec.volumeClaimTemplates[0].spec.accessModes: FieldValueNotSupported", "spec.volumeClaimTemplates[0].spec.accessModes: FieldValueForbidden",
			"spec.volumeClaimTemplates[0].spec.resources[storage]: FieldValueInvalid", "spec.volumeClaimTemplates[0].spec.storageClassName: FieldValueInvalid",
			"spec.volumeClaimTemplates[0].spec.volumeMode: FieldValueNotSupported"}},
		{name: "running job node selector", obj: job("j", func(s *batchv1.JobSpec) { s.Template.Spec.NodeSelector = map[string]string{"a": "b"} }),
			old: job("j", nil), want: []string{"spec.template: FieldValueInvalid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range validateWorkloadKind(tc.obj, tc.old) {
				got = append(got, e.Field+": "+string(e.Type))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("causes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCauseOrder covers how validate lists causes: each once, in the order found, and a
// replication controller's declaratively validated ones last, name, replicas, minReadySeconds
// (reference/observed-validation-workloads.md, wl-pod / update clears image and breaks a label,
// wl-rc / bad name and label, spec errors).
func TestCauseOrder(t *testing.T) {
	name := field.Invalid(field.NewPath("metadata", "name"), "Bad_RC", "bad")
	labels := field.Invalid(field.NewPath("metadata", "labels"), "a b", "bad")
	image := field.Required(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("image"), "")
	replicas := field.Invalid(field.NewPath("spec", "replicas"), -1, "negative")
	minReady := field.Invalid(field.NewPath("spec", "minReadySeconds"), -1, "negative")
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		errs field.ErrorList
		want field.ErrorList
	}{
		{"duplicates dropped", &corev1.Pod{}, field.ErrorList{labels, image, labels, image}, field.ErrorList{labels, image}},
		{"same field, other detail kept", &corev1.Pod{}, field.ErrorList{replicas, field.Invalid(field.NewPath("spec", "replicas"), -1, "other")},
			field.ErrorList{replicas, field.Invalid(field.NewPath("spec", "replicas"), -1, "other")}},
		{"replication controller", &corev1.ReplicationController{}, field.ErrorList{name, labels, image, minReady, replicas},
			field.ErrorList{labels, image, name, replicas, minReady}},
		{"deployment keeps its order", &appsv1.Deployment{}, field.ErrorList{name, replicas, labels}, field.ErrorList{name, replicas, labels}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want []string
			for _, e := range declarativeLast(tc.obj, uniqueCauses(tc.errs)) {
				got = append(got, e.Error())
			}
			for _, e := range tc.want {
				want = append(want, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
