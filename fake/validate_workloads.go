package fake

import (
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The apiserver's spec validation of pods and the workload kinds (pkg/apis/core/validation,
// pkg/apis/apps/validation, pkg/apis/batch/validation in k8s.io/kubernetes, which the fake may not
// import), recorded in reference/observed-validation-workloads.md: pod specs and templates
// (validate_podspec.go), jobs and cron jobs (validate_jobs.go), selectors that must be set,
// non-empty and match the template's labels, replica counts and the other non-negative numbers,
// the restart policy each controller allows, update strategies, immutable selectors and stateful
// set fields, the status of the apps kinds. The callers put the ObjectMeta causes first, as the
// apiserver's validators do, and these after them in one 422.

// validateWorkloadKind validates the spec of a pod or a workload on create (old nil) or on an
// update of the main resource. An update that leaves the spec as stored (a status or metadata
// write) does not validate it again: the stored spec passed on create, or was seeded without
// admission, which the apiserver cannot have; a status write validates the status
// (validateWorkloadStatus).
func validateWorkloadKind(obj, old runtime.Object) field.ErrorList {
	switch obj.(type) {
	case *corev1.Pod, *corev1.PodTemplate, *corev1.ReplicationController, *appsv1.Deployment, *appsv1.ReplicaSet,
		*appsv1.StatefulSet, *appsv1.DaemonSet, *batchv1.Job, *batchv1.CronJob:
	default:
		return nil // the kinds below are all this validates: another's spec is not compared
	}
	if old != nil && !specChanged(obj, old) {
		return validateWorkloadStatus(obj, old)
	}
	spec := field.NewPath("spec")
	switch o := obj.(type) {
	case *corev1.Pod:
		errs := validatePodSpec(&o.Spec, o.Name, spec)
		errs = append(errs, validatePodOnly(&o.Spec, spec)...)
		if old == nil {
			if len(o.Spec.EphemeralContainers) > 0 {
				errs = append(errs, field.Forbidden(spec.Child("ephemeralContainers"), "cannot be set on create"))
			}
			if o.Spec.NodeName != "" && len(o.Spec.SchedulingGates) > 0 {
				errs = append(errs, field.Forbidden(spec.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
			}
			return errs
		}
		return append(errs, validatePodSpecUpdate(o, old.(*corev1.Pod))...)
	case *corev1.PodTemplate:
		return validatePodTemplateSpec(&o.Template, field.NewPath("template"))
	case *corev1.ReplicationController:
		return validateReplicationControllerSpec(&o.Spec, spec)
	case *appsv1.Deployment:
		errs := validateDeploymentSpec(&o.Spec, spec)
		if old != nil {
			errs = append(errs, validateImmutable(o.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector, spec.Child("selector"))...)
		}
		return errs
	case *appsv1.ReplicaSet:
		errs := validateReplicaSetSpec(&o.Spec, spec)
		if old != nil {
			errs = append(errs, validateImmutable(o.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector, spec.Child("selector"))...)
		}
		return errs
	case *appsv1.StatefulSet:
		if old == nil {
			return validateStatefulSetSpec(&o.Spec, spec, false)
		}
		prev := old.(*appsv1.StatefulSet)
		errs := validateStatefulSetSpec(&o.Spec, spec, true)
		errs = append(errs, validateImmutable(o.Spec.Selector, prev.Spec.Selector, spec.Child("selector"))...)
		if !equality.Semantic.DeepEqual(o.Spec.VolumeClaimTemplates, prev.Spec.VolumeClaimTemplates) {
			errs = append(errs, field.Invalid(spec.Child("volumeClaimTemplates"), o.Spec.VolumeClaimTemplates, apimachineryvalidation.FieldImmutableErrorMsg))
		}
		errs = append(errs, validateImmutable(o.Spec.ServiceName, prev.Spec.ServiceName, spec.Child("serviceName"))...)
		return append(errs, validateImmutable(string(o.Spec.PodManagementPolicy), string(prev.Spec.PodManagementPolicy), spec.Child("podManagementPolicy"))...)
	case *appsv1.DaemonSet:
		var errs field.ErrorList
		if old != nil {
			errs = validateImmutable(o.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector, spec.Child("selector"))
		}
		return append(errs, validateDaemonSetSpec(&o.Spec, spec)...)
	case *batchv1.Job:
		if old == nil {
			return validateJobCreate(o)
		}
		return validateJobUpdate(o, old.(*batchv1.Job))
	case *batchv1.CronJob:
		var prev *batchv1.CronJobSpec
		if old != nil {
			prev = &old.(*batchv1.CronJob).Spec
		}
		errs := validateCronJobSpec(&o.Spec, prev, spec)
		if old == nil && len(o.Name) > validation.DNS1035LabelMaxLength-11 {
			// The controller's job names add 11 characters ("-<timestamp>") to the cron job's.
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), o.Name, "must be no more than 52 characters"))
		}
		return errs
	}
	return nil
}

// declarativeLast puts a replication controller's causes in the apiserver's order: the rules it
// validates declaratively (the name, replicas, minReadySeconds) report after the handwritten ones
// (reference/observed-validation-workloads.md, wl-rc). Other kinds' causes are left as they are.
func declarativeLast(obj runtime.Object, errs field.ErrorList) field.ErrorList {
	if _, ok := obj.(*corev1.ReplicationController); !ok {
		return errs
	}
	rank := map[string]int{"metadata.name": 1, "spec.replicas": 2, "spec.minReadySeconds": 3}
	slices.SortStableFunc(errs, func(a, b *field.Error) int { return rank[a.Field] - rank[b.Field] })
	return errs
}

// validateWorkloadStatus is the apiserver's status validation of deployments, replica sets,
// stateful sets and daemon sets, for a write that changed the status: non-negative counts, no
// more ready, available or updated replicas than replicas, a collision count that does not go
// down. Other kinds' statuses are not validated.
func validateWorkloadStatus(obj, old runtime.Object) field.ErrorList {
	st := field.NewPath("status")
	nonNegative := func(errs field.ErrorList, fields ...any) field.ErrorList {
		for i := 0; i < len(fields); i += 2 {
			switch v := fields[i+1].(type) {
			case int32:
				errs = append(errs, validateNonNegative(v, st.Child(fields[i].(string)))...)
			case int64:
				errs = append(errs, validateNonNegative(v, st.Child(fields[i].(string)))...)
			case *int32:
				if v != nil {
					errs = append(errs, validateNonNegative(*v, st.Child(fields[i].(string)))...)
				}
			}
		}
		return errs
	}
	notAbove := func(errs field.ErrorList, name string, v, max int32, msg string) field.ErrorList {
		if v > max {
			errs = append(errs, field.Invalid(st.Child(name), v, msg))
		}
		return errs
	}
	decremented := func(errs field.ErrorList, v, prev *int32) field.ErrorList {
		if prev != nil && (v == nil || *v < *prev) {
			errs = append(errs, field.Invalid(st.Child("collisionCount"), ptr.Deref(v, 0), "cannot be decremented"))
		}
		return errs
	}
	const aboveReplicas = "cannot be greater than status.replicas"
	switch o := obj.(type) {
	case *appsv1.Deployment:
		s := o.Status
		if equality.Semantic.DeepEqual(s, old.(*appsv1.Deployment).Status) {
			return nil
		}
		errs := nonNegative(nil, "observedGeneration", s.ObservedGeneration, "replicas", s.Replicas, "updatedReplicas", s.UpdatedReplicas,
			"readyReplicas", s.ReadyReplicas, "availableReplicas", s.AvailableReplicas, "unavailableReplicas", s.UnavailableReplicas,
			"terminatingReplicas", s.TerminatingReplicas, "collisionCount", s.CollisionCount)
		errs = notAbove(errs, "updatedReplicas", s.UpdatedReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "readyReplicas", s.ReadyReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "availableReplicas", s.AvailableReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "availableReplicas", s.AvailableReplicas, s.ReadyReplicas, "cannot be greater than readyReplicas")
		return decremented(errs, s.CollisionCount, old.(*appsv1.Deployment).Status.CollisionCount)
	case *appsv1.ReplicaSet:
		s := o.Status
		if equality.Semantic.DeepEqual(s, old.(*appsv1.ReplicaSet).Status) {
			return nil
		}
		errs := nonNegative(nil, "replicas", s.Replicas, "fullyLabeledReplicas", s.FullyLabeledReplicas, "readyReplicas", s.ReadyReplicas,
			"availableReplicas", s.AvailableReplicas, "observedGeneration", s.ObservedGeneration, "terminatingReplicas", s.TerminatingReplicas)
		errs = notAbove(errs, "fullyLabeledReplicas", s.FullyLabeledReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "readyReplicas", s.ReadyReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "availableReplicas", s.AvailableReplicas, s.Replicas, aboveReplicas)
		return notAbove(errs, "availableReplicas", s.AvailableReplicas, s.ReadyReplicas, "cannot be greater than readyReplicas")
	case *appsv1.StatefulSet:
		s := o.Status
		if equality.Semantic.DeepEqual(s, old.(*appsv1.StatefulSet).Status) {
			return nil
		}
		errs := nonNegative(nil, "replicas", s.Replicas, "readyReplicas", s.ReadyReplicas, "currentReplicas", s.CurrentReplicas,
			"updatedReplicas", s.UpdatedReplicas, "availableReplicas", s.AvailableReplicas, "observedGeneration", s.ObservedGeneration, "collisionCount", s.CollisionCount)
		errs = notAbove(errs, "readyReplicas", s.ReadyReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "currentReplicas", s.CurrentReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "updatedReplicas", s.UpdatedReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "availableReplicas", s.AvailableReplicas, s.Replicas, aboveReplicas)
		errs = notAbove(errs, "availableReplicas", s.AvailableReplicas, s.ReadyReplicas, "cannot be greater than status.readyReplicas")
		return decremented(errs, s.CollisionCount, old.(*appsv1.StatefulSet).Status.CollisionCount)
	case *appsv1.DaemonSet:
		s := o.Status
		if equality.Semantic.DeepEqual(s, old.(*appsv1.DaemonSet).Status) {
			return nil
		}
		errs := nonNegative(nil, "currentNumberScheduled", s.CurrentNumberScheduled, "numberMisscheduled", s.NumberMisscheduled,
			"desiredNumberScheduled", s.DesiredNumberScheduled, "numberReady", s.NumberReady, "observedGeneration", s.ObservedGeneration,
			"updatedNumberScheduled", s.UpdatedNumberScheduled, "numberAvailable", s.NumberAvailable, "numberUnavailable", s.NumberUnavailable,
			"collisionCount", s.CollisionCount)
		return decremented(errs, s.CollisionCount, old.(*appsv1.DaemonSet).Status.CollisionCount)
	case *batchv1.Job:
		// The counters' rules of ValidateJobStatusUpdate; those of its conditions, indexes and
		// times are not reproduced.
		s, was := o.Status, old.(*batchv1.Job).Status
		if equality.Semantic.DeepEqual(s, was) {
			return nil
		}
		errs := nonNegative(nil, "active", s.Active, "succeeded", s.Succeeded, "failed", s.Failed, "ready", s.Ready, "terminating", s.Terminating)
		if s.Ready != nil && *s.Ready > s.Active && (!ptr.Equal(s.Ready, was.Ready) || s.Active != was.Active) {
			errs = append(errs, field.Invalid(st.Child("ready"), *s.Ready, "cannot set more ready pods than active"))
		}
		if s.Failed < was.Failed {
			errs = append(errs, field.Invalid(st.Child("failed"), s.Failed, "cannot decrease the failed counter"))
		}
		indexed := ptr.Deref(o.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
		if s.Succeeded < was.Succeeded && (!indexed || !ptr.Equal(o.Spec.Completions, o.Spec.Parallelism)) {
			errs = append(errs, field.Invalid(st.Child("succeeded"), s.Succeeded, "cannot decrease the succeeded counter"))
		}
		return errs
	}
	return nil
}

// validateImmutable is the apiserver's ValidateImmutableField.
func validateImmutable[T any](v, old T, fldPath *field.Path) field.ErrorList {
	if equality.Semantic.DeepEqual(v, old) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, v, apimachineryvalidation.FieldImmutableErrorMsg)}
}

// validateNonNegative is the apiserver's ValidateNonnegativeField.
func validateNonNegative[T int32 | int64](v T, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(int64(v), fldPath)
}

// validateSelectorStrict validates a required, non-empty label selector of a deployment, replica
// set or stateful set; kind names the resource in the empty selector's message.
func validateSelectorStrict(sel *metav1.LabelSelector, fldPath *field.Path, kind string) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, fldPath)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(fldPath, sel, "empty selector is invalid for "+kind))
	}
	return errs
}

// validateTemplateMatches is the check every controller makes of its template: the selector,
// unless it is empty, must select the template's labels.
func validateTemplateMatches(sel labels.Selector, t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	if sel.Empty() || sel.Matches(labels.Set(t.Labels)) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`")}
}

// validateRestartAlways is the restart policy a replicating controller's template must have;
// kind names it in activeDeadlineSeconds' message.
func validateRestartAlways(t *corev1.PodTemplateSpec, fldPath *field.Path, kind string) field.ErrorList {
	var errs field.ErrorList
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// validateReplicationControllerSpec is the apiserver's ValidateReplicationControllerSpec. Its
// replicas and minReadySeconds rules are declarative there, and their causes come after the
// others (reference/observed-validation-workloads.md, wl-rc / selector mismatch, negative
// replicas, restartPolicy).
func validateReplicationControllerSpec(s *corev1.ReplicationControllerSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	sel := labels.Set(s.Selector).AsSelector()
	if sel.Empty() {
		errs = append(errs, field.Required(fldPath.Child("selector"), ""))
	}
	if tp := fldPath.Child("template"); s.Template == nil {
		errs = append(errs, field.Required(tp, ""))
	} else {
		errs = append(errs, validateTemplateMatches(sel, s.Template, tp)...)
		errs = append(errs, validatePodTemplateSpec(s.Template, tp)...)
		errs = append(errs, validateRestartAlways(s.Template, tp, "ReplicationController")...)
	}
	if s.Replicas == nil {
		errs = append(errs, field.Required(fldPath.Child("replicas"), ""))
	} else {
		errs = append(errs, validateNonNegative(*s.Replicas, fldPath.Child("replicas"))...)
	}
	return append(errs, validateNonNegative(s.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
}

// validateReplicaSetTemplate is the apiserver's ValidatePodTemplateSpecForReplicaSet (deployments
// and replica sets), or its 422 for a selector that does not parse, at specPath.
func validateReplicaSetTemplate(sel *metav1.LabelSelector, t *corev1.PodTemplateSpec, specPath *field.Path, kind string) field.ErrorList {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return field.ErrorList{field.Invalid(specPath.Child("selector"), sel, "invalid label selector")}
	}
	fldPath := specPath.Child("template")
	errs := validateTemplateMatches(s, t, fldPath)
	errs = append(errs, validatePodTemplateSpec(t, fldPath)...)
	return append(errs, validateRestartAlways(t, fldPath, kind)...)
}

// validateDeploymentSpec is the apiserver's ValidateDeploymentSpec.
func validateDeploymentSpec(s *appsv1.DeploymentSpec, fldPath *field.Path) field.ErrorList {
	errs := validateNonNegative(ptr.Deref(s.Replicas, 0), fldPath.Child("replicas"))
	errs = append(errs, validateSelectorStrict(s.Selector, fldPath.Child("selector"), "deployment")...)
	errs = append(errs, validateReplicaSetTemplate(s.Selector, &s.Template, fldPath, "ReplicaSet")...)
	errs = append(errs, validateDeploymentStrategy(&s.Strategy, fldPath.Child("strategy"))...)
	errs = append(errs, validateNonNegative(s.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validateNonNegative(*s.RevisionHistoryLimit, fldPath.Child("revisionHistoryLimit"))...)
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		errs = append(errs, validateNonNegative(*p, fldPath.Child("progressDeadlineSeconds"))...)
		if *p <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(fldPath.Child("progressDeadlineSeconds"), *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// internalDeploymentStrategy is how the apiserver prints a deployment's strategy in a cause: the
// JSON of its internal type, which has no JSON tags.
type internalDeploymentStrategy struct {
	Type          appsv1.DeploymentStrategyType
	RollingUpdate *internalRollingUpdate
}

// internalRollingUpdate is the internal RollingUpdateDeployment and RollingUpdateDaemonSet.
type internalRollingUpdate struct {
	MaxUnavailable intstr.IntOrString
	MaxSurge       intstr.IntOrString
}

// validateDeploymentStrategy is the apiserver's ValidateDeploymentStrategy.
func validateDeploymentStrategy(s *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		ru, p := s.RollingUpdate, fldPath.Child("rollingUpdate")
		unavailable, surge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
		errs := validatePositiveIntOrPercent(unavailable, p.Child("maxUnavailable"))
		errs = append(errs, validatePositiveIntOrPercent(surge, p.Child("maxSurge"))...)
		if intOrPercentValue(unavailable) == 0 && intOrPercentValue(surge) == 0 {
			errs = append(errs, field.Invalid(p.Child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0"))
		}
		return append(errs, notMoreThan100Percent(unavailable, p.Child("maxUnavailable"))...)
	default:
		in := internalDeploymentStrategy{Type: s.Type}
		if ru := s.RollingUpdate; ru != nil {
			in.RollingUpdate = &internalRollingUpdate{MaxUnavailable: intOrZero(ru.MaxUnavailable), MaxSurge: intOrZero(ru.MaxSurge)}
		}
		return field.ErrorList{field.NotSupported(fldPath, in, []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

// intOrZero is an optional int-or-percent, 0 when unset (as the internal types hold it).
func intOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

// validatePositiveIntOrPercent is the apiserver's ValidatePositiveIntOrPercent.
func validatePositiveIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if v.Type == intstr.String {
		var errs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fldPath, v, msg))
		}
		return errs
	}
	return validateNonNegative(int64(v.IntValue()), fldPath)
}

// percentValue is a percent string's number.
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) > 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// intOrPercentValue is the number of an int or a percent string (0 for an invalid string).
func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// notMoreThan100Percent is the apiserver's IsNotMoreThan100Percent.
func notMoreThan100Percent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(fldPath, v, "must not be greater than 100%")}
	}
	return nil
}

// validateReplicaSetSpec is the apiserver's ValidateReplicaSetSpec.
func validateReplicaSetSpec(s *appsv1.ReplicaSetSpec, fldPath *field.Path) field.ErrorList {
	errs := validateNonNegative(ptr.Deref(s.Replicas, 0), fldPath.Child("replicas"))
	errs = append(errs, validateNonNegative(s.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	// The apiserver's message says deployment for replica sets too.
	errs = append(errs, validateSelectorStrict(s.Selector, fldPath.Child("selector"), "deployment")...)
	return append(errs, validateReplicaSetTemplate(s.Selector, &s.Template, fldPath, "ReplicaSet")...)
}

// internalStatefulSetStrategy is how the apiserver prints a stateful set's update strategy.
type internalStatefulSetStrategy struct {
	Type          appsv1.StatefulSetUpdateStrategyType
	RollingUpdate *internalStatefulSetRollingUpdate
}

// internalStatefulSetRollingUpdate is the internal RollingUpdateStatefulSetStrategy.
type internalStatefulSetRollingUpdate struct {
	Partition      int32
	MaxUnavailable *intstr.IntOrString
}

// validateStatefulSetSpec is the apiserver's ValidateStatefulSetSpec; update tolerates an invalid
// service name (it is immutable) and does not validate the claim templates again.
func validateStatefulSetSpec(s *appsv1.StatefulSetSpec, fldPath *field.Path, update bool) field.ErrorList {
	var errs field.ErrorList
	switch s.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(fldPath.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(fldPath.Child("podManagementPolicy"), s.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	us := fldPath.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case "":
		errs = append(errs, field.Required(us, ""))
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, field.Invalid(us.Child("rollingUpdate"), toInternalStatefulSetRollingUpdate(s.UpdateStrategy.RollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil {
			p := us.Child("rollingUpdate")
			errs = append(errs, validateNonNegative(ptr.Deref(ru.Partition, 0), p.Child("partition"))...)
			if mu := ru.MaxUnavailable; mu != nil {
				errs = append(errs, validatePositiveIntOrPercent(*mu, p.Child("maxUnavailable"))...)
				if intOrPercentValue(*mu) == 0 {
					errs = append(errs, field.Invalid(p.Child("maxUnavailable"), *mu, "cannot be 0"))
				}
				errs = append(errs, notMoreThan100Percent(*mu, p.Child("maxUnavailable"))...)
			}
		}
	default:
		in := internalStatefulSetStrategy{Type: s.UpdateStrategy.Type, RollingUpdate: toInternalStatefulSetRollingUpdate(s.UpdateStrategy.RollingUpdate)}
		errs = append(errs, field.Invalid(us, in, "must be 'RollingUpdate' or 'OnDelete'"))
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p != nil {
		for _, c := range []struct {
			v    appsv1.PersistentVolumeClaimRetentionPolicyType
			name string
		}{{p.WhenDeleted, "whenDeleted"}, {p.WhenScaled, "whenScaled"}} {
			if c.v != appsv1.RetainPersistentVolumeClaimRetentionPolicyType && c.v != appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
				errs = append(errs, field.NotSupported(fldPath.Child("persistentVolumeClaimRetentionPolicy", c.name), c.v, []string{"Retain", "Delete"}))
			}
		}
	}
	if !update {
		for i := range s.VolumeClaimTemplates {
			errs = append(errs, validateClaimTemplateSpec(&s.VolumeClaimTemplates[i].Spec, fldPath.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
		}
	}
	errs = append(errs, validateNonNegative(ptr.Deref(s.Replicas, 0), fldPath.Child("replicas"))...)
	errs = append(errs, validateNonNegative(s.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	if s.Ordinals != nil {
		errs = append(errs, validateNonNegative(s.Ordinals.Start, fldPath.Child("ordinals.start"))...)
	}
	if !update && s.ServiceName != "" {
		errs = append(errs, validateDNSLabel(s.ServiceName, fldPath.Child("serviceName"))...)
	}
	errs = append(errs, validateSelectorStrict(s.Selector, fldPath.Child("selector"), "statefulset")...)
	sel, err := metav1.LabelSelectorAsSelector(s.Selector)
	if err != nil {
		errs = append(errs, field.Invalid(fldPath.Child("selector"), s.Selector, ""))
	} else {
		// The controller sets the pods' hostname and subdomain and adds a volume per claim
		// template: the apiserver validates the template as the pods will be.
		t := &s.Template
		if t.Spec.Subdomain != "" || t.Spec.Hostname != "" || len(s.VolumeClaimTemplates) > 0 {
			t = t.DeepCopy()
			t.Spec.Subdomain, t.Spec.Hostname = "", ""
			if len(s.VolumeClaimTemplates) > 0 {
				vols := make([]corev1.Volume, 0, len(s.VolumeClaimTemplates)+len(t.Spec.Volumes))
				claims := map[string]bool{}
				for _, c := range s.VolumeClaimTemplates {
					claims[c.Name] = true
					vols = append(vols, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
				}
				for _, v := range t.Spec.Volumes {
					if !claims[v.Name] {
						vols = append(vols, v)
					}
				}
				t.Spec.Volumes = vols
			}
		}
		tp := fldPath.Child("template")
		errs = append(errs, validateTemplateMatches(sel, t, tp)...)
		errs = append(errs, validatePodTemplateSpec(t, tp)...)
		errs = append(errs, metav1validation.ValidateLabels(t.Labels, tp.Child("labels"))...)
		errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, tp.Child("annotations"))...)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), s.Template.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if s.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return errs
}

// validateClaimTemplateSpec is the apiserver's ValidatePersistentVolumeClaimSpec for a stateful
// set's claim template, for its common rules: access modes (at least one, supported,
// ReadWriteOncePod alone), a positive storage request, the storage class name, the volume mode.
// Data sources and selectors are not validated.
func validateClaimTemplateSpec(s *corev1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(fldPath.Child("accessModes"), "at least 1 access mode is required"))
	}
	errs = append(errs, validateAccessModes(s.AccessModes, fldPath.Child("accessModes"))...)
	sp := fldPath.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(sp, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(sp, q.String(), "must be greater than zero"))
	}
	if c := ptr.Deref(s.StorageClassName, ""); c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(c, false) {
			errs = append(errs, field.Invalid(fldPath.Child("storageClassName"), c, msg))
		}
	}
	if m := s.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.NotSupported(fldPath.Child("volumeMode"), *m, []corev1.PersistentVolumeMode{corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem}))
	}
	return append(errs, validateClaimDataSources(s, fldPath)...)
}

// toInternalStatefulSetRollingUpdate is a rolling update as the apiserver prints it.
func toInternalStatefulSetRollingUpdate(ru *appsv1.RollingUpdateStatefulSetStrategy) *internalStatefulSetRollingUpdate {
	if ru == nil {
		return nil
	}
	return &internalStatefulSetRollingUpdate{Partition: ptr.Deref(ru.Partition, 0), MaxUnavailable: ru.MaxUnavailable}
}

// internalDaemonSetStrategy is how the apiserver prints a daemon set's update strategy.
type internalDaemonSetStrategy struct {
	Type          appsv1.DaemonSetUpdateStrategyType
	RollingUpdate *internalRollingUpdate
}

// validateDaemonSetSpec is the apiserver's ValidateDaemonSetSpec. A missing selector selects
// nothing, so that only the template's labels are reported.
func validateDaemonSetSpec(s *appsv1.DaemonSetSpec, fldPath *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))
	tp := fldPath.Child("template")
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	if s.Selector != nil && len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("selector"), s.Selector, "empty selector is invalid for daemonset"))
	}
	errs = append(errs, validatePodTemplateSpec(&s.Template, tp)...)
	errs = append(errs, validateRestartAlways(&s.Template, tp, "DaemonSet")...)
	errs = append(errs, validateNonNegative(s.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	us := fldPath.Child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		ru := s.UpdateStrategy.RollingUpdate
		if ru == nil {
			errs = append(errs, field.Required(us.Child("rollingUpdate"), ""))
			break
		}
		p := us.Child("rollingUpdate")
		unavailable, surge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
		errs = append(errs, validatePositiveIntOrPercent(unavailable, p.Child("maxUnavailable"))...)
		errs = append(errs, validatePositiveIntOrPercent(surge, p.Child("maxSurge"))...)
		errs = append(errs, notMoreThan100Percent(unavailable, p.Child("maxUnavailable"))...)
		errs = append(errs, notMoreThan100Percent(surge, p.Child("maxSurge"))...)
		hasUnavailable, hasSurge := intOrPercentValue(unavailable) != 0, intOrPercentValue(surge) != 0
		switch {
		case hasUnavailable && hasSurge:
			errs = append(errs, field.Invalid(p.Child("maxSurge"), surge, "may not be set when maxUnavailable is non-zero"))
		case !hasUnavailable && !hasSurge:
			errs = append(errs, field.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
	default:
		in := internalDaemonSetStrategy{Type: s.UpdateStrategy.Type}
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil {
			in.RollingUpdate = &internalRollingUpdate{MaxUnavailable: intOrZero(ru.MaxUnavailable), MaxSurge: intOrZero(ru.MaxSurge)}
		}
		errs = append(errs, field.NotSupported(us, in, []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}))
	}
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validateNonNegative(*s.RevisionHistoryLimit, fldPath.Child("revisionHistoryLimit"))...)
	}
	return errs
}
