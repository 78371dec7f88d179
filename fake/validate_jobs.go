package fake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The apiserver's validation of jobs and cron jobs (pkg/apis/batch/validation), part of
// validateWorkloadKind (validate_workloads.go).

// validateJobCreate is the apiserver's ValidateJobCreate after ObjectMeta (the fake generates
// the selector and its labels itself, so the generated selector's checks always pass).
func validateJobCreate(j *batchv1.Job) field.ErrorList {
	errs := validateJobSpecWithSelector(&j.Spec, field.NewPath("spec"))
	return append(errs, validateNameAllowsCompletions(j)...)
}

// validateJobUpdate is the apiserver's ValidateJobUpdate after ObjectMeta: the spec, then what
// may not change (selector, completions of a non-indexed job, the template of a job that is not
// suspended, completion mode, pod failure and success policies, backoffLimitPerIndex,
// managedBy).
func validateJobUpdate(j, old *batchv1.Job) field.ErrorList {
	s, o, p := &j.Spec, &old.Spec, field.NewPath("spec")
	errs := validateJobSpecWithSelector(s, p)
	if ptr.Deref(s.CompletionMode, batchv1.NonIndexedCompletion) != batchv1.IndexedCompletion {
		errs = append(errs, validateImmutable(s.Completions, o.Completions, p.Child("completions"))...)
	} else if !equality.Semantic.DeepEqual(s.Completions, o.Completions) && s.Completions != nil && (s.Parallelism == nil || *s.Completions != *s.Parallelism) {
		errs = append(errs, field.Invalid(p.Child("completions"), s.Completions, "can only be modified in tandem with spec.parallelism"))
	}
	errs = append(errs, validateImmutable(s.Selector, o.Selector, p.Child("selector"))...)
	errs = append(errs, validateJobTemplateUpdate(j, old, p)...)
	errs = append(errs, validateImmutable(s.CompletionMode, o.CompletionMode, p.Child("completionMode"))...)
	errs = append(errs, validateImmutable(s.PodFailurePolicy, o.PodFailurePolicy, p.Child("podFailurePolicy"))...)
	errs = append(errs, validateImmutable(s.BackoffLimitPerIndex, o.BackoffLimitPerIndex, p.Child("backoffLimitPerIndex"))...)
	errs = append(errs, validateImmutable(s.ManagedBy, o.ManagedBy, p.Child("managedBy"))...)
	errs = append(errs, validateImmutable(s.SuccessPolicy, o.SuccessPolicy, p.Child("successPolicy"))...)
	return append(errs, validateNameAllowsCompletions(j)...)
}

// validateJobTemplateUpdate is the apiserver's validatePodTemplateUpdate for a job, with
// MutableSchedulingDirectivesForSuspendedJobs and MutablePodResourcesForSuspendedJobs on (beta,
// on by default in 1.37): the template may not change, but for a suspended job without active
// pods that has not started or is suspended again, its scheduling directives (node affinity and
// selector, tolerations, scheduling gates), labels, annotations and its containers' resources may.
// The apiserver prints the template's internal type in the cause; the fake prints the v1 JSON.
func validateJobTemplateUpdate(j, old *batchv1.Job, p *field.Path) field.ErrorList {
	t, ot := &j.Spec.Template, old.Spec.Template.DeepCopy()
	suspended := ptr.Deref(old.Spec.Suspend, false)
	mutable := suspended && old.Status.Active == 0 && (old.Status.StartTime == nil || jobCondition(old, batchv1.JobSuspended))
	if mutable {
		switch {
		case t.Spec.Affinity == nil && ot.Spec.Affinity != nil:
			ot.Spec.Affinity.NodeAffinity = nil
			if *ot.Spec.Affinity == (corev1.Affinity{}) {
				ot.Spec.Affinity = nil
			}
		case t.Spec.Affinity != nil && ot.Spec.Affinity == nil:
			ot.Spec.Affinity = &corev1.Affinity{NodeAffinity: t.Spec.Affinity.NodeAffinity}
		case t.Spec.Affinity != nil && ot.Spec.Affinity != nil:
			ot.Spec.Affinity.NodeAffinity = t.Spec.Affinity.NodeAffinity
		}
		ot.Spec.NodeSelector, ot.Spec.Tolerations, ot.Spec.SchedulingGates = t.Spec.NodeSelector, t.Spec.Tolerations, t.Spec.SchedulingGates
		ot.Annotations, ot.Labels = t.Annotations, t.Labels
	}
	if !suspended || !mutable {
		if equality.Semantic.DeepEqual(*t, *ot) {
			return nil
		}
		return field.ErrorList{field.Invalid(p.Child("template"), t, apimachineryvalidation.FieldImmutableErrorMsg)}
	}
	for _, cs := range []struct{ new, old []corev1.Container }{{t.Spec.Containers, ot.Spec.Containers}, {t.Spec.InitContainers, ot.Spec.InitContainers}} {
		if len(cs.new) != len(cs.old) {
			continue
		}
		for i := range cs.new {
			if cs.old[i].Name == cs.new[i].Name {
				cs.old[i].Resources = cs.new[i].Resources
			}
		}
	}
	return validateImmutable(t.Spec, ot.Spec, p.Child("template", "spec"))
}

// jobCondition reports whether a job has a condition of the type that is true.
func jobCondition(j *batchv1.Job, typ batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// validateNameAllowsCompletions: an indexed job's pods are named <job>-<index>, which must be a
// DNS label.
func validateNameAllowsCompletions(j *batchv1.Job) field.ErrorList {
	if ptr.Deref(j.Spec.CompletionMode, "") != batchv1.IndexedCompletion || ptr.Deref(j.Spec.Completions, 0) <= 0 {
		return nil
	}
	host := fmt.Sprintf("%s-%d", j.Name, *j.Spec.Completions-1)
	if len(validation.IsDNS1123Label(host)) > 0 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), j.Name, "will not able to create pod with invalid DNS label: "+host)}
	}
	return nil
}

// validateJobSpecWithSelector is the apiserver's ValidateJobSpec: the spec, then a selector that
// must be set, valid and match the template's labels.
func validateJobSpecWithSelector(s *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	errs := validateJobSpec(s, fldPath)
	if s.Selector == nil {
		errs = append(errs, field.Required(fldPath.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(fldPath.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// validateJobSpec is the apiserver's validateJobSpec for its common rules: non-negative counts,
// the completion mode, the pod replacement policy, the template, and a restart policy of
// OnFailure or Never.
func validateJobSpec(s *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range []struct {
		v    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}} {
		if n.v != nil {
			errs = append(errs, validateNonNegative(*n.v, fldPath.Child(n.name))...)
		}
	}
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, validateNonNegative(*s.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))...)
	}
	for _, n := range []struct {
		v    *int32
		name string
	}{{s.BackoffLimit, "backoffLimit"}, {s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished"}, {s.BackoffLimitPerIndex, "backoffLimitPerIndex"}, {s.MaxFailedIndexes, "maxFailedIndexes"}} {
		if n.v != nil {
			errs = append(errs, validateNonNegative(*n.v, fldPath.Child(n.name))...)
		}
		if n.name == "maxFailedIndexes" && n.v != nil && s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(fldPath.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if m := s.ManagedBy; m != nil {
		errs = append(errs, validation.IsDomainPrefixedPath(fldPath.Child("managedBy"), *m)...)
		if len(*m) > maxManagedByLength {
			errs = append(errs, field.TooLong(fldPath.Child("managedBy"), "", maxManagedByLength))
		}
	}
	if m := s.CompletionMode; m != nil {
		if *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
			errs = append(errs, field.NotSupported(fldPath.Child("completionMode"), m, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
		}
		if *m == batchv1.IndexedCompletion {
			errs = append(errs, validateIndexedJob(s, fldPath)...)
		}
	}
	if ptr.Deref(s.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.NonIndexedCompletion {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(fldPath.Child("backoffLimitPerIndex"), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, fldPath.Child("podFailurePolicy"))...)
	}
	if sp := s.SuccessPolicy; sp != nil {
		if ptr.Deref(s.CompletionMode, batchv1.NonIndexedCompletion) != batchv1.IndexedCompletion {
			errs = append(errs, field.Invalid(fldPath.Child("successPolicy"), goNames{*sp}, "requires indexed completion mode"))
		} else {
			errs = append(errs, validateSuccessPolicy(s, fldPath.Child("successPolicy"))...)
		}
	}
	if p := s.PodReplacementPolicy; p != nil {
		switch {
		case s.PodFailurePolicy != nil && *p != batchv1.Failed:
			errs = append(errs, field.NotSupported(fldPath.Child("podReplacementPolicy"), *p, []batchv1.PodReplacementPolicy{batchv1.Failed}))
		case s.PodFailurePolicy == nil && *p != batchv1.Failed && *p != batchv1.TerminatingOrFailed:
			errs = append(errs, field.NotSupported(fldPath.Child("podReplacementPolicy"), *p, []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}))
		}
	}
	tp := fldPath.Child("template")
	errs = append(errs, validatePodTemplateSpec(&s.Template, tp)...)
	rp := tp.Child("spec", "restartPolicy")
	switch r := s.Template.Spec.RestartPolicy; {
	case r == corev1.RestartPolicyAlways || r == "":
		errs = append(errs, field.Required(rp, `valid values: "OnFailure", "Never"`))
	case r != corev1.RestartPolicyOnFailure && r != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(rp, r, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case s.PodFailurePolicy != nil && r != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(rp, r, `only "Never" is supported when podFailurePolicy is specified`))
	}
	return errs
}

// validateCronJobSpec is the apiserver's validateCronJobSpec (old nil on create): a schedule in
// cron syntax without a time zone in it, valid time zone and concurrency policy, non-negative
// numbers, and a job template without a selector.
func validateCronJobSpec(s *batchv1.CronJobSpec, old *batchv1.CronJobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	sp := fldPath.Child("schedule")
	if s.Schedule == "" {
		errs = append(errs, field.Required(sp, ""))
	} else {
		if err := parseSchedule(s.Schedule); err != nil {
			errs = append(errs, field.Invalid(sp, s.Schedule, err.Error()))
		}
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		switch {
		case allowTZ && strings.Contains(s.Schedule, "TZ") && s.TimeZone != nil:
			errs = append(errs, field.Invalid(sp, s.Schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
		case !allowTZ && strings.Contains(s.Schedule, "TZ"):
			errs = append(errs, field.Invalid(sp, s.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
		}
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, validateNonNegative(*s.StartingDeadlineSeconds, fldPath.Child("startingDeadlineSeconds"))...)
	}
	if tz := s.TimeZone; tz != nil && (old == nil || !ptr.Equal(old.TimeZone, tz)) {
		errs = append(errs, validateTimeZone(*tz, fldPath.Child("timeZone"))...)
	}
	errs = append(errs, validateEnum(s.ConcurrencyPolicy, fldPath.Child("concurrencyPolicy"),
		[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent})...)
	jp := fldPath.Child("jobTemplate", "spec")
	errs = append(errs, validateJobSpec(&s.JobTemplate.Spec, jp)...)
	if s.JobTemplate.Spec.Selector != nil {
		errs = append(errs, field.Invalid(jp.Child("selector"), s.JobTemplate.Spec.Selector, "`selector` will be auto-generated"))
	}
	if ptr.Deref(s.JobTemplate.Spec.ManualSelector, false) {
		errs = append(errs, field.NotSupported(jp.Child("manualSelector"), s.JobTemplate.Spec.ManualSelector, []string{"nil", "false"}))
	}
	if s.SuccessfulJobsHistoryLimit != nil {
		errs = append(errs, validateNonNegative(*s.SuccessfulJobsHistoryLimit, fldPath.Child("successfulJobsHistoryLimit"))...)
	}
	if s.FailedJobsHistoryLimit != nil {
		errs = append(errs, validateNonNegative(*s.FailedJobsHistoryLimit, fldPath.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

// parseSchedule parses a schedule as the apiserver does (robfig/cron's standard parser, its
// panics turned into errors).
func parseSchedule(schedule string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	_, err = cron.ParseStandard(schedule)
	return err
}

// validateTimeZone is the apiserver's validateTimeZone: a name of the time zone database, not
// Local.
func validateTimeZone(tz string, fldPath *field.Path) field.ErrorList {
	if tz == "" {
		return field.ErrorList{field.Invalid(fldPath, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZonePart(part) {
			return field.ErrorList{field.Invalid(fldPath, tz, "unknown time zone "+tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(tz, "Local") {
		errs = append(errs, field.Invalid(fldPath, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(tz); err != nil {
		errs = append(errs, field.Invalid(fldPath, tz, err.Error()))
	}
	return errs
}

// validTimeZonePart is the apiserver's `^[A-Za-z\.\-_0-9+]{1,14}$`.
func validTimeZonePart(s string) bool {
	if len(s) < 1 || len(s) > 14 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '+':
		default:
			return false
		}
	}
	return true
}

// The apiserver's limits of indexed jobs, their pod failure and success policies and their
// managedBy, each sized there for the status it bounds (completed and failed indexes).
const (
	maxParallelismForIndexedJob             = 100_000
	maxFailedIndexesForIndexedJob           = 100_000
	completionsSoftLimit                    = 100_000
	parallelismLimitForHighCompletions      = 10_000
	maxFailedIndexesLimitForHighCompletions = 10_000
	maxPodFailurePolicyRules                = 20
	maxPodFailurePolicyOnExitCodesValues    = 255
	maxPodFailurePolicyOnPodConditions      = 20
	maxManagedByLength                      = 63
	maxSucceededIndexesLength               = 64 * 1024
	maxSuccessPolicyRules                   = 20
)

// The values the apiserver accepts in a pod failure policy, sorted as it lists them.
var (
	podFailurePolicyActions = []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore}
	podFailurePolicyOperators = []batchv1.PodFailurePolicyOnExitCodesOperator{batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn}
	podFailurePolicyStatuses  = []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
)

// validValues is the detail of a pod failure policy's missing value: the values it may take.
func validValues(vs ...string) string { return fmt.Sprintf("valid values: %q", vs) }

// validateIndexedJob is the apiserver's validation of an indexed job's counts: completions set,
// parallelism and failed indexes bounded, and tighter bounds above completionsSoftLimit with a
// backoff limit per index.
func validateIndexedJob(s *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Completions == nil {
		errs = append(errs, field.Required(fldPath.Child("completions"), "when completion mode is Indexed"))
	}
	if p := s.Parallelism; p != nil && *p > maxParallelismForIndexedJob {
		errs = append(errs, field.Invalid(fldPath.Child("parallelism"), *p, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxParallelismForIndexedJob)))
	}
	m := s.MaxFailedIndexes
	if s.Completions != nil && m != nil && *m > *s.Completions {
		errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *m, "must be less than or equal to completions"))
	}
	if m != nil && *m > maxFailedIndexesForIndexedJob {
		errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *m, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob)))
	}
	if s.Completions != nil && *s.Completions > completionsSoftLimit && s.BackoffLimitPerIndex != nil {
		const above = "when completions are above %d and used with backoff limit per index"
		if m == nil {
			errs = append(errs, field.Required(fldPath.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
		}
		if p := s.Parallelism; p != nil && *p > parallelismLimitForHighCompletions {
			errs = append(errs, field.Invalid(fldPath.Child("parallelism"), *p, fmt.Sprintf("must be less than or equal to %d "+above, parallelismLimitForHighCompletions, completionsSoftLimit)))
		}
		if m != nil && *m > maxFailedIndexesLimitForHighCompletions {
			errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *m, fmt.Sprintf("must be less than or equal to %d "+above, maxFailedIndexesLimitForHighCompletions, completionsSoftLimit)))
		}
	}
	return errs
}

// validatePodFailurePolicy is the apiserver's validatePodFailurePolicy: at most 20 rules, each
// with a supported action and exactly one of exit codes (a supported operator, a container of the
// template, 1 to 255 ordered unique values, no 0 with In) and pod conditions (qualified types,
// supported statuses).
func validatePodFailurePolicy(s *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	rulesPath := fldPath.Child("rules")
	rules := s.PodFailurePolicy.Rules
	if len(rules) > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxPodFailurePolicyRules))
	}
	containers := sets.New[string]()
	for _, c := range s.Template.Spec.Containers {
		containers.Insert(c.Name)
	}
	for _, c := range s.Template.Spec.InitContainers {
		containers.Insert(c.Name)
	}
	for i, r := range rules {
		rp := rulesPath.Index(i)
		ap := rp.Child("action")
		switch {
		case r.Action == "":
			errs = append(errs, field.Required(ap, validValues("Count", "FailIndex", "FailJob", "Ignore")))
		case r.Action == batchv1.PodFailurePolicyActionFailIndex:
			if s.BackoffLimitPerIndex == nil {
				errs = append(errs, field.Invalid(ap, r.Action, "requires the backoffLimitPerIndex to be set"))
			}
		case !slices.Contains(podFailurePolicyActions, r.Action):
			errs = append(errs, field.NotSupported(ap, r.Action, podFailurePolicyActions))
		}
		if r.OnExitCodes != nil {
			errs = append(errs, validateOnExitCodes(r.OnExitCodes, containers, rp.Child("onExitCodes"))...)
		}
		if len(r.OnPodConditions) > 0 {
			cp := rp.Child("onPodConditions")
			if len(r.OnPodConditions) > maxPodFailurePolicyOnPodConditions {
				errs = append(errs, field.TooMany(cp, len(r.OnPodConditions), maxPodFailurePolicyOnPodConditions))
			}
			for j, c := range r.OnPodConditions {
				pp := cp.Index(j)
				errs = append(errs, validateQualifiedName(string(c.Type), pp.Child("type"))...)
				switch {
				case c.Status == "":
					errs = append(errs, field.Required(pp.Child("status"), validValues("False", "True", "Unknown")))
				case !slices.Contains(podFailurePolicyStatuses, c.Status):
					errs = append(errs, field.NotSupported(pp.Child("status"), c.Status, podFailurePolicyStatuses))
				}
			}
		}
		switch {
		case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
			errs = append(errs, field.Invalid(rp, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
		case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
			errs = append(errs, field.Invalid(rp, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
		}
	}
	return errs
}

// validateOnExitCodes is the apiserver's validatePodFailurePolicyRuleOnExitCodes.
func validateOnExitCodes(e *batchv1.PodFailurePolicyOnExitCodesRequirement, containers sets.Set[string], fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	op := fldPath.Child("operator")
	switch {
	case e.Operator == "":
		errs = append(errs, field.Required(op, validValues("In", "NotIn")))
	case !slices.Contains(podFailurePolicyOperators, e.Operator):
		errs = append(errs, field.NotSupported(op, e.Operator, podFailurePolicyOperators))
	}
	if c := e.ContainerName; c != nil && !containers.Has(*c) {
		errs = append(errs, field.Invalid(fldPath.Child("containerName"), *c, "must be one of the container or initContainer names in the pod template"))
	}
	vp := fldPath.Child("values")
	switch {
	case len(e.Values) == 0:
		errs = append(errs, field.Invalid(vp, e.Values, "at least one value is required"))
	case len(e.Values) > maxPodFailurePolicyOnExitCodesValues:
		errs = append(errs, field.TooMany(vp, len(e.Values), maxPodFailurePolicyOnExitCodesValues))
	}
	seen := sets.New[int32]()
	for j, v := range e.Values {
		if e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(vp.Index(j), v, "must not be 0 for the In operator"))
		}
		if seen.Has(v) {
			errs = append(errs, field.Duplicate(vp.Index(j), v))
		}
		seen.Insert(v)
	}
	if !slices.IsSorted(e.Values) {
		errs = append(errs, field.Invalid(vp, e.Values, "must be ordered"))
	}
	return errs
}

// validateSuccessPolicy is the apiserver's validateSuccessPolicy of an indexed job: 1 to 20
// rules, each with succeeded indexes (well formed, within completions) or a succeeded count
// (within completions and the indexes).
func validateSuccessPolicy(s *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	rulesPath := fldPath.Child("rules")
	rules := s.SuccessPolicy.Rules
	if len(rules) == 0 {
		errs = append(errs, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(rules) > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxSuccessPolicyRules))
	}
	completions := ptr.Deref(s.Completions, 0)
	for i, r := range rules {
		rp := rulesPath.Index(i)
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			errs = append(errs, field.Required(rp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if idx := r.SucceededIndexes; idx != nil {
			ip := rp.Child("succeededIndexes")
			if len(*idx) > maxSucceededIndexesLength {
				errs = append(errs, field.TooLong(ip, "", maxSucceededIndexesLength))
			}
			var err error
			if total, err = countIndexes(*idx, completions); err != nil {
				errs = append(errs, field.Invalid(ip, *idx, "error parsing succeededIndexes: "+err.Error()))
			}
		}
		if c := r.SucceededCount; c != nil {
			cp := rp.Child("succeededCount")
			errs = append(errs, validateNonNegative(*c, cp)...)
			if *c > completions {
				errs = append(errs, field.Invalid(cp, *c, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if r.SucceededIndexes != nil && *c > total {
				errs = append(errs, field.Invalid(cp, *c, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// countIndexes is the apiserver's validateIndexesFormat: comma-separated increasing indexes and
// intervals ("0-2,4") below completions, and how many indexes they hold.
func countIndexes(indexes string, completions int32) (int32, error) {
	if indexes == "" {
		return 0, nil
	}
	var total int32
	last := int32(-1)
	for _, interval := range strings.Split(indexes, ",") {
		limits := strings.Split(interval, "-")
		if len(limits) > 2 {
			return 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", interval)
		}
		var bounds []int32
		for _, l := range limits {
			v, err := strconv.Atoi(l)
			if err != nil {
				return 0, fmt.Errorf("cannot convert string to integer for index: %q", l)
			}
			if v >= int(completions) {
				return 0, fmt.Errorf("too large index: %q", l)
			}
			bounds = append(bounds, int32(v))
		}
		x, y := bounds[0], bounds[len(bounds)-1]
		if len(bounds) == 2 && x >= y {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
		}
		if last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		total += y - x + 1
		last = y
	}
	return total, nil
}
