package fake

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The service validation of kube-apiserver 1.37.2 (validateService and ValidateServiceUpdate in
// pkg/apis/core/validation); the cluster IPs' own rules are admitService's and
// validateServiceUpdate's (service.go).

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
	errs = append(errs, validateTrafficPolicies(svc, old)...)
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
	errs = append(errs, validPort(sp.Port, path.Child("port"))...)
	errs = append(errs, validProtocol(sp.Protocol, path.Child("protocol"))...)
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

// validateTrafficPolicies is the apiserver's external and internal traffic policy rules. A
// health check node port a service needs is allocated before validation, on create and on update
// (admitService), as the apiserver's registry does.
func validateTrafficPolicies(svc, old *corev1.Service) field.ErrorList {
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
		errs = append(errs, validPort(sp.HealthCheckNodePort, path.Child("healthCheckNodePort"))...)
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

// validPort is the apiserver's check of a port number (1 to 65535), whose cause names the value as
// the object has it.
func validPort[T int | int32](n T, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(n)) {
		errs = append(errs, field.Invalid(path, n, msg))
	}
	return errs
}

// validProtocol is the check of a port's required protocol: TCP, UDP or SCTP.
func validProtocol(p corev1.Protocol, path *field.Path) field.ErrorList {
	switch {
	case p == "":
		return field.ErrorList{field.Required(path, "")}
	case !slices.Contains(portProtocols, string(p)):
		return field.ErrorList{field.NotSupported(path, p, portProtocols)}
	}
	return nil
}
