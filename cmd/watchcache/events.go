package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/selection"
)

// The apiserver keeps core/v1 and events.k8s.io/v1 Events in one place (/registry/events) and
// converts between them; serve --etcd-endpoints serves events.k8s.io/v1 from the core Events'
// cache the same way (testdata/etcd-events-v1.json records both groups' answers for the same
// objects).

// eventsV1Labels are the field selector labels kube-apiserver 1.37.2 accepts on events.k8s.io/v1
// Events, and the core/v1 field each reads (testdata/etcd-events-v1.json: regarding.*, reason,
// type, reportingController and metadata.* select; note, action, reportingInstance,
// deprecatedSource and core's own names get 400 "field label not supported").
var eventsV1Labels = map[string]string{
	"metadata.name":             "metadata.name",
	"metadata.namespace":        "metadata.namespace",
	"regarding.kind":            "involvedObject.kind",
	"regarding.namespace":       "involvedObject.namespace",
	"regarding.name":            "involvedObject.name",
	"regarding.uid":             "involvedObject.uid",
	"regarding.apiVersion":      "involvedObject.apiVersion",
	"regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.fieldPath":       "involvedObject.fieldPath",
	"reason":                    "reason",
	"type":                      "type",
	"reportingController":       "reportingComponent",
}

// eventsV1Info is events.k8s.io/v1 Events as kube-apiserver 1.37.2 lists them in discovery,
// served from the core Events' cache, with the core Events' Table (the apiserver prints both
// groups' Events with the same columns).
func eventsV1Info() kubeapi.ResourceInfo {
	info := kubeapi.ResourceInfo{
		Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true,
		ShortNames: []string{"ev"}, Convert: eventsV1, FieldLabels: eventsV1Labels,
		// The recorded discovery's: the hash of the storage version, core/v1 Event.
		StorageVersionHash: "r2yiGXH7wu8=",
	}
	info.Printer, _ = kubeapi.PrinterFor("", "events")
	return info
}

// eventsV1 converts a core/v1 Event to events.k8s.io/v1, field by field as the apiserver answers
// the same stored object in each group: message is note, involvedObject regarding, source,
// firstTimestamp, lastTimestamp and count the deprecated ones, reportingComponent
// reportingController; the rest keep their names. Encoding k8s.io/api's type gives the
// apiserver's member order and omissions (a null eventTime, an empty deprecatedSource).
func eventsV1(obj []byte) ([]byte, error) {
	var e corev1.Event
	if err := json.Unmarshal(obj, &e); err != nil {
		return nil, err
	}
	out := eventsv1.Event{
		ObjectMeta:               e.ObjectMeta,
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  e.Related,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	out.APIVersion, out.Kind = "events.k8s.io/v1", "Event"
	if s := e.Series; s != nil {
		out.Series = &eventsv1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return json.Marshal(&out)
}

// eventsV1Schema is the field selectors of a cache holding events.k8s.io/v1 Events as the
// cluster serves them (serve --kubeconfig): eventsV1Labels' labels, each read at its own path in
// the events.k8s.io object, where the core Events' schema reads core's.
func eventsV1Schema() *selection.Schema {
	s := selection.CustomResourceSchema(true)
	for label := range eventsV1Labels {
		if label == "metadata.name" || label == "metadata.namespace" {
			continue
		}
		var err error
		if s, err = s.WithField(label, label); err != nil {
			panic("events.k8s.io/v1 field " + label + ": " + err.Error()) // a fixed, tested list
		}
	}
	return s
}
