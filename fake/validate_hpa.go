package fake

import (
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The metrics and behavior rules of kube-apiserver 1.37.2's autoscaler validation
// (pkg/apis/autoscaling/validation), which validateHPASpec runs after the scale target.

// metricSourceTypes are the metric source types, in the apiserver's (sorted) order.
var metricSourceTypes = []string{
	string(autoscalingv2.ContainerResourceMetricSourceType), string(autoscalingv2.ExternalMetricSourceType),
	string(autoscalingv2.ObjectMetricSourceType), string(autoscalingv2.PodsMetricSourceType), string(autoscalingv2.ResourceMetricSourceType),
}

// The bounds of a behavior's scaling rules, in seconds.
const (
	maxScalingPeriod       = 1800
	maxStabilizationWindow = 3600
)

// validateMetrics is the apiserver's validateMetrics: each metric, and an object or external one
// for an autoscaler that scales to zero. oldInvalidObject says an object metric of the stored
// autoscaler has an invalid apiVersion, which then goes unchecked.
func validateMetrics(metrics []autoscalingv2.MetricSpec, minReplicas *int32, oldInvalidObject bool, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	objectOrExternal := false
	for i := range metrics {
		errs = append(errs, validateMetricSpec(&metrics[i], oldInvalidObject, path.Index(i))...)
		if t := metrics[i].Type; t == autoscalingv2.ObjectMetricSourceType || t == autoscalingv2.ExternalMetricSourceType {
			objectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !objectOrExternal {
		errs = append(errs, field.Forbidden(path, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

// validateMetricSpec is the apiserver's validateMetricSpec: a supported type, and the one source
// the type names.
func validateMetricSpec(m *autoscalingv2.MetricSpec, oldInvalidObject bool, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if m.Type == "" {
		errs = append(errs, field.Required(path.Child("type"), "must specify a metric source type"))
	}
	if !slices.Contains(metricSourceTypes, string(m.Type)) {
		errs = append(errs, field.NotSupported(path.Child("type"), m.Type, metricSourceTypes))
	}
	// The sources present, in the apiserver's order; only the first is validated.
	var present []string
	if m.Object != nil {
		present = append(present, "object")
		if len(present) == 1 {
			o := m.Object
			errs = append(errs, validateDescribedObject(o.DescribedObject, oldInvalidObject, path.Child("object", "describedObject"))...)
			errs = append(errs, validateMetricName(o.Metric.Name, path.Child("object", "metric"))...)
			errs = append(errs, validateMetricTarget(&o.Target, path.Child("object", "target"))...)
			if o.Target.Value == nil && o.Target.AverageValue == nil {
				errs = append(errs, field.Required(path.Child("object", "target", "averageValue"), "must set either a target value or averageValue"))
			}
		}
	}
	if m.External != nil {
		present = append(present, "external")
		if len(present) == 1 {
			e, p := m.External, path.Child("external")
			errs = append(errs, validateMetricName(e.Metric.Name, p.Child("metric"))...)
			errs = append(errs, validateMetricTarget(&e.Target, p.Child("target"))...)
			if e.Target.Value == nil && e.Target.AverageValue == nil {
				errs = append(errs, field.Required(p.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
			}
			if e.Target.Value != nil && e.Target.AverageValue != nil {
				errs = append(errs, field.Forbidden(p.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
			}
		}
	}
	if m.Pods != nil {
		present = append(present, "pods")
		if len(present) == 1 {
			s, p := m.Pods, path.Child("pods")
			errs = append(errs, validateMetricName(s.Metric.Name, p.Child("metric"))...)
			errs = append(errs, validateMetricTarget(&s.Target, p.Child("target"))...)
			if s.Target.AverageValue == nil {
				errs = append(errs, field.Required(p.Child("target", "averageValue"), "must specify a positive target averageValue"))
			}
		}
	}
	if m.Resource != nil {
		present = append(present, "resource")
		if len(present) == 1 {
			s, p := m.Resource, path.Child("resource")
			if s.Name == "" {
				errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
			}
			errs = append(errs, validateResourceTarget(&s.Target, p.Child("target"))...)
		}
	}
	if m.ContainerResource != nil {
		present = append(present, "containerResource")
		if len(present) == 1 {
			s, p := m.ContainerResource, path.Child("containerResource")
			if s.Name == "" {
				errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
			} else {
				errs = append(errs, validateContainerResourceName(s.Name, p.Child("name"))...)
			}
			if s.Container == "" {
				errs = append(errs, field.Required(p.Child("container"), "must specify a container"))
			} else {
				errs = append(errs, dns1123Label(s.Container, p.Child("container"))...)
			}
			errs = append(errs, validateResourceTarget(&s.Target, p.Child("target"))...)
		}
	}
	expected := map[autoscalingv2.MetricSourceType]string{
		autoscalingv2.ObjectMetricSourceType: "object", autoscalingv2.PodsMetricSourceType: "pods",
		autoscalingv2.ResourceMetricSourceType: "resource", autoscalingv2.ExternalMetricSourceType: "external",
		autoscalingv2.ContainerResourceMetricSourceType: "containerResource",
	}[m.Type]
	switch {
	case expected == "":
		// A second time, as the apiserver's validator does (uniqueCauses drops it).
		errs = append(errs, field.NotSupported(path.Child("type"), m.Type, metricSourceTypes))
	case !slices.Contains(present, expected):
		errs = append(errs, field.Required(path.Child(expected), "must populate information for the given metric source"))
	}
	// The apiserver walks the other sources present as a set, in Go's map order; this walks
	// them in the order above.
	if len(present) != 1 {
		for _, s := range present {
			if s != expected {
				errs = append(errs, field.Forbidden(path.Child(s), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

// validateDescribedObject is the apiserver's ValidateCrossVersionObjectReference for an object
// metric's object, whose apiVersion may leave the group out.
func validateDescribedObject(ref autoscalingv2.CrossVersionObjectReference, oldInvalid bool, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, f := range []struct{ name, v string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.v == "" {
			errs = append(errs, field.Required(path.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.v) {
			errs = append(errs, field.Invalid(path.Child(f.name), f.v, msg))
		}
	}
	if !oldInvalid {
		if _, err := schema.ParseGroupVersion(ref.APIVersion); err != nil {
			errs = append(errs, field.Invalid(path.Child("apiVersion"), ref.APIVersion, err.Error()))
		}
	}
	return errs
}

// validateMetricName is the apiserver's validateMetricIdentifier.
func validateMetricName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path.Child("name"), "must specify a metric name")}
	}
	errs := field.ErrorList{}
	for _, msg := range content.IsPathSegmentName(name) {
		errs = append(errs, field.Invalid(path.Child("name"), name, msg))
	}
	return errs
}

// validateResourceTarget is the target rules of a resource or container resource metric: a raw
// value or a utilization, not both.
func validateResourceTarget(t *autoscalingv2.MetricTarget, path *field.Path) field.ErrorList {
	errs := validateMetricTarget(t, path)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(path.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(path.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

// validateMetricTarget is the apiserver's validateMetricTarget.
func validateMetricTarget(t *autoscalingv2.MetricTarget, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if t.Type == "" {
		errs = append(errs, field.Required(path.Child("type"), "must specify a metric target type"))
	}
	switch t.Type {
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(path.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("value"), t.Value, "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("averageValue"), t.AverageValue, "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(path.Child("averageUtilization"), t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

// selectPolicies are the values of a scaling rule's selectPolicy, in the apiserver's (sorted)
// order.
var selectPolicies = []string{string(autoscalingv2.DisabledPolicySelect), string(autoscalingv2.MaxChangePolicySelect), string(autoscalingv2.MinChangePolicySelect)}

// validateBehavior is the apiserver's validateBehavior: the scale-up rules, then the scale-down
// rules (both defaulted by then, when the behavior is set).
func validateBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if b == nil {
		return errs
	}
	for _, r := range []struct {
		rules *autoscalingv2.HPAScalingRules
		name  string
	}{{b.ScaleUp, "scaleUp"}, {b.ScaleDown, "scaleDown"}} {
		if r.rules == nil {
			continue
		}
		p, rules := path.Child(r.name), r.rules
		if w := rules.StabilizationWindowSeconds; w != nil && *w < 0 {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), w, "must be greater than or equal to zero"))
		}
		if w := rules.StabilizationWindowSeconds; w != nil && *w > maxStabilizationWindow {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), w, fmt.Sprintf("must be less than or equal to %v", maxStabilizationWindow)))
		}
		if s := rules.SelectPolicy; s != nil && !slices.Contains(selectPolicies, string(*s)) {
			errs = append(errs, field.NotSupported(p.Child("selectPolicy"), s, selectPolicies))
		}
		if len(rules.Policies) == 0 {
			errs = append(errs, field.Required(p.Child("policies"), "must specify at least one Policy"))
		}
		for i, pol := range rules.Policies {
			pp := p.Child("policies").Index(i)
			if pol.Type != autoscalingv2.PodsScalingPolicy && pol.Type != autoscalingv2.PercentScalingPolicy {
				errs = append(errs, field.NotSupported(pp.Child("type"), pol.Type, []string{string(autoscalingv2.PercentScalingPolicy), string(autoscalingv2.PodsScalingPolicy)}))
			}
			if pol.Value <= 0 {
				errs = append(errs, field.Invalid(pp.Child("value"), pol.Value, "must be greater than zero"))
			}
			if pol.PeriodSeconds <= 0 {
				errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
			}
			if pol.PeriodSeconds > maxScalingPeriod {
				errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", maxScalingPeriod)))
			}
		}
	}
	return errs
}
