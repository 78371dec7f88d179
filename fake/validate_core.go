package fake

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"net"
	"reflect"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's spec validation of the built-in kinds that are not workloads, rewritten from
// kube-apiserver 1.37.2's validators (k8s.io/kubernetes/pkg/apis/*/validation, which the fake may
// not import) and pinned by the recorded answers in reference/observed-validation-core.md. Each
// validator returns the causes beyond ObjectMeta's in the apiserver's order; where the apiserver
// walks a map (a ConfigMap's or Secret's keys), in the order of the sorted keys, as the
// apiserver's own order is Go's random one. This file holds the dispatch, config maps, secrets
// and the format helpers; validate_service.go, validate_endpoints.go, validate_quota.go,
// validate_rbac.go, validate_network.go, validate_groups.go, validate_hpa.go and validate_volumes.go
// the other kinds.

// validateCoreKind is the spec validation of a Service, Endpoints, EndpointSlice, ConfigMap,
// Secret, ResourceQuota, RBAC object, Lease, PersistentVolume, PersistentVolumeClaim, LimitRange,
// PodDisruptionBudget, HorizontalPodAutoscaler, NetworkPolicy, Ingress, IngressClass,
// PriorityClass or StorageClass on create (old nil) and update; other kinds have none here.
func validateCoreKind(obj, old runtime.Object) field.ErrorList {
	return uniqueCauses(coreKindCauses(obj, old))
}

// validateCoreStatus is the validation of an update of a built-in kind's status that
// validateWorkloadKind does not do: a node's (validateNodeUpdate), an ingress's and a service's
// load balancer status (ValidateIngressStatusUpdate, ValidateServiceStatusUpdate), a namespace's
// phase, a replication controller's and a disruption budget's counts, a volume attachment's
// errors and metadata, a quota's status quantities.
func validateCoreStatus(obj, old runtime.Object) field.ErrorList {
	lbPath := field.NewPath("status", "loadBalancer")
	switch o := obj.(type) {
	case *corev1.Namespace:
		// The apiserver's path names the Go field.
		switch p := field.NewPath("status", "Phase"); {
		case o.DeletionTimestamp.IsZero() && o.Status.Phase != corev1.NamespaceActive:
			return field.ErrorList{field.Invalid(p, o.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty")}
		case !o.DeletionTimestamp.IsZero() && o.Status.Phase != corev1.NamespaceTerminating:
			return field.ErrorList{field.Invalid(p, o.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")}
		}
		return nil
	case *corev1.ReplicationController:
		return validateReplicationControllerStatus(&o.Status)
	case *storagev1.VolumeAttachment:
		return validateVolumeAttachmentStatus(&o.Status)
	case *corev1.ResourceQuota:
		var errs field.ErrorList
		for _, part := range []struct {
			name string
			list corev1.ResourceList
		}{{"hard", o.Status.Hard}, {"used", o.Status.Used}} {
			for _, n := range slices.Sorted(maps.Keys(part.list)) {
				p := field.NewPath("status", part.name).Key(string(n))
				errs = append(errs, quotaResourceName(n, p)...)
				errs = append(errs, validateResourceQuantityValue(n, part.list[n], p)...)
			}
		}
		return errs
	case *policyv1.PodDisruptionBudget:
		p := field.NewPath("status")
		errs := metav1validation.ValidateConditions(o.Status.Conditions, p.Child("conditions"))
		errs = append(errs, validateNonNegative(o.Status.DisruptionsAllowed, p.Child("disruptionsAllowed"))...)
		errs = append(errs, validateNonNegative(o.Status.CurrentHealthy, p.Child("currentHealthy"))...)
		errs = append(errs, validateNonNegative(o.Status.DesiredHealthy, p.Child("desiredHealthy"))...)
		return append(errs, validateNonNegative(o.Status.ExpectedPods, p.Child("expectedPods"))...)
	case *corev1.Node:
		return uniqueCauses(validateNodeUpdate(o, old.(*corev1.Node), true))
	case *networkingv1.Ingress:
		var ing []loadBalancerIngress
		for _, i := range o.Status.LoadBalancer.Ingress {
			ing = append(ing, loadBalancerIngress{ip: i.IP, hostname: i.Hostname})
		}
		var oldIPs []string
		for _, i := range old.(*networkingv1.Ingress).Status.LoadBalancer.Ingress {
			if i.IP != "" {
				oldIPs = append(oldIPs, i.IP)
			}
		}
		return validateLoadBalancerIngress(ing, oldIPs, lbPath.Child("ingress"), false)
	case *corev1.Service:
		if o.Spec.Type != corev1.ServiceTypeLoadBalancer && len(o.Status.LoadBalancer.Ingress) > 0 {
			return field.ErrorList{field.Forbidden(lbPath.Child("ingress"), "may only be used when `spec.type` is 'LoadBalancer'")}
		}
		var ing []loadBalancerIngress
		for _, i := range o.Status.LoadBalancer.Ingress {
			ing = append(ing, loadBalancerIngress{ip: i.IP, hostname: i.Hostname, ipMode: i.IPMode})
		}
		var oldIPs []string
		for _, i := range old.(*corev1.Service).Status.LoadBalancer.Ingress {
			if i.IP != "" {
				oldIPs = append(oldIPs, i.IP)
			}
		}
		return validateLoadBalancerIngress(ing, oldIPs, lbPath.Child("ingress"), true)
	}
	return nil
}

// validateControllerRevision is ValidateControllerRevisionCreate (old nil) and
// ValidateControllerRevisionUpdate without ObjectMeta: a non-negative revision, data that is a
// JSON object, and on update the same data.
func validateControllerRevision(cr, old *appsv1.ControllerRevision) field.ErrorList {
	errs := apimachineryvalidation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))
	data := field.NewPath("data")
	if old != nil {
		if !bytes.Equal(cr.Data.Raw, old.Data.Raw) {
			errs = append(errs, field.Invalid(data, cr.Data, "field is immutable"))
		}
		return errs
	}
	var v any
	switch err := json.Unmarshal(cr.Data.Raw, &v); {
	case cr.Data.Raw == nil:
		errs = append(errs, field.Required(data, "data is mandatory"))
	case err != nil:
		errs = append(errs, field.Invalid(data, "<value omitted>", "error parsing data: "+err.Error()))
	case v == nil:
		errs = append(errs, field.Required(data, "data is mandatory"))
	default:
		if _, ok := v.(map[string]any); !ok {
			errs = append(errs, field.Required(data, "data must be a valid JSON object"))
		}
	}
	return errs
}

// validateVolumeAttachmentStatus is validateVolumeAttachmentStatus: metadata of at most 256 kB,
// error messages of at most 1024 bytes, non-negative error codes.
func validateVolumeAttachmentStatus(st *storagev1.VolumeAttachmentStatus) field.ErrorList {
	p := field.NewPath("status")
	var errs field.ErrorList
	size := 0
	for k, v := range st.AttachmentMetadata {
		size += len(k) + len(v)
	}
	const maxMetadata, maxMessage = 256 << 10, 1024
	if size > maxMetadata {
		errs = append(errs, field.TooLong(p.Child("attachmentMetadata"), "", maxMetadata))
	}
	for _, e := range []struct {
		name string
		err  *storagev1.VolumeError
	}{{"attachError", st.AttachError}, {"detachError", st.DetachError}} {
		if e.err == nil {
			continue
		}
		if len(e.err.Message) > maxMessage {
			errs = append(errs, field.TooLong(p.Child(e.name, "message"), "", maxMessage))
		}
		if c := e.err.ErrorCode; c != nil && *c < 0 {
			errs = append(errs, field.Invalid(p.Child(e.name, "errorCode"), *c, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
	}
	return errs
}

// validateReplicationControllerStatus is ValidateReplicationControllerStatus: non-negative
// counts, none above replicas, no more available than ready.
func validateReplicationControllerStatus(s *corev1.ReplicationControllerStatus) field.ErrorList {
	p := field.NewPath("status")
	errs := validateNonNegative(s.Replicas, p.Child("replicas"))
	errs = append(errs, validateNonNegative(s.FullyLabeledReplicas, p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, validateNonNegative(s.ReadyReplicas, p.Child("readyReplicas"))...)
	errs = append(errs, validateNonNegative(s.AvailableReplicas, p.Child("availableReplicas"))...)
	errs = append(errs, validateNonNegative(s.ObservedGeneration, p.Child("observedGeneration"))...)
	for _, c := range []struct {
		name string
		n    int32
	}{{"fullyLabeledReplicas", s.FullyLabeledReplicas}, {"readyReplicas", s.ReadyReplicas}, {"availableReplicas", s.AvailableReplicas}} {
		if c.n > s.Replicas {
			errs = append(errs, field.Invalid(p.Child(c.name), c.n, "cannot be greater than status.replicas"))
		}
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return errs
}

// loadBalancerIngress is what the status validation reads of a service's or an ingress's load
// balancer ingress point.
type loadBalancerIngress struct {
	ip, hostname string
	ipMode       *corev1.LoadBalancerIPMode
}

// validateLoadBalancerIngress validates load balancer ingress points: an IP that is valid (or
// already stored), a hostname that is a DNS subdomain and no IP, and for a service the IP mode,
// required with an IP and only with one (ValidateLoadBalancerStatus,
// ValidateIngressLoadBalancerStatus).
func validateLoadBalancerIngress(ing []loadBalancerIngress, oldIPs []string, path *field.Path, service bool) field.ErrorList {
	var errs field.ErrorList
	for i, in := range ing {
		p := path.Index(i)
		if in.ip != "" {
			errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), in.ip, true, oldIPs)...)
		}
		if service {
			switch {
			case in.ipMode == nil:
				if in.ip != "" {
					errs = append(errs, field.Required(p.Child("ipMode"), "must be specified when `ip` is set"))
				}
			case in.ip == "":
				errs = append(errs, field.Forbidden(p.Child("ipMode"), "may not be specified when `ip` is not set"))
			case *in.ipMode != corev1.LoadBalancerIPModeVIP && *in.ipMode != corev1.LoadBalancerIPModeProxy:
				errs = append(errs, field.NotSupported(p.Child("ipMode"), in.ipMode, []string{string(corev1.LoadBalancerIPModeProxy), string(corev1.LoadBalancerIPModeVIP)}))
			}
		}
		if in.hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(in.hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), in.hostname, msg))
			}
			if net.ParseIP(in.hostname) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), in.hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// oldAs is an update's old object as the kind's type, or the type's nil on create.
func oldAs[T runtime.Object](old runtime.Object) T {
	if old == nil {
		var none T
		return none
	}
	return old.(T)
}

// coreKindCauses is validateCoreKind before uniqueCauses.
func coreKindCauses(obj, old runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Service:
		return validateService(o, oldAs[*corev1.Service](old))
	case *corev1.ConfigMap:
		errs := field.ErrorList{}
		if old != nil {
			errs = validateConfigMapImmutable(o, old.(*corev1.ConfigMap))
		}
		return append(errs, validateConfigMap(o)...)
	case *corev1.Secret:
		errs := field.ErrorList{}
		if old != nil {
			errs = validateSecretUpdate(o, old.(*corev1.Secret))
		}
		return append(errs, validateSecret(o)...)
	case *corev1.PersistentVolume:
		return validatePersistentVolume(o, oldAs[*corev1.PersistentVolume](old))
	case *corev1.LimitRange:
		return validateLimitRange(o)
	case *storagev1.VolumeAttachment:
		return validateVolumeAttachment(o, oldAs[*storagev1.VolumeAttachment](old))
	case *storagev1.CSIDriver:
		return validateCSIDriver(o, oldAs[*storagev1.CSIDriver](old))
	case *corev1.Event, *eventsv1.Event:
		return validateEvent(obj, old)
	case *appsv1.ControllerRevision:
		return validateControllerRevision(o, oldAs[*appsv1.ControllerRevision](old))
	case *storagev1.CSINode:
		return validateCSINode(o)
	case *storagev1.CSIStorageCapacity:
		return validateCSIStorageCapacity(o, oldAs[*storagev1.CSIStorageCapacity](old))
	case *storagev1.VolumeAttributesClass:
		return validateVolumeAttributesClass(o, oldAs[*storagev1.VolumeAttributesClass](old))
	case *resourcev1.ResourceClaim:
		// The spec is immutable; an update checks nothing else of it.
		if prev, ok := old.(*resourcev1.ResourceClaim); ok && !reflect.DeepEqual(o.Spec, prev.Spec) {
			return field.ErrorList{field.Invalid(field.NewPath("spec"), nil, "field is immutable")}
		}
		return nil
	case *nodev1.RuntimeClass:
		return validateRuntimeClass(o, oldAs[*nodev1.RuntimeClass](old))
	case *admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration:
		return validateWebhookConfiguration(o, old, nil)
	case *corev1.Node:
		errs := validateNode(o)
		if old != nil {
			errs = append(errs, validateNodeUpdate(o, old.(*corev1.Node), false)...)
		}
		return errs
	case *corev1.PersistentVolumeClaim:
		errs := validatePVCSpec(&o.Spec, field.NewPath("spec"))
		if old != nil {
			errs = append(errs, validatePVCUpdate(o, old.(*corev1.PersistentVolumeClaim))...)
		}
		return errs
	case *rbacv1.Role:
		return append(validateRules(o.Rules, true), requiredVerbs(o.Rules)...)
	case *rbacv1.ClusterRole:
		return validateClusterRole(o)
	case *rbacv1.RoleBinding:
		var prev *rbacv1.RoleRef
		if old != nil {
			prev = &old.(*rbacv1.RoleBinding).RoleRef
		}
		return validateBinding(o.RoleRef, o.Subjects, prev, true)
	case *rbacv1.ClusterRoleBinding:
		var prev *rbacv1.RoleRef
		if old != nil {
			prev = &old.(*rbacv1.ClusterRoleBinding).RoleRef
		}
		return validateBinding(o.RoleRef, o.Subjects, prev, false)
	case *corev1.ResourceQuota:
		return validateResourceQuota(o, oldAs[*corev1.ResourceQuota](old))
	case *corev1.Endpoints:
		return validateEndpoints(o, oldAs[*corev1.Endpoints](old))
	case *discoveryv1.EndpointSlice:
		return validateEndpointSlice(o, oldAs[*discoveryv1.EndpointSlice](old))
	case *networkingv1.NetworkPolicy:
		return validateNetworkPolicySpec(&o.Spec, field.NewPath("spec"))
	case *networkingv1.Ingress:
		return validateIngress(o, oldAs[*networkingv1.Ingress](old))
	case *networkingv1.IngressClass:
		return validateIngressClass(o, oldAs[*networkingv1.IngressClass](old))
	case *schedulingv1.PriorityClass:
		return validatePriorityClass(o, oldAs[*schedulingv1.PriorityClass](old))
	case *storagev1.StorageClass:
		return validateStorageClass(o, oldAs[*storagev1.StorageClass](old))
	case *coordinationv1.Lease:
		return validateLeaseSpec(&o.Spec, field.NewPath("spec"))
	case *policyv1.PodDisruptionBudget:
		return validatePDBSpec(&o.Spec, field.NewPath("spec"))
	case *autoscalingv2.HorizontalPodAutoscaler:
		var prev *autoscalingv2.HorizontalPodAutoscalerSpec
		if old != nil {
			prev = &old.(*autoscalingv2.HorizontalPodAutoscaler).Spec
		}
		return validateHPASpec(&o.Spec, prev, field.NewPath("spec"))
	}
	return nil
}

// ConfigMaps and Secrets.

// maxDataSize is the limit of a ConfigMap's or Secret's data, all values together (1 MiB, the
// apiserver's MaxSecretSize).
const maxDataSize = 1 << 20

// immutableMessage is the detail of a change to an immutable ConfigMap or Secret.
const immutableMessage = "field is immutable when `immutable` is set"

// validateConfigMap is the apiserver's ValidateConfigMap without ObjectMeta.
func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := field.ErrorList{}
	size := 0
	for _, k := range sortedKeys(cm.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, msg))
		}
		if _, ok := cm.BinaryData[k]; ok {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(cm.Data[k])
	}
	for _, k := range sortedKeys(cm.BinaryData) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(k), k, msg))
		}
		size += len(cm.BinaryData[k])
	}
	if size > maxDataSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxDataSize))
	}
	return errs
}

// validateConfigMapImmutable is the apiserver's rule for an update of an immutable ConfigMap.
func validateConfigMapImmutable(cm, old *corev1.ConfigMap) field.ErrorList {
	errs := field.ErrorList{}
	if old.Immutable == nil || !*old.Immutable {
		return errs
	}
	if cm.Immutable == nil || !*cm.Immutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMessage))
	}
	if !reflect.DeepEqual(cm.Data, old.Data) {
		errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMessage))
	}
	if !reflect.DeepEqual(cm.BinaryData, old.BinaryData) {
		errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableMessage))
	}
	return errs
}

// validateSecret is the apiserver's ValidateSecret without ObjectMeta: data keys, size, and the
// keys each type requires.
func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := field.ErrorList{}
	data := field.NewPath("data")
	size := 0
	for _, k := range sortedKeys(s.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(data.Key(k), k, msg))
		}
		size += len(s.Data[k])
	}
	if size > maxDataSize {
		errs = append(errs, field.TooLong(data, "", maxDataSize))
	}
	jsonKey := func(key string) {
		b, ok := s.Data[key]
		if !ok {
			errs = append(errs, field.Required(data.Key(key), ""))
			return
		}
		if err := json.Unmarshal(b, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(data.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		jsonKey(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		jsonKey(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			errs = append(errs, field.Required(data.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(data.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		if _, ok := s.Data[corev1.TLSCertKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSCertKey), ""))
		}
		if _, ok := s.Data[corev1.TLSPrivateKeyKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSPrivateKeyKey), ""))
		}
	}
	return errs
}

// validateSecretUpdate is the apiserver's update rules of a Secret: its type never changes, and
// an immutable one keeps its data.
func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := apimachineryvalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMessage))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMessage))
		}
	}
	return errs
}

// Formats.

// dns1123Label is the apiserver's ValidateDNS1123Label.
func dns1123Label(v string, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(path, v, msg))
	}
	return errs
}

// dns1123Subdomain is the apiserver's ValidateDNS1123Subdomain.
func dns1123Subdomain(v string, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, msg := range validation.IsDNS1123Subdomain(v) {
		errs = append(errs, field.Invalid(path, v, msg))
	}
	return errs
}

// qualifiedName is the apiserver's ValidateQualifiedName.
func qualifiedName(v string, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, msg := range validation.IsQualifiedName(v) {
		errs = append(errs, field.Invalid(path, v, msg))
	}
	return errs
}

// portNumOrName is the apiserver's ValidatePortNumOrName.
func portNumOrName(p intstr.IntOrString, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if p.Type == intstr.Int {
		errs = append(errs, validPort(p.IntValue(), path)...)
		return errs
	}
	for _, msg := range validation.IsValidPortName(p.StrVal) {
		errs = append(errs, field.Invalid(path, p.StrVal, msg))
	}
	return errs
}
