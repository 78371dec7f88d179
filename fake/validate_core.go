package fake

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The apiserver's spec validation of the built-in kinds that are not workloads, rewritten from
// kube-apiserver 1.37.2's validators (k8s.io/kubernetes/pkg/apis/*/validation, which the fake may
// not import) and pinned by the recorded answers in reference/observed-validation-core.md. Each
// validator returns the causes beyond ObjectMeta's in the apiserver's order; where the apiserver
// walks a map (a ConfigMap's or Secret's keys), in the order of the sorted keys, as the
// apiserver's own order is Go's random one.

// validateCoreKind is the spec validation of a Service, Endpoints, EndpointSlice, ConfigMap,
// Secret, RBAC object, Lease, PersistentVolumeClaim, PodDisruptionBudget, HorizontalPodAutoscaler,
// NetworkPolicy, Ingress or PriorityClass on create (old nil) and update; other kinds have none
// here.
func validateCoreKind(obj, old runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Service:
		var prev *corev1.Service
		if old != nil {
			prev = old.(*corev1.Service)
		}
		return validateService(o, prev)
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
	case *corev1.Endpoints:
		var prev *corev1.Endpoints
		if old != nil {
			prev = old.(*corev1.Endpoints)
		}
		return validateEndpoints(o, prev)
	case *discoveryv1.EndpointSlice:
		var prev *discoveryv1.EndpointSlice
		if old != nil {
			prev = old.(*discoveryv1.EndpointSlice)
		}
		return validateEndpointSlice(o, prev)
	case *networkingv1.NetworkPolicy:
		return validateNetworkPolicySpec(&o.Spec, field.NewPath("spec"))
	case *networkingv1.Ingress:
		var prev *networkingv1.Ingress
		if old != nil {
			prev = old.(*networkingv1.Ingress)
		}
		return validateIngress(o, prev)
	case *schedulingv1.PriorityClass:
		var prev *schedulingv1.PriorityClass
		if old != nil {
			prev = old.(*schedulingv1.PriorityClass)
		}
		return validatePriorityClass(o, prev)
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

// Services.

var (
	serviceTypes            = []string{string(corev1.ServiceTypeClusterIP), string(corev1.ServiceTypeExternalName), string(corev1.ServiceTypeLoadBalancer), string(corev1.ServiceTypeNodePort)}
	sessionAffinities       = []string{string(corev1.ServiceAffinityClientIP), string(corev1.ServiceAffinityNone)}
	portProtocols           = []string{string(corev1.ProtocolSCTP), string(corev1.ProtocolTCP), string(corev1.ProtocolUDP)}
	externalTrafficPolicies = []string{string(corev1.ServiceExternalTrafficPolicyCluster), string(corev1.ServiceExternalTrafficPolicyLocal)}
	internalTrafficPolicies = []string{string(corev1.ServiceInternalTrafficPolicyCluster), string(corev1.ServiceInternalTrafficPolicyLocal)}
)

// internalServicePort has the fields of the apiserver's internal ServicePort, in their order and
// without JSON tags: the duplicate-port cause quotes one, JSON-encoded.
type internalServicePort struct {
	Name        string
	Protocol    corev1.Protocol
	AppProtocol *string
	Port        int32
	TargetPort  intstr.IntOrString
	NodePort    int32
}

// headless reports a service whose only cluster IP is None.
func headless(svc *corev1.Service) bool {
	return len(svc.Spec.ClusterIPs) == 1 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
}

// validateService is the apiserver's validateService (old nil on create); the cluster IPs' own
// rules are admitService's and validateServiceUpdate's.
func validateService(svc, old *corev1.Service) field.ErrorList {
	errs := field.ErrorList{}
	if old != nil {
		errs = validateServiceChange(svc, old)
	}
	sp := &svc.Spec
	specPath := field.NewPath("spec")
	if len(sp.Ports) == 0 && !headless(svc) && sp.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(specPath.Child("ports"), ""))
	}
	switch sp.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if headless(svc) {
			errs = append(errs, field.Invalid(specPath.Child("clusterIPs").Index(0), sp.ClusterIPs[0], fmt.Sprintf("may not be set to 'None' for %s services", sp.Type)))
		}
	case corev1.ServiceTypeExternalName:
		if len(sp.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(sp.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if sp.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		// The value (a CNAME) may end in a dot, as a fully qualified name.
		if cname := strings.TrimSuffix(sp.ExternalName, "."); cname != "" {
			errs = append(errs, dns1123Subdomain(cname, specPath.Child("externalName"))...)
		} else {
			errs = append(errs, field.Required(specPath.Child("externalName"), ""))
		}
	}
	names := map[string]bool{}
	for i := range sp.Ports {
		errs = append(errs, validateServicePort(&sp.Ports[i], len(sp.Ports) > 1, names, specPath.Child("ports").Index(i))...)
	}
	if sp.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(sp.Selector, specPath.Child("selector"))...)
	}
	switch sp.SessionAffinity {
	case "":
		errs = append(errs, field.Required(specPath.Child("sessionAffinity"), ""))
	case corev1.ServiceAffinityClientIP:
		errs = append(errs, validateClientIPAffinity(sp.SessionAffinityConfig, specPath.Child("sessionAffinityConfig"))...)
	case corev1.ServiceAffinityNone:
		if sp.SessionAffinityConfig != nil {
			errs = append(errs, field.Forbidden(specPath.Child("sessionAffinityConfig"), "must not be set when session affinity is None"))
		}
	default:
		errs = append(errs, field.NotSupported(specPath.Child("sessionAffinity"), sp.SessionAffinity, sessionAffinities))
	}
	errs = append(errs, validateServiceIPFields(svc)...)
	var oldExternalIPs []string
	if old != nil {
		oldExternalIPs = old.Spec.ExternalIPs
	}
	for i, ip := range sp.ExternalIPs {
		p := specPath.Child("externalIPs").Index(i)
		if e := validation.IsValidIPForLegacyField(p, ip, true, oldExternalIPs); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, endpointIP(ip, p)...)
		}
	}
	switch {
	case sp.Type == "":
		errs = append(errs, field.Required(specPath.Child("type"), ""))
	case !slices.Contains(serviceTypes, string(sp.Type)):
		errs = append(errs, field.NotSupported(specPath.Child("type"), sp.Type, serviceTypes))
	}
	if sp.Type == corev1.ServiceTypeClusterIP {
		for i := range sp.Ports {
			if sp.Ports[i].NodePort != 0 {
				errs = append(errs, field.Forbidden(specPath.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	type protoPort struct {
		protocol corev1.Protocol
		port     int32
	}
	nodePorts := map[protoPort]bool{}
	for i, p := range sp.Ports {
		if p.NodePort == 0 {
			continue
		}
		k := protoPort{p.Protocol, p.NodePort}
		if nodePorts[k] {
			errs = append(errs, field.Duplicate(specPath.Child("ports").Index(i).Child("nodePort"), p.NodePort))
		}
		nodePorts[k] = true
	}
	ports := map[protoPort]bool{}
	for i, p := range sp.Ports {
		k := protoPort{p.Protocol, p.Port}
		if ports[k] {
			errs = append(errs, field.Duplicate(specPath.Child("ports").Index(i), internalServicePort{Protocol: p.Protocol, Port: p.Port}))
		}
		ports[k] = true
	}
	if len(sp.LoadBalancerSourceRanges) > 0 && sp.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(specPath.Child("LoadBalancerSourceRanges"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if sp.AllocateLoadBalancerNodePorts != nil && sp.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(specPath.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if sp.LoadBalancerClass != nil {
		if sp.Type == corev1.ServiceTypeLoadBalancer {
			errs = append(errs, qualifiedName(*sp.LoadBalancerClass, specPath.Child("loadBalancerClass"))...)
		} else {
			errs = append(errs, field.Forbidden(specPath.Child("loadBalancerClass"), "may only be used when `type` is 'LoadBalancer'"))
		}
	}
	errs = append(errs, validateTrafficPolicies(svc)...)
	return errs
}

var (
	ipFamilies       = []string{string(corev1.IPv4Protocol), string(corev1.IPv6Protocol)}
	ipFamilyPolicies = []string{string(corev1.IPFamilyPolicyPreferDualStack), string(corev1.IPFamilyPolicyRequireDualStack), string(corev1.IPFamilyPolicySingleStack)}
)

// validateServiceIPFields is the part of the apiserver's ValidateServiceClusterIPsRelatedFields
// that admitService leaves: the IP families and their policy, the number of cluster IPs, and each
// IP's family against ipFamilies. (admitService already refused cluster IPs that are not IPs.)
func validateServiceIPFields(svc *corev1.Service) field.ErrorList {
	sp := &svc.Spec
	errs := field.ErrorList{}
	if sp.Type == corev1.ServiceTypeExternalName {
		return errs
	}
	specPath := field.NewPath("spec")
	seen := map[corev1.IPFamily]bool{}
	for i, f := range sp.IPFamilies {
		if !slices.Contains(ipFamilies, string(f)) {
			errs = append(errs, field.NotSupported(specPath.Child("ipFamilies").Index(i), f, ipFamilies))
		}
		if seen[f] {
			errs = append(errs, field.Duplicate(specPath.Child("ipFamilies").Index(i), f))
		}
		seen[f] = true
	}
	if p := sp.IPFamilyPolicy; p != nil && !slices.Contains(ipFamilyPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(specPath.Child("ipFamilyPolicy"), p, ipFamilyPolicies))
	}
	if len(sp.ClusterIPs) > 2 {
		return append(errs, field.Invalid(specPath.Child("clusterIPs"), sp.ClusterIPs, "may only hold up to 2 values"))
	}
	if headless(svc) {
		return errs
	}
	for i, ip := range sp.ClusterIPs {
		if i >= len(sp.IPFamilies) {
			break
		}
		a, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		switch {
		case sp.IPFamilies[i] == corev1.IPv4Protocol && a.Is6() && !a.Is4In6():
			errs = append(errs, field.Invalid(specPath.Child("clusterIPs").Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
		case sp.IPFamilies[i] == corev1.IPv6Protocol && (a.Is4() || a.Is4In6()):
			errs = append(errs, field.Invalid(specPath.Child("clusterIPs").Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
		}
	}
	return errs
}

// endpointIP is the apiserver's ValidateEndpointIP for an address that parses: not unspecified,
// loopback or link-local.
func endpointIP(ip string, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return append(errs, field.Invalid(path, ip, "must be a valid IP address"))
	}
	if a.IsUnspecified() {
		errs = append(errs, field.Invalid(path, ip, fmt.Sprintf("may not be unspecified (%v)", ip)))
	}
	if a.IsLoopback() {
		errs = append(errs, field.Invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if a.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if a.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// validateServiceChange is what the apiserver's ValidateServiceUpdate checks before the service
// itself, but for the cluster IPs (validateServiceUpdate): the load balancer class of a
// LoadBalancer, and the health check node port of one that keeps traffic on the node. (A changed
// IP family is answered by the service's own rules, as recorded: core-service / IP family
// change.)
func validateServiceChange(svc, old *corev1.Service) field.ErrorList {
	errs := field.ErrorList{}
	sp, op := &svc.Spec, &old.Spec
	if sp.Type == corev1.ServiceTypeLoadBalancer && op.Type == corev1.ServiceTypeLoadBalancer &&
		ptr.Deref(sp.LoadBalancerClass, "") != ptr.Deref(op.LoadBalancerClass, "") {
		errs = append(errs, field.Invalid(field.NewPath("spec", "loadBalancerClass"), sp.LoadBalancerClass, "may not change once set"))
	}
	needsHealthCheck := func(sp *corev1.ServiceSpec) bool {
		return sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	}
	if needsHealthCheck(sp) && needsHealthCheck(op) && sp.HealthCheckNodePort != op.HealthCheckNodePort {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "healthCheckNodePort"), "field is immutable"))
	}
	return errs
}

// validateServicePort is the apiserver's validateServicePort; names holds the port names seen.
func validateServicePort(sp *corev1.ServicePort, requireName bool, names map[string]bool, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if requireName && sp.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else if sp.Name != "" {
		errs = append(errs, dns1123Label(sp.Name, path.Child("name"))...)
		if names[sp.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), sp.Name))
		}
		names[sp.Name] = true
	}
	for _, msg := range validation.IsValidPortNum(int(sp.Port)) {
		errs = append(errs, field.Invalid(path.Child("port"), sp.Port, msg))
	}
	switch {
	case sp.Protocol == "":
		errs = append(errs, field.Required(path.Child("protocol"), ""))
	case !slices.Contains(portProtocols, string(sp.Protocol)):
		errs = append(errs, field.NotSupported(path.Child("protocol"), sp.Protocol, portProtocols))
	}
	errs = append(errs, portNumOrName(sp.TargetPort, path.Child("targetPort"))...)
	if sp.AppProtocol != nil {
		errs = append(errs, qualifiedName(*sp.AppProtocol, path.Child("appProtocol"))...)
	}
	return errs
}

// maxAffinitySeconds is the longest ClientIP session affinity: a day.
const maxAffinitySeconds = 86400

// validateClientIPAffinity is the apiserver's validateClientIPAffinityConfig.
func validateClientIPAffinity(c *corev1.SessionAffinityConfig, path *field.Path) field.ErrorList {
	const why = "when session affinity type is ClientIP"
	switch {
	case c == nil:
		return field.ErrorList{field.Required(path, why)}
	case c.ClientIP == nil:
		return field.ErrorList{field.Required(path.Child("clientIP"), why)}
	case c.ClientIP.TimeoutSeconds == nil:
		return field.ErrorList{field.Required(path.Child("clientIP", "timeoutSeconds"), why)}
	}
	if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxAffinitySeconds {
		return field.ErrorList{field.Invalid(path.Child("clientIP", "timeoutSeconds"), t,
			fmt.Sprintf("must be greater than 0 and less than %d", maxAffinitySeconds))}
	}
	return nil
}

// validateTrafficPolicies is the apiserver's external and internal traffic policy rules.
func validateTrafficPolicies(svc *corev1.Service) field.ErrorList {
	errs := field.ErrorList{}
	sp := &svc.Spec
	path := field.NewPath("spec")
	external := sp.Type == corev1.ServiceTypeLoadBalancer || sp.Type == corev1.ServiceTypeNodePort ||
		(sp.Type == corev1.ServiceTypeClusterIP && len(sp.ExternalIPs) > 0)
	switch {
	case !external && sp.ExternalTrafficPolicy != "":
		errs = append(errs, field.Invalid(path.Child("externalTrafficPolicy"), sp.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	case external && sp.ExternalTrafficPolicy == "":
		errs = append(errs, field.Required(path.Child("externalTrafficPolicy"), ""))
	case external && !slices.Contains(externalTrafficPolicies, string(sp.ExternalTrafficPolicy)):
		errs = append(errs, field.NotSupported(path.Child("externalTrafficPolicy"), sp.ExternalTrafficPolicy, externalTrafficPolicies))
	}
	needsHealthCheck := sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	switch {
	case !needsHealthCheck && sp.HealthCheckNodePort != 0:
		errs = append(errs, field.Invalid(path.Child("healthCheckNodePort"), sp.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	case needsHealthCheck && sp.HealthCheckNodePort == 0:
		errs = append(errs, field.Required(path.Child("healthCheckNodePort"), ""))
	case needsHealthCheck:
		for _, msg := range validation.IsValidPortNum(int(sp.HealthCheckNodePort)) {
			errs = append(errs, field.Invalid(path.Child("healthCheckNodePort"), sp.HealthCheckNodePort, msg))
		}
	}
	if sp.InternalTrafficPolicy == nil {
		switch sp.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			errs = append(errs, field.Required(path.Child("internalTrafficPolicy"), ""))
		}
	} else if !slices.Contains(internalTrafficPolicies, string(*sp.InternalTrafficPolicy)) {
		errs = append(errs, field.NotSupported(path.Child("internalTrafficPolicy"), *sp.InternalTrafficPolicy, internalTrafficPolicies))
	}
	return errs
}

// Endpoints.

// validateEndpoints is the apiserver's ValidateEndpoints without ObjectMeta: each subset has an
// address, and valid addresses and ports. An update that leaves the subsets alone is not
// revalidated.
func validateEndpoints(ep, old *corev1.Endpoints) field.ErrorList {
	errs := field.ErrorList{}
	for i := range ep.Subsets {
		ss, p := &ep.Subsets[i], field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(p, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(&ss.Addresses[j], p.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(&ss.NotReadyAddresses[j], p.Child("notReadyAddresses").Index(j))...)
		}
		for j := range ss.Ports {
			errs = append(errs, validateEndpointPort(&ss.Ports[j], len(ss.Ports) > 1, p.Child("ports").Index(j))...)
		}
	}
	if len(errs) > 0 && old != nil && equality.Semantic.DeepEqual(ep.Subsets, old.Subsets) {
		return nil
	}
	return errs
}

// validateEndpointAddress is the apiserver's validateEndpointAddress.
func validateEndpointAddress(a *corev1.EndpointAddress, path *field.Path) field.ErrorList {
	errs := validation.IsValidIPForLegacyField(path.Child("ip"), a.IP, true, nil)
	if a.Hostname != "" {
		errs = append(errs, dns1123Label(a.Hostname, path.Child("hostname"))...)
	}
	if n := a.NodeName; n != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*n, false) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), *n, msg))
		}
	}
	return append(errs, endpointIP(a.IP, path.Child("ip"))...)
}

// validateEndpointPort is the apiserver's validateEndpointPort: names (required when there are
// several), the number, the protocol and the app protocol.
func validateEndpointPort(port *corev1.EndpointPort, requireName bool, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if requireName && port.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else if port.Name != "" {
		errs = append(errs, dns1123Label(port.Name, path.Child("name"))...)
	}
	for _, msg := range validation.IsValidPortNum(int(port.Port)) {
		errs = append(errs, field.Invalid(path.Child("port"), port.Port, msg))
	}
	switch {
	case port.Protocol == "":
		errs = append(errs, field.Required(path.Child("protocol"), ""))
	case !slices.Contains(portProtocols, string(port.Protocol)):
		errs = append(errs, field.NotSupported(path.Child("protocol"), port.Protocol, portProtocols))
	}
	if port.AppProtocol != nil {
		errs = append(errs, qualifiedName(*port.AppProtocol, path.Child("appProtocol"))...)
	}
	return errs
}

// addressTypes are an endpoint slice's address types, sorted.
var addressTypes = []string{string(discoveryv1.AddressTypeFQDN), string(discoveryv1.AddressTypeIPv4), string(discoveryv1.AddressTypeIPv6)}

// validateEndpointSlice is the apiserver's ValidateEndpointSlice without ObjectMeta (old nil on
// create), with ValidateEndpointSliceUpdate's immutable address type. Its declarative validation
// (beta, enforced) has taken over the address type's rules and the required addresses: their
// causes follow all others, and an update that leaves a field alone does not revalidate it.
func validateEndpointSlice(es, old *discoveryv1.EndpointSlice) field.ErrorList {
	errs := field.ErrorList{}
	names := []string{}
	for i, port := range es.Ports {
		p := field.NewPath("ports").Index(i)
		name := ptr.Deref(port.Name, "")
		if name != "" {
			errs = append(errs, dns1123Label(name, p.Child("name"))...)
		}
		if slices.Contains(names, name) {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		} else {
			names = append(names, name)
		}
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		case !slices.Contains(portProtocols, string(*port.Protocol)):
			errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, portProtocols))
		}
		if port.AppProtocol != nil {
			errs = append(errs, qualifiedName(*port.AppProtocol, p.Child("appProtocol"))...)
		}
	}
	var endpointErrs field.ErrorList
	for i, ep := range es.Endpoints {
		p := field.NewPath("endpoints").Index(i)
		addrPath := p.Child("addresses")
		for j, a := range ep.Addresses {
			switch es.AddressType {
			case discoveryv1.AddressTypeIPv4:
				if e := validation.IsValidIPForLegacyField(addrPath.Index(j), a, true, nil); len(e) > 0 {
					endpointErrs = append(endpointErrs, e...)
					continue
				}
				if ip, _ := netip.ParseAddr(a); !ip.Is4() {
					endpointErrs = append(endpointErrs, field.Invalid(addrPath, a, "must be an IPv4 address"))
				}
				endpointErrs = append(endpointErrs, endpointIP(a, addrPath.Index(j))...)
			case discoveryv1.AddressTypeIPv6:
				if e := validation.IsValidIP(addrPath.Index(j), a); len(e) > 0 {
					endpointErrs = append(endpointErrs, e...)
					continue
				}
				if ip, _ := netip.ParseAddr(a); !ip.Is6() || ip.Is4In6() {
					endpointErrs = append(endpointErrs, field.Invalid(addrPath, a, "must be an IPv6 address"))
				}
				endpointErrs = append(endpointErrs, endpointIP(a, addrPath.Index(j))...)
			case discoveryv1.AddressTypeFQDN:
				endpointErrs = append(endpointErrs, validation.IsFullyQualifiedDomainName(addrPath.Index(j), a)...)
			}
		}
		if n := ep.NodeName; n != nil {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*n, false) {
				endpointErrs = append(endpointErrs, field.Invalid(p.Child("nodeName"), *n, msg))
			}
		}
		endpointErrs = append(endpointErrs, metav1validation.ValidateLabels(ep.DeprecatedTopology, p.Child("deprecatedTopology"))...)
		if h := ep.Hostname; h != nil {
			endpointErrs = append(endpointErrs, dns1123Label(*h, p.Child("hostname"))...)
		}
	}
	if len(endpointErrs) > 0 && old != nil && equality.Semantic.DeepEqual(es.Endpoints, old.Endpoints) {
		endpointErrs = nil
	}
	errs = append(errs, endpointErrs...)
	// The declarative rules.
	switch {
	case old != nil && es.AddressType == old.AddressType:
	case es.AddressType == "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	case old != nil:
		errs = append(errs, field.Invalid(field.NewPath("addressType"), nil, "field is immutable"))
	case !slices.Contains(addressTypes, string(es.AddressType)):
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), es.AddressType, addressTypes))
	}
	if old == nil || !equality.Semantic.DeepEqual(es.Endpoints, old.Endpoints) {
		for i, ep := range es.Endpoints {
			p := field.NewPath("endpoints").Index(i).Child("addresses")
			switch {
			case len(ep.Addresses) == 0:
				errs = append(errs, field.Required(p, ""))
			case len(ep.Addresses) > 100:
				errs = append(errs, field.TooMany(p, len(ep.Addresses), 100))
			}
		}
	}
	return errs
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
		for _, msg := range validation.IsValidPortNum(p.IntValue()) {
			errs = append(errs, field.Invalid(path, p.IntValue(), msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortName(p.StrVal) {
		errs = append(errs, field.Invalid(path, p.StrVal, msg))
	}
	return errs
}
