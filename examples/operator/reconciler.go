package operator

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Reconciler keeps one Deployment per Widget, owned by it (so that the garbage collector deletes
// it with the widget), and the widget's status in step with the Deployment.
type Reconciler struct {
	client.Client
}

// SetupWithManager registers the reconciler for Widgets and the Deployments they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Widget{}).Owns(&appsv1.Deployment{}).Complete(r)
}

// Reconcile creates or updates the widget's Deployment, then writes the status. A conflict
// (the widget or the Deployment changed meanwhile) is returned, and controller-runtime retries
// with backoff, as operators do.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, d, func() error {
		labels := map[string]string{"app.kubernetes.io/name": "widget", "app.kubernetes.io/instance": w.Name}
		d.Spec.Replicas = w.Spec.Replicas
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "widget", Image: w.Spec.Image}}
		return controllerutil.SetControllerReference(&w, d, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("deployment of widget %s: %w", req.NamespacedName, err)
	}
	status := WidgetStatus{ReadyReplicas: d.Status.ReadyReplicas, ObservedGeneration: w.Generation, Deployment: d.Name}
	if w.Status == status {
		return ctrl.Result{}, nil
	}
	w.Status = status
	if err := r.Status().Update(ctx, &w); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, fmt.Errorf("status of widget %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{}, nil
}
