// Package operator is an example operator: a Widget custom resource (example.com/v1) whose
// reconciler runs a Deployment of the widget's image and reports the Deployment's ready replicas in
// the widget's status. Its test runs the manager against the project's fake apiserver
// (fake.Environment), as an envtest suite would run it against a real control plane.
package operator

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of Widget.
var GroupVersion = schema.GroupVersion{Group: "example.com", Version: "v1"}

// Widget is a request for a Deployment of Spec.Replicas pods of Spec.Image.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what the user asks for.
type WidgetSpec struct {
	Image    string `json:"image"`
	Replicas *int32 `json:"replicas,omitempty"`
}

// WidgetStatus is what the reconciler observed.
type WidgetStatus struct {
	ReadyReplicas      int32  `json:"readyReplicas,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Deployment         string `json:"deployment,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

// DeepCopy returns a copy of w that shares nothing with it.
func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Replicas != nil {
		r := *w.Spec.Replicas
		out.Spec.Replicas = &r
	}
	return &out
}

// DeepCopyObject implements runtime.Object.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopy()
	}
	return &out
}

// AddToScheme registers Widget and WidgetList in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
