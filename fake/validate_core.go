package fake

import (
	"encoding/json"
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
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
// validateWorkloadKind does not do: a node's (validateNodeUpdate).
func validateCoreStatus(obj, old runtime.Object) field.ErrorList {
	if n, ok := obj.(*corev1.Node); ok {
		return uniqueCauses(validateNodeUpdate(n, old.(*corev1.Node), true))
	}
	return nil
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
