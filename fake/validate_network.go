package fake

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The networking.k8s.io validation of kube-apiserver 1.37.2 (pkg/apis/networking/validation) for
// network policies, ingresses and ingress classes. Its declarative validation (beta, enforced) has taken over the
// required cidr of an ipBlock: that cause follows all others.

// networkPolicyProtocols are the protocols a network policy port may name, in the apiserver's
// order.
var networkPolicyProtocols = []string{string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP)}

// validateNetworkPolicySpec is the apiserver's ValidateNetworkPolicySpec.
func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, path *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(&spec.PodSelector, metav1validation.LabelSelectorValidationOptions{}, path.Child("podSelector"))
	var declarative field.ErrorList
	rules := func(kind, peers string, ports [][]networkingv1.NetworkPolicyPort, peerLists [][]networkingv1.NetworkPolicyPeer) {
		for i := range ports {
			p := path.Child(kind).Index(i)
			for j := range ports[i] {
				errs = append(errs, validateNetworkPolicyPort(&ports[i][j], p.Child("ports").Index(j))...)
			}
			for j := range peerLists[i] {
				peer := &peerLists[i][j]
				pp := p.Child(peers).Index(j)
				errs = append(errs, validateNetworkPolicyPeer(peer, pp)...)
				if peer.IPBlock != nil && peer.IPBlock.CIDR == "" {
					declarative = append(declarative, field.Required(pp.Child("ipBlock", "cidr"), ""))
				}
			}
		}
	}
	var ports [][]networkingv1.NetworkPolicyPort
	var peers [][]networkingv1.NetworkPolicyPeer
	for _, r := range spec.Ingress {
		ports, peers = append(ports, r.Ports), append(peers, r.From)
	}
	rules("ingress", "from", ports, peers)
	ports, peers = nil, nil
	for _, r := range spec.Egress {
		ports, peers = append(ports, r.Ports), append(peers, r.To)
	}
	rules("egress", "to", ports, peers)
	types := []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}
	if len(spec.PolicyTypes) > len(types) {
		errs = append(errs, field.Invalid(path.Child("policyTypes"), &spec.PolicyTypes, "may not specify more than two policyTypes"))
		return append(errs, declarative...)
	}
	for i, t := range spec.PolicyTypes {
		if !contains(types, string(t)) {
			errs = append(errs, field.NotSupported(path.Child("policyTypes").Index(i), t, types))
		}
	}
	return append(errs, declarative...)
}

// validateNetworkPolicyPort is the apiserver's ValidateNetworkPolicyPort.
func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if p := port.Protocol; p != nil && !contains(networkPolicyProtocols, string(*p)) {
		errs = append(errs, field.NotSupported(path.Child("protocol"), *p, networkPolicyProtocols))
	}
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(path.Child("endPort"), *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		errs = append(errs, validPort(port.Port.IntVal, path.Child("port"))...)
		if e := port.EndPort; e != nil {
			if *e < port.Port.IntVal {
				errs = append(errs, field.Invalid(path.Child("endPort"), *e, "must be greater than or equal to `port`"))
			}
			errs = append(errs, validPort(*e, path.Child("endPort"))...)
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(path.Child("endPort"), *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range validation.IsValidPortName(port.Port.StrVal) {
			errs = append(errs, field.Invalid(path.Child("port"), port.Port.StrVal, msg))
		}
	}
	return errs
}

// validateNetworkPolicyPeer is the apiserver's ValidateNetworkPolicyPeer but for an ipBlock's
// required cidr (validateNetworkPolicySpec's declarative rule).
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	opts := metav1validation.LabelSelectorValidationOptions{}
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts, path.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts, path.Child("namespaceSelector"))...)
	}
	if b := peer.IPBlock; b != nil {
		n++
		errs = append(errs, validateIPBlock(b, path.Child("ipBlock"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(path, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(path, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// validateIPBlock is the apiserver's ValidateIPBlock (with StrictIPCIDRValidation, on in 1.37.2)
// for a block that has a cidr.
func validateIPBlock(b *networkingv1.IPBlock, path *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return nil
	}
	errs := validation.IsValidCIDRForLegacyField(path.Child("cidr"), b.CIDR, true, nil)
	cidr, err := netip.ParsePrefix(b.CIDR)
	if len(errs) > 0 || err != nil {
		return errs
	}
	for i, e := range b.Except {
		p := path.Child("except").Index(i)
		if ee := validation.IsValidCIDRForLegacyField(p, e, true, nil); len(ee) > 0 {
			errs = append(errs, ee...)
			continue
		}
		except, err := netip.ParsePrefix(e)
		if err != nil {
			continue
		}
		if !cidr.Contains(except.Addr()) || cidr.Bits() >= except.Bits() {
			errs = append(errs, field.Invalid(p, e, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// Ingresses.

// ingressPathTypes are the path types an ingress path may have, in the apiserver's (sorted)
// order.
var ingressPathTypes = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}

// ingressClassAnnotation is the ingress class annotation older than spec.ingressClassName.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// validateIngress is the apiserver's ValidateIngressCreate (old nil) or ValidateIngressUpdate
// without ObjectMeta, with relaxed service names (RelaxedServiceNameValidation, on in 1.37.2).
// An update keeps accepting the invalid secret names and wildcard-host rules the stored ingress
// has.
func validateIngress(ing, old *networkingv1.Ingress) field.ErrorList {
	path := field.NewPath("spec")
	spec := &ing.Spec
	errs := field.ErrorList{}
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(path, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, path.Child("defaultBackend"))...)
	}
	allowWildcardRules := old != nil && oldIngressHas(old, func(r networkingv1.IngressRule) bool {
		return strings.Contains(r.Host, "*") && len(validateIngressRuleValue(&r.IngressRuleValue, field.NewPath(""))) > 0
	})
	for i, r := range spec.Rules {
		p := path.Child("rules").Index(i)
		wildcard := false
		if r.Host != "" {
			if _, err := netip.ParseAddr(r.Host); err == nil {
				errs = append(errs, field.Invalid(p.Child("host"), r.Host, "must be a DNS name, not an IP address"))
			}
			if strings.Contains(r.Host, "*") {
				for _, msg := range validation.IsWildcardDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(p.Child("host"), r.Host, msg))
				}
				wildcard = true
			} else {
				for _, msg := range validation.IsDNS1123Subdomain(r.Host) {
					errs = append(errs, field.Invalid(p.Child("host"), r.Host, msg))
				}
			}
		}
		if !wildcard || !allowWildcardRules {
			errs = append(errs, validateIngressRuleValue(&r.IngressRuleValue, p)...)
		}
	}
	allowBadSecrets := false
	if old != nil {
		for _, t := range old.Spec.TLS {
			if t.SecretName != "" && len(apimachineryvalidation.NameIsDNSSubdomain(t.SecretName, false)) > 0 {
				allowBadSecrets = true
			}
		}
	}
	for i, t := range spec.TLS {
		p := path.Child("tls").Index(i)
		for j, h := range t.Hosts {
			check := validation.IsDNS1123Subdomain
			if strings.Contains(h, "*") {
				check = validation.IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(h) {
				errs = append(errs, field.Invalid(p.Child("hosts").Index(j), h, msg))
			}
		}
		if t.SecretName != "" && !allowBadSecrets {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(t.SecretName, false) {
				errs = append(errs, field.Invalid(p.Child("secretName"), t.SecretName, msg))
			}
		}
	}
	if c := spec.IngressClassName; c != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(path.Child("ingressClassName"), *c, msg))
		}
	}
	if v, ok := ing.Annotations[ingressClassAnnotation]; ok && old == nil && spec.IngressClassName != nil && v != *spec.IngressClassName {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(ingressClassAnnotation), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// oldIngressHas reports whether one of a stored ingress's rules satisfies f.
func oldIngressHas(old *networkingv1.Ingress, f func(networkingv1.IngressRule) bool) bool {
	for _, r := range old.Spec.Rules {
		if f(r) {
			return true
		}
	}
	return false
}

// validateIngressRuleValue is the apiserver's validateIngressRuleValue: an HTTP rule's paths.
func validateIngressRuleValue(v *networkingv1.IngressRuleValue, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if v.HTTP == nil {
		return errs
	}
	p := path.Child("http")
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(p.Child("paths"), ""))
	}
	for i := range v.HTTP.Paths {
		errs = append(errs, validateIngressPath(&v.HTTP.Paths[i], p.Child("paths").Index(i))...)
	}
	return errs
}

// validateIngressPath is the apiserver's validateHTTPIngressPath.
func validateIngressPath(hp *networkingv1.HTTPIngressPath, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if hp.PathType == nil {
		return append(errs, field.Required(path.Child("pathType"), "pathType must be specified"))
	}
	switch *hp.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(hp.Path, "/") {
			errs = append(errs, field.Invalid(path.Child("path"), hp.Path, "must be an absolute path"))
		}
		if hp.Path != "" {
			for _, seq := range []string{"//", "/./", "/../", "%2f", "%2F"} {
				if strings.Contains(hp.Path, seq) {
					errs = append(errs, field.Invalid(path.Child("path"), hp.Path, fmt.Sprintf("must not contain '%s'", seq)))
				}
			}
			for _, suffix := range []string{"/..", "/."} {
				if strings.HasSuffix(hp.Path, suffix) {
					errs = append(errs, field.Invalid(path.Child("path"), hp.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
				}
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if hp.Path != "" && !strings.HasPrefix(hp.Path, "/") {
			errs = append(errs, field.Invalid(path.Child("path"), hp.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("pathType"), *hp.PathType, ingressPathTypes))
	}
	return append(errs, validateIngressBackend(&hp.Backend, path.Child("backend"))...)
}

// validateIngressBackend is the apiserver's validateIngressBackend: a service (name and port
// name or number) or a resource, not both.
func validateIngressBackend(b *networkingv1.IngressBackend, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	switch {
	case b.Resource != nil && b.Service != nil:
		return append(errs, field.Invalid(path, "", "cannot set both resource and service backends"))
	case b.Resource != nil:
		r, p := b.Resource, path.Child("resource")
		if r.APIGroup != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*r.APIGroup) {
				errs = append(errs, field.Invalid(p.Child("apiGroup"), *r.APIGroup, msg))
			}
		}
		for _, f := range []struct{ name, v string }{{"kind", r.Kind}, {"name", r.Name}} {
			if f.v == "" {
				errs = append(errs, field.Required(p.Child(f.name), ""))
				continue
			}
			for _, msg := range content.IsPathSegmentName(f.v) {
				errs = append(errs, field.Invalid(p.Child(f.name), f.v, msg))
			}
		}
	case b.Service != nil:
		s := b.Service
		if s.Name == "" {
			errs = append(errs, field.Required(path.Child("service", "name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSLabel(s.Name, false) {
				errs = append(errs, field.Invalid(path.Child("service", "name"), s.Name, msg))
			}
		}
		switch {
		case s.Port.Name != "" && s.Port.Number != 0:
			errs = append(errs, field.Invalid(path, "", "cannot set both port name & port number"))
		case s.Port.Name != "":
			for _, msg := range validation.IsValidPortName(s.Port.Name) {
				errs = append(errs, field.Invalid(path.Child("service", "port", "name"), s.Port.Name, msg))
			}
		case s.Port.Number != 0:
			errs = append(errs, validPort(s.Port.Number, path.Child("service", "port", "number"))...)
		default:
			errs = append(errs, field.Required(path, "port name or number is required"))
		}
	default:
		errs = append(errs, field.Invalid(path, "", "resource or service backend is required"))
	}
	return errs
}

// Ingress classes.

// maxControllerLength is the longest ingress class controller name.
const maxControllerLength = 250

// validateIngressClass is the apiserver's ValidateIngressClass without ObjectMeta (old nil) and
// ValidateIngressClassUpdate, whose controller never changes. Its declarative validation (beta,
// enforced) has taken over the parameters' required kind and name: their causes follow all
// others.
func validateIngressClass(ic, old *networkingv1.IngressClass) field.ErrorList {
	errs := field.ErrorList{}
	path := field.NewPath("spec")
	if old != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(ic.Spec.Controller, old.Spec.Controller, path.Child("controller"))...)
	}
	if len(ic.Spec.Controller) > maxControllerLength {
		errs = append(errs, field.TooLong(path.Child("controller"), "", maxControllerLength))
	}
	errs = append(errs, validation.IsDomainPrefixedPath(path.Child("controller"), ic.Spec.Controller)...)
	params := ic.Spec.Parameters
	if params == nil {
		return errs
	}
	p := path.Child("parameters")
	if g := params.APIGroup; g != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*g) {
			errs = append(errs, field.Invalid(p.Child("apiGroup"), *g, msg))
		}
	}
	for _, f := range []struct{ name, v string }{{"kind", params.Kind}, {"name", params.Name}} {
		if f.v == "" {
			continue // the declarative rule below
		}
		for _, msg := range content.IsPathSegmentName(f.v) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, msg))
		}
	}
	switch scope := params.Scope; {
	case scope == nil:
		errs = append(errs, field.Required(p.Child("scope"), ""))
	case *scope != networkingv1.IngressClassParametersReferenceScopeCluster && *scope != networkingv1.IngressClassParametersReferenceScopeNamespace:
		errs = append(errs, field.NotSupported(p.Child("scope"), *scope, []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}))
	case *scope == networkingv1.IngressClassParametersReferenceScopeNamespace && params.Namespace == nil:
		errs = append(errs, field.Required(p.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
	case *scope == networkingv1.IngressClassParametersReferenceScopeNamespace:
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(*params.Namespace, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), *params.Namespace, msg))
		}
	case params.Namespace != nil:
		errs = append(errs, field.Forbidden(p.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
	}
	// The declarative rules, unless an update leaves the parameters alone.
	if old == nil || !equality.Semantic.DeepEqual(params, old.Spec.Parameters) {
		if params.Kind == "" {
			errs = append(errs, field.Required(p.Child("kind"), ""))
		}
		if params.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
	}
	return errs
}
