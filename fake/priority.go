package fake

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

var priorityClassesGR = schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}

// systemPriorityClassObjects are the system priority classes as a kube-apiserver stores them when
// it starts (reference/observed-priority.md, system classes).
func systemPriorityClassObjects(now metav1.Time) []runtime.Object {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kube-apiserver", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "scheduling.k8s.io/v1", Time: &now, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:description":{},"f:preemptionPolicy":{},"f:value":{}}`)}}}
	out := make([]runtime.Object, 0, len(systemPriorityClasses))
	for _, c := range systemPriorityClasses {
		out = append(out, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: c.name, ManagedFields: managed},
			Value: c.value, GlobalDefault: c.globalDefault, Description: c.description,
			PreemptionPolicy: ptr.To(corev1.PreemptLowerPriority)})
	}
	return out
}

// isSystemPriorityClass reports whether name is one of systemPriorityClasses, which cannot be
// deleted.
func isSystemPriorityClass(name string) bool {
	for _, c := range systemPriorityClasses {
		if c.name == name {
			return true
		}
	}
	return false
}

// admitPriority is the Priority admission plugin for a new pod: its priority and preemption policy
// are those of the PriorityClass it names, or of the global default class (which it then names),
// or 0 and PreemptLowerPriority; a pod that names a missing class, or states a priority or a
// preemption policy other than the class's, is refused with the plugin's 403
// (reference/observed-priority.md).
func (s *Server) admitPriority(ctx context.Context, obj runtime.Object) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	var pc *schedulingv1.PriorityClass
	if name := pod.Spec.PriorityClassName; name != "" {
		if pc = s.priorityClass(ctx, name); pc == nil {
			return apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("no PriorityClass with name %s was found", name))
		}
	} else if pc = s.defaultPriorityClass(ctx); pc != nil {
		pod.Spec.PriorityClassName = pc.Name
	}
	priority, policy := int32(0), ptr.To(corev1.PreemptLowerPriority)
	if pc != nil {
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if policy != nil {
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
			return apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy))
		}
		pod.Spec.PreemptionPolicy = ptr.To(*policy)
	}
	return nil
}

// admitPriorityClass is the Priority plugin's validation of a class: at most one is the global
// default, so a new default, or another class made the default, is refused while one exists.
func (s *Server) admitPriorityClass(ctx context.Context, obj runtime.Object) error {
	pc, ok := obj.(*schedulingv1.PriorityClass)
	if !ok || !pc.GlobalDefault {
		return nil
	}
	if d := s.defaultPriorityClass(ctx); d != nil && d.Name != pc.Name {
		return apierrors.NewForbidden(priorityClassesGR, pc.Name, fmt.Errorf("PriorityClass %s is already marked as default. Only one default can exist", d.Name))
	}
	return nil
}

// errSystemPriorityClass is the priority class registry's refusal to delete a system class.
var errSystemPriorityClass = errors.New("this is a system priority class and cannot be deleted")

// priorityClass returns the stored class of that name, or nil.
func (s *Server) priorityClass(ctx context.Context, name string) *schedulingv1.PriorityClass {
	for _, pc := range s.priorityClasses(ctx, name) {
		return pc
	}
	return nil
}

// defaultPriorityClass returns the global default class, the one of lowest value if several are
// (as the plugin picks after a race), or nil.
func (s *Server) defaultPriorityClass(ctx context.Context) *schedulingv1.PriorityClass {
	var d *schedulingv1.PriorityClass
	for _, pc := range s.priorityClasses(ctx, "") {
		if pc.GlobalDefault && (d == nil || pc.Value < d.Value) {
			d = pc
		}
	}
	return d
}

// priorityClasses returns the stored classes, or the one named name when it is not "".
func (s *Server) priorityClasses(ctx context.Context, name string) []*schedulingv1.PriorityClass {
	var out []*schedulingv1.PriorityClass
	for _, o := range s.listTyped(ctx, priorityClassesGR, "") {
		if pc := o.(*schedulingv1.PriorityClass); name == "" || pc.Name == name {
			out = append(out, pc)
		}
	}
	return out
}
