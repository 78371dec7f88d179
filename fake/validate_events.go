package fake

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validation of events (k8s.io/kubernetes pkg/apis/core/validation/events.go), recorded in
// reference/observed-writes-more.md, case events. Both APIs store one internal Event, whose
// field names the causes use (involvedObject for events.k8s.io's regarding, message for its
// note); a v1 Event gets the legacy checks only, an events.k8s.io one the strict ones too.

// The length limits of an event's fields.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// eventFields is what the validation reads of an event of either API, by the internal names.
type eventFields struct {
	namespace, involvedNamespace                                         string
	eventTime                                                            metav1.MicroTime
	reportingController, reportingInstance, action, reason, message, typ string
	series                                                               *eventSeries
	firstTimestamp, lastTimestamp                                        metav1.Time
	count                                                                int32
	source                                                               corev1.EventSource
}

type eventSeries struct {
	count        int32
	lastObserved metav1.MicroTime
}

// eventFieldsOf reads a v1 or events.k8s.io/v1 Event, and says which API it is of (strict for
// events.k8s.io); ok is false for other objects.
func eventFieldsOf(obj runtime.Object) (f eventFields, strict, ok bool) {
	switch e := obj.(type) {
	case *corev1.Event:
		f = eventFields{namespace: e.Namespace, involvedNamespace: e.InvolvedObject.Namespace, eventTime: e.EventTime,
			reportingController: e.ReportingController, reportingInstance: e.ReportingInstance, action: e.Action,
			reason: e.Reason, message: e.Message, typ: e.Type, firstTimestamp: e.FirstTimestamp, lastTimestamp: e.LastTimestamp,
			count: e.Count, source: e.Source}
		if s := e.Series; s != nil {
			f.series = &eventSeries{count: s.Count, lastObserved: s.LastObservedTime}
		}
		return f, false, true
	case *eventsv1.Event:
		f = eventFields{namespace: e.Namespace, involvedNamespace: e.Regarding.Namespace, eventTime: e.EventTime,
			reportingController: e.ReportingController, reportingInstance: e.ReportingInstance, action: e.Action,
			reason: e.Reason, message: e.Note, typ: e.Type, firstTimestamp: e.DeprecatedFirstTimestamp,
			lastTimestamp: e.DeprecatedLastTimestamp, count: e.DeprecatedCount, source: e.DeprecatedSource}
		if s := e.Series; s != nil {
			f.series = &eventSeries{count: s.Count, lastObserved: s.LastObservedTime}
		}
		return f, true, true
	}
	return f, false, false
}

// validateEvent is ValidateEventCreate (old nil) and ValidateEventUpdate without ObjectMeta and
// the immutability of the fields that are not strings.
func validateEvent(obj, old runtime.Object) field.ErrorList {
	e, strict, ok := eventFieldsOf(obj)
	if !ok {
		return nil
	}
	errs := legacyEventCauses(e, strict)
	if !strict {
		return errs
	}
	if old == nil {
		errs = append(errs, eventSeriesCauses(e)...)
		if e.eventTime.IsZero() {
			errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
		}
		if e.typ != corev1.EventTypeNormal && e.typ != corev1.EventTypeWarning {
			errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.typ)))
		}
		if !e.firstTimestamp.IsZero() {
			errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
		}
		if !e.lastTimestamp.IsZero() {
			errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
		}
		if e.count != 0 {
			errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
		}
		if e.source.Component != "" || e.source.Host != "" {
			errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
		}
		return errs
	}
	o, _, _ := eventFieldsOf(old)
	if (e.series == nil) != (o.series == nil) || (e.series != nil && (*e.series != *o.series)) {
		errs = append(errs, eventSeriesCauses(e)...)
	}
	immutable := func(name, v, was string) {
		if v != was {
			errs = append(errs, field.Invalid(field.NewPath(name), v, "field is immutable"))
		}
	}
	immutable("reason", e.reason, o.reason)
	immutable("message", e.message, o.message)
	if e.count != o.count {
		errs = append(errs, field.Invalid(field.NewPath("count"), e.count, "field is immutable"))
	}
	immutable("type", e.typ, o.typ)
	immutable("action", e.action, o.action)
	immutable("reportingController", e.reportingController, o.reportingController)
	immutable("reportingInstance", e.reportingInstance, o.reportingInstance)
	return errs
}

// legacyEventCauses are the checks every event meets: its involved object's namespace, and with
// an eventTime (a new-style event) who reported it, the action and the reason, and the lengths.
func legacyEventCauses(e eventFields, strict bool) field.ErrorList {
	var errs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	if e.eventTime.IsZero() {
		switch {
		case e.involvedNamespace == "" && e.namespace != metav1.NamespaceNone && e.namespace != metav1.NamespaceDefault,
			e.involvedNamespace != "" && e.namespace != e.involvedNamespace:
			errs = append(errs, field.Invalid(nsPath, e.involvedNamespace, "does not match event.namespace"))
		}
		return errs
	}
	if e.involvedNamespace == "" && e.namespace != metav1.NamespaceDefault && e.namespace != metav1.NamespaceSystem {
		errs = append(errs, field.Invalid(nsPath, e.involvedNamespace, "does not match event.namespace"))
	}
	controller := field.NewPath("reportingController")
	if !strict {
		controller = field.NewPath("reportingComponent") // the v1 field's name
	}
	if e.reportingController == "" {
		errs = append(errs, field.Required(controller, ""))
	}
	errs = append(errs, qualifiedName(e.reportingController, controller)...)
	if e.reportingInstance == "" {
		errs = append(errs, field.Required(field.NewPath("reportingInstance"), ""))
	}
	if len(e.reportingInstance) > eventReportingInstanceLimit {
		errs = append(errs, field.Invalid(field.NewPath("reportingInstance"), "", fmt.Sprintf("can have at most %v characters", eventReportingInstanceLimit)))
	}
	if e.action == "" {
		errs = append(errs, field.Required(field.NewPath("action"), ""))
	}
	if len(e.action) > eventActionLimit {
		errs = append(errs, field.Invalid(field.NewPath("action"), "", fmt.Sprintf("can have at most %v characters", eventActionLimit)))
	}
	if e.reason == "" {
		errs = append(errs, field.Required(field.NewPath("reason"), ""))
	}
	if len(e.reason) > eventReasonLimit {
		errs = append(errs, field.Invalid(field.NewPath("reason"), "", fmt.Sprintf("can have at most %v characters", eventReasonLimit)))
	}
	if len(e.message) > eventNoteLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", eventNoteLimit)))
	}
	return errs
}

// eventSeriesCauses checks a series: at least two occurrences, the last one's time.
func eventSeriesCauses(e eventFields) field.ErrorList {
	var errs field.ErrorList
	if s := e.series; s != nil {
		if s.count < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if s.lastObserved.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return errs
}

// eventsGroupKind is how the apiserver names an events.k8s.io Event in its errors: by the kind
// of the core group, which the two APIs share a store of.
func eventsGroupKind(gk schema.GroupKind) schema.GroupKind {
	if gk == (schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}) {
		return schema.GroupKind{Kind: "Event"}
	}
	return gk
}
