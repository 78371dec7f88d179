package fake

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// What the apiserver's per-resource strategies do to an object before it is stored, for the parts
// every client sees: status on create and update, metadata.generation, namespaces' finalizers and
// phase, pods' phase and QoS class. Anything a strategy defaults beyond that (a pod's
// restartPolicy, a deployment's strategy) is not reproduced; the README lists it.

// statusField returns the object's Status field, or an invalid Value if its type has none.
func statusField(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName("Status")
}

// dropDisabledPodFields clears, in a pod spec or a pod template's, the fields behind feature gates
// kube-apiserver 1.37.2 has off, unless old (the stored spec; nil on create) uses them, as the pod
// and workload strategies do before validation (k8s.io/kubernetes pkg/api/pod's
// DropDisabledPodFields): containers' lifecycle.stopSignal (ContainerStopSignals, alpha), and
// the lifecycle when nothing else is left in it. The field manager has recorded them already
// (reference/observed-validation-podspec.md, ps-more).
func dropDisabledPodFields(spec, old *corev1.PodSpec) {
	if spec == nil || (old != nil && stopSignalsInUse(old)) {
		return
	}
	eachContainer(spec, func(c *corev1.Container) {
		if c.Lifecycle != nil && c.Lifecycle.StopSignal != nil {
			c.Lifecycle.StopSignal = nil
			if *c.Lifecycle == (corev1.Lifecycle{}) {
				c.Lifecycle = nil
			}
		}
	})
}

// stopSignalsInUse reports whether a container of spec has a stop signal.
func stopSignalsInUse(spec *corev1.PodSpec) bool {
	used := false
	eachContainer(spec, func(c *corev1.Container) {
		used = used || c.Lifecycle != nil && c.Lifecycle.StopSignal != nil
	})
	return used
}

// podSpecOf is the pod spec of a pod or the pod template of a workload or a pod template, or nil.
func podSpecOf(obj runtime.Object) *corev1.PodSpec {
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec
	case *corev1.PodTemplate:
		return &o.Template.Spec
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.Spec
		}
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	case *batchv1.Job:
		return &o.Spec.Template.Spec
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec
	}
	return nil
}

// prepareCreate is the strategies' PrepareForCreate: a resource with a status subresource starts
// with an empty status (nodes keep theirs: a kubelet registers its node with it); generation is 1
// where the resource has one.
func prepareCreate(t *resourceType, obj runtime.Object, m metav1Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok && t.status {
		delete(u.Object, "status")
	}
	if t.status && t.gvk.Kind != "Node" {
		if f := statusField(obj); f.IsValid() && f.CanSet() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	if t.generation {
		m.SetGeneration(1) // other resources keep what the request says (observed-writes.md)
	}
	dropDisabledPodFields(podSpecOf(obj), nil)
	switch o := obj.(type) {
	case *corev1.Namespace:
		o.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
		o.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		setNamespaceNameLabel(o)
	case *corev1.Pod:
		defaultPodLevelResources(&o.Spec)
		o.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(&o.Spec)}
		if len(o.Spec.SchedulingGates) > 0 {
			// The scheduler will not look at the pod until its gates are gone, which the
			// condition tells the pod's readers (reference/observed-computed.md, pod bound with gates).
			o.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonSchedulingGated, Message: "Scheduling is blocked due to non-empty scheduling gates",
				LastTransitionTime: m.GetCreationTimestamp()}}
		}
	case *apiextensionsv1.CustomResourceDefinition:
		prepareCRD(o, nil)
	case *batchv1.Job:
		generateJobSelector(o)
	case *appsv1.DaemonSet:
		setTemplateGeneration(o)
	case *corev1.PersistentVolumeClaim:
		o.Status.Phase = corev1.ClaimPending
		prepareClaimDataSources(&o.Spec, nil)
	case *coordinationv1.Lease:
		prepareLease(o, nil)
	case *corev1.PersistentVolume:
		o.Status.Phase = corev1.VolumePending
		o.Status.LastPhaseTransitionTime = ptr.To(m.GetCreationTimestamp())
	}
}

// admitCreate is what the apiserver's built-in mutating admission plugins other than LimitRanger
// do to a new object, before the mutating webhooks (which see it) and the strategy: a pod's
// not-ready and unreachable tolerations (DefaultTolerationSeconds), priority and preemption
// policy (Priority, without a PriorityClass); a node's not-ready taint (TaintNodesByCondition); a
// claim's, a volume's and a volume attributes class's protection finalizer
// (StorageObjectInUseProtection).
func admitCreate(obj runtime.Object, m metav1Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		admitPodTolerations(o)
		if o.Spec.Priority == nil {
			o.Spec.Priority = ptr.To[int32](0)
		}
		if o.Spec.PreemptionPolicy == nil {
			p := corev1.PreemptLowerPriority
			o.Spec.PreemptionPolicy = &p
		}
	case *corev1.Node:
		admitNodeTaint(o)
	case *corev1.PersistentVolumeClaim:
		addFinalizer(m, "kubernetes.io/pvc-protection")
	case *corev1.PersistentVolume:
		addFinalizer(m, "kubernetes.io/pv-protection")
	case *storagev1.VolumeAttributesClass:
		addFinalizer(m, "kubernetes.io/vac-protection")
	}
}

// admitNodeTaint is the not-ready taint the TaintNodesByCondition admission plugin adds to a new
// node that has no taint of that key and effect, so that nothing is scheduled on it before its
// node controller finds it ready (reference/observed-defaults.md, defaults / node).
func admitNodeTaint(n *corev1.Node) {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return
		}
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}

// setTemplateGeneration is a new daemon set's template generation, 1, which the apiserver's apps/v1
// keeps in an annotation. Unlike the rest of the strategy, it is there before the field manager
// records the create (reference/observed-defaults.md, defaults / daemonset: the creating manager
// owns the annotation), so creates call it before tracking too.
func setTemplateGeneration(ds *appsv1.DaemonSet) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = "1"
}

// nextTemplateGeneration is the daemon set strategy's PrepareForUpdate for the template
// generation (kept in apps/v1 as an annotation): the stored one, plus one when the template
// changes, whatever the request says.
func nextTemplateGeneration(ds, old *appsv1.DaemonSet) {
	gen, _ := strconv.ParseInt(old.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	if !equality.Semantic.DeepEqual(ds.Spec.Template, old.Spec.Template) {
		gen++
	}
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)
}

// addFinalizer adds a finalizer an object does not have yet.
func addFinalizer(m metav1Object, f string) {
	if !slices.Contains(m.GetFinalizers(), f) {
		m.SetFinalizers(append(m.GetFinalizers(), f))
	}
}

// generateJobSelector is the job strategy's selector for a job without a manual one: its pods are
// labelled with the job's uid and name (in the batch.kubernetes.io/ keys and the legacy ones) and
// the selector matches the uid. A job whose labels are its template's (defaultJobLabels) gets
// them too.
func generateJobSelector(j *batchv1.Job) {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	uid, name := string(j.UID), j.Name
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	for k, v := range map[string]string{
		batchv1.ControllerUidLabel: uid, batchv1.JobNameLabel: name,
		"controller-uid": uid, "job-name": name, // the legacy keys
	} {
		j.Spec.Template.Labels[k] = v
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: uid}}
	}
}

// mergeStringData moves a Secret's stringData into its data, as the apiserver's conversion of a
// v1 Secret does when it decodes one (stringData wins over data for the same key; stringData is
// never stored).
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		s.StringData = nil
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// prepareLease drops a lease's strategy and preferred holder, each unless the stored lease (old,
// nil on create) has it: the lease strategy with the CoordinatedLeaderElection feature off, as in
// kube-apiserver 1.37.2 by default (reference/observed-validation-core.md, core-lease).
func prepareLease(l, old *coordinationv1.Lease) {
	if old == nil || old.Spec.Strategy == nil {
		l.Spec.Strategy = nil
	}
	if old == nil || old.Spec.PreferredHolder == nil {
		l.Spec.PreferredHolder = nil
	}
}

// setNamespaceNameLabel sets the label kubernetes.io/metadata.name to the namespace's name, as
// the namespace strategy does on create and update.
func setNamespaceNameLabel(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// statusKeepsMetadata are the resources whose status strategies keep all of the stored metadata
// (metav1.ResetObjectMetaForStatus in k8s.io/kubernetes v1.37.2 pkg/registry; volume
// attachments recorded in reference/observed-status.md).
var statusKeepsMetadata = map[schema.GroupResource]bool{
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:                         true,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                                  true,
	{Group: "networking.k8s.io", Resource: "servicecidrs"}:                           true,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:                           true,
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                         true,
	{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}:               true,
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:               true,
	{Group: "scheduling.k8s.io", Resource: "podgroups"}:                              true,
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups"}:                     true,
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}:         true,
	{Group: "internal.apiserver.k8s.io", Resource: "storageversions"}:                true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}: true,
}

// statusMetadata gives a status write's result (om, a copy of the stored object with the new
// status) the metadata the resource's status strategy takes from the request (nm): the labels,
// annotations, finalizers and owner references, but for the resources that keep all of the stored
// metadata, a deployment's labels and a pod's owner references (reference/observed-status.md).
func statusMetadata(t *resourceType, om, nm metav1Object) {
	if statusKeepsMetadata[t.gvr.GroupResource()] {
		return
	}
	if t.gvk.Kind != "Deployment" {
		om.SetLabels(nm.GetLabels())
	}
	om.SetAnnotations(nm.GetAnnotations())
	om.SetFinalizers(nm.GetFinalizers())
	if t.gvk.Kind != "Pod" {
		om.SetOwnerReferences(nm.GetOwnerReferences())
	}
}

// prepareUpdate is the strategies' PrepareForUpdate for the main resource (subresource "": the
// status is the old one), for the status subresource (everything but the status and the metadata
// statusMetadata takes from the request is the old one) and for a namespace's finalize (the main
// resource's, with the request's spec.finalizers). It returns the object to store.
func prepareUpdate(t *resourceType, obj, old runtime.Object, subresource string) runtime.Object {
	status := subresource == "status"
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return prepareCustomUpdate(t, u, old.(*unstructured.Unstructured), status)
	}
	if status {
		out := old.DeepCopyObject()
		if f, nf := statusField(out), statusField(obj); f.IsValid() && nf.IsValid() {
			f.Set(nf)
		}
		om, _ := meta.Accessor(out)
		nm, _ := meta.Accessor(obj)
		om.SetResourceVersion(nm.GetResourceVersion())
		om.SetManagedFields(nm.GetManagedFields())
		statusMetadata(t, om, nm)
		if ns, ok := out.(*corev1.Namespace); ok {
			setNamespaceNameLabel(ns)
		}
		if p, ok := out.(*corev1.Pod); ok && p.Status.QOSClass == "" {
			// The QoS class is set on create and kept (reference/observed-validation-workloads.md,
			// wl-pod / status update with an invalid spec in the body).
			p.Status.QOSClass = old.(*corev1.Pod).Status.QOSClass
		}
		return out
	}
	if t.status && t.gvk.Kind != "Namespace" {
		if f, of := statusField(obj), statusField(old); f.IsValid() && of.IsValid() {
			f.Set(of)
		}
	}
	if spec := podSpecOf(obj); spec != nil && subresource == "" {
		dropDisabledPodFields(spec, podSpecOf(old))
	}
	if p, ok := obj.(*corev1.Pod); ok && subresource == "" && p.Spec.Resources == nil {
		// A client that does not know pod-level resources sends none: the pod strategy keeps the
		// stored ones (PodLevelResourcesFixDefaulting).
		p.Spec.Resources = old.(*corev1.Pod).Spec.Resources.DeepCopy()
	}
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		prepareCRD(o, old.(*apiextensionsv1.CustomResourceDefinition))
	case *corev1.Service:
		dropTypeDependentFields(o, old.(*corev1.Service))
		keepAllocated(o, old.(*corev1.Service))
	case *appsv1.DaemonSet:
		nextTemplateGeneration(o, old.(*appsv1.DaemonSet))
	case *coordinationv1.Lease:
		prepareLease(o, old.(*coordinationv1.Lease))
	case *corev1.PersistentVolumeClaim:
		prepareClaimDataSources(&o.Spec, &old.(*corev1.PersistentVolumeClaim).Spec)
	case *corev1.Namespace:
		o.Status = old.(*corev1.Namespace).Status
		if subresource != "finalize" {
			// Only the finalize subresource changes spec.finalizers (the namespace strategy).
			o.Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
		}
		if o.Status.Phase == "" {
			o.Status.Phase = corev1.NamespaceActive
		}
		setNamespaceNameLabel(o)
	}
	return obj
}

// specChanged reports whether an update bumps generation: anything but metadata and status
// differs (the strategies compare spec, or for webhook configurations their webhooks: everything
// that is neither metadata nor status). A Deployment's annotations count too, since the
// deployment controller copies them to its ReplicaSets, and an EndpointSlice's labels (the apps
// and discovery strategies' PrepareForUpdate).
func specChanged(obj, old runtime.Object) bool {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return customSpecChanged(o, old.(*unstructured.Unstructured))
	case *appsv1.Deployment:
		if !equality.Semantic.DeepEqual(o.Annotations, old.(*appsv1.Deployment).Annotations) {
			return true
		}
	case *discoveryv1.EndpointSlice:
		if !equality.Semantic.DeepEqual(o.Labels, old.(*discoveryv1.EndpointSlice).Labels) {
			return true
		}
	}
	a, b := reflect.ValueOf(obj).Elem(), reflect.ValueOf(old).Elem()
	if a.Type() != b.Type() {
		return true
	}
	for i := 0; i < a.NumField(); i++ {
		switch a.Type().Field(i).Name {
		case "TypeMeta", "ObjectMeta", "Status":
			continue
		}
		if !equality.Semantic.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			return true
		}
	}
	return false
}

// podQOS is a pod's QoS class (the apiserver's qos.GetPodQOS for container resources): BestEffort
// without any cpu or memory request or limit, Guaranteed when every container limits both and
// requests what it limits, Burstable otherwise.
func podQOS(spec *corev1.PodSpec) corev1.PodQOSClass {
	if spec.Resources != nil && resourcehelper.IsPodLevelResourcesSet(&corev1.Pod{Spec: corev1.PodSpec{Resources: spec.Resources}}) {
		return requirementsQOS(spec.Resources)
	}
	any, guaranteed := false, true
	check := func(cs []corev1.Container) {
		for _, c := range cs {
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, hasReq := c.Resources.Requests[name]
				lim, hasLim := c.Resources.Limits[name]
				if (hasReq && !req.IsZero()) || (hasLim && !lim.IsZero()) {
					any = true
				}
				if !hasLim || lim.IsZero() || (hasReq && req.Cmp(lim) != 0) {
					guaranteed = false
				}
			}
		}
	}
	check(spec.InitContainers)
	check(spec.Containers)
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	default:
		return corev1.PodQOSBurstable
	}
}

// requirementsQOS is the QoS class of one set of requirements (the pod's own, when it has
// pod-level resources): BestEffort without any, Guaranteed when cpu and memory each have a
// request equal to a non-zero limit, else Burstable.
func requirementsQOS(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var qos corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		c := corev1.PodQOSGuaranteed
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			c = corev1.PodQOSBestEffort
		}
		if qos != "" && qos != c {
			return corev1.PodQOSBurstable
		}
		qos = c
	}
	return qos
}

// defaultPodLevelResources completes a new pod's pod-level resources, as the pod strategy does
// before the QoS class (k8s.io/kubernetes pkg/api/pod's DefaultPodLevelResources, with
// PodLevelResourcesFixDefaulting on in 1.37.2): hugepages limits from the containers' when the
// pod sets neither, requests from the containers' (of resources that may be overcommitted) and
// else from the pod's limits, and limits from the containers' when every container has one, no
// lower than the pod's request (reference/observed-validation-podspec.md, ps-podresources).
func defaultPodLevelResources(spec *corev1.PodSpec) {
	r := spec.Resources
	if r == nil || len(r.Requests)+len(r.Limits) == 0 {
		return
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: spec.InitContainers, Containers: spec.Containers}}
	limits := r.Limits
	if limits == nil {
		limits = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{}) {
		if _, requested := r.Requests[name]; strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) && !requested {
			if _, ok := limits[name]; !ok {
				limits[name] = q
			}
		}
	}
	if len(limits) > 0 {
		r.Limits = limits
	}
	requests := r.Requests
	if requests == nil {
		requests = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && !overcommitForbidden(name) {
			requests[name] = q
		}
	}
	for name, q := range r.Limits {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			requests[name] = q.DeepCopy()
		}
	}
	if len(requests) > 0 {
		r.Requests = requests
	}
	candidates := sets.New[corev1.ResourceName]()
	for name := range r.Requests {
		if _, ok := r.Limits[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			candidates.Insert(name)
		}
	}
	eachContainer(spec, func(c *corev1.Container) {
		for name := range candidates {
			if _, ok := c.Resources.Limits[name]; !ok {
				candidates.Delete(name)
			}
		}
	})
	if candidates.Len() == 0 {
		return
	}
	aggregate := resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{})
	for name := range candidates {
		limit, ok := aggregate[name]
		if !ok {
			continue
		}
		if req := r.Requests[name]; req.Cmp(limit) > 0 {
			limit = req
		}
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		r.Limits[name] = limit
	}
}

// nameValidator is the name rule of a resource's ObjectMeta validation: DNS-1123 subdomains for
// most, DNS labels for namespaces, services and stateful sets, path segments for RBAC's.
func nameValidator(t *resourceType) apimachineryvalidation.ValidateNameFunc {
	switch {
	case t.gvr.Group == "" && (t.gvr.Resource == "namespaces" || t.gvr.Resource == "services"):
		// Services: DNS labels since RelaxedServiceNameValidation (observed-writes.md, create /
		// service invalid name: "1svc" is accepted).
		return apimachineryvalidation.NameIsDNSLabel
	case t.gvr.Group == "apps" && t.gvr.Resource == "statefulsets":
		// Its pods' hostnames are <name>-<ordinal> (reference/observed-validation-workloads.md,
		// wl-statefulset / name with a dot).
		return apimachineryvalidation.NameIsDNSLabel
	case t.gvr.Group == "rbac.authorization.k8s.io", t.gvr.Group == "" && t.gvr.Resource == "events":
		// A v1 Event's strategy validates no name: only the store's path segment rule holds.
		return path.ValidatePathSegmentName
	default:
		return apimachineryvalidation.NameIsDNSSubdomain
	}
}

// validateMeta is the common ObjectMeta validation of a create.
func validateMeta(t *resourceType, m metav1Object) field.ErrorList {
	names := nameValidator(t)
	if b, ok := m.(*certificatesv1.ClusterTrustBundle); ok {
		names = trustBundleName(b.Spec.SignerName)
	}
	return apimachineryvalidation.ValidateObjectMetaAccessor(m, t.namespaced, names, field.NewPath("metadata"))
}

// validateMetaUpdate is the common ObjectMeta validation of an update (labels, annotations,
// finalizers, owner references, immutable name and namespace; the name was validated on create).
func validateMetaUpdate(m, old metav1Object) field.ErrorList {
	return apimachineryvalidation.ValidateObjectMetaAccessorUpdate(m, old, metadataPath)
}

// metadataPath is the path of an object's metadata, which validateMetaUpdate's errors start
// with. A field.Path is never changed once made (Child and Index make new ones that point to
// it), so every update shares this one.
var metadataPath = field.NewPath("metadata")

// prepareClaimDataSources is what the claim strategy does to a claim's data sources on create (old
// nil) and update: a reference's namespace is dropped (CrossNamespaceVolumeDataSource is off)
// unless the old claim has one; a new claim's dataSource other than a claim or a volume snapshot,
// without a dataSourceRef, is dropped as older apiservers did; then each of dataSource and
// dataSourceRef is filled from the other (a namespaced reference has no dataSource).
func prepareClaimDataSources(s, old *corev1.PersistentVolumeClaimSpec) {
	if r := s.DataSourceRef; r != nil && r.Namespace != nil && (old == nil || old.DataSourceRef == nil || old.DataSourceRef.Namespace == nil) {
		r.Namespace = nil
	}
	inUse := old != nil && (old.DataSource != nil || old.DataSourceRef != nil)
	if d := s.DataSource; d != nil && !inUse && s.DataSourceRef == nil {
		group := ptr.Deref(d.APIGroup, "")
		if !(d.Kind == "PersistentVolumeClaim" && group == "") && !(d.Kind == "VolumeSnapshot" && group == "snapshot.storage.k8s.io") {
			s.DataSource = nil
		}
	}
	switch {
	case s.DataSource != nil && s.DataSourceRef == nil:
		s.DataSourceRef = &corev1.TypedObjectReference{APIGroup: s.DataSource.APIGroup, Kind: s.DataSource.Kind, Name: s.DataSource.Name}
	case s.DataSourceRef != nil && s.DataSource == nil && ptr.Deref(s.DataSourceRef.Namespace, "") == "":
		s.DataSource = &corev1.TypedLocalObjectReference{APIGroup: s.DataSourceRef.APIGroup, Kind: s.DataSourceRef.Kind, Name: s.DataSourceRef.Name}
	}
}
