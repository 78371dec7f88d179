package fake

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The validation of endpoints (pkg/apis/core/validation) and endpoint slices
// (pkg/apis/discovery/validation) of kube-apiserver 1.37.2.

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
	errs = append(errs, validPort(port.Port, path.Child("port"))...)
	errs = append(errs, validProtocol(port.Protocol, path.Child("protocol"))...)
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
		if port.Protocol == nil { // an explicit "" is NotSupported, not Required
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		} else if !slices.Contains(portProtocols, string(*port.Protocol)) {
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
