package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/watchcache/watchcache/watchcache"
)

// What the apiserver's service registry does on a create beyond defaulting: it allocates a cluster
// IP from the service CIDR (10.96.0.0/16, as the oracle runs with --service-cluster-ip-range), sets
// the IP families and their policy, and allocates node ports (30000-32767) for NodePort and
// LoadBalancer services (reference/observed-defaults.md, defaults / service*). A taken or
// out-of-range cluster IP is its 422. The fake finds the taken IPs and ports in its services'
// cache, so deleting a service frees them, as the registry's release does.

var (
	// serviceCIDR is the range cluster IPs are allocated from.
	serviceCIDR = netip.MustParsePrefix("10.96.0.0/16")
	// dynamicFrom is where random allocation starts: the allocator keeps the lower sixteenth of
	// the range (at least 16, at most 256 addresses) for IPs that clients ask for, and allocates
	// from the rest first.
	dynamicFrom = netip.MustParseAddr("10.96.1.0")
)

// The node port range (--service-node-port-range's default).
const minNodePort, maxNodePort = 30000, 32767

// ipInvalidMessage is the validation's detail for a cluster IP that is not an IP.
const ipInvalidMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

// admitService validates a new service's cluster IPs and allocates what it lacks, holding the
// allocation lock (s.serviceMu) until the returned release runs, after the service is stored, so
// that two creates never take one IP or port. For an update, old is the stored service: what it
// holds is its own, and what it had the update keeps (keepAllocated); the update allocates what
// its new type needs and old did not have — node ports, a health check port, and cluster IPs for
// a service that stops being an ExternalName — as the service registry's update does before
// validation (reference/observed-admission.md, quotaservices).
func (s *Server) admitService(ctx context.Context, r *served, svc, old *corev1.Service) (_ func(), err error) {
	sp := &svc.Spec
	if sp.Type == corev1.ServiceTypeExternalName {
		return func() {}, nil
	}
	// An update of a service that has cluster IPs leaves them to validation (they may not change).
	ownIPs := old != nil && old.Spec.Type != corev1.ServiceTypeExternalName
	if sp.ClusterIP == "" && len(sp.ClusterIPs) > 0 {
		sp.ClusterIP = sp.ClusterIPs[0]
	}
	if sp.ClusterIP != "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	var errs field.ErrorList
	for i, ip := range sp.ClusterIPs {
		if ownIPs {
			break
		}
		if ip == corev1.ClusterIPNone {
			continue
		}
		if _, err := netip.ParseAddr(ip); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), ip, ipInvalidMessage))
		}
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(r.gvk.GroupKind(), svc.Name, errs)
	}
	s.serviceMu.Lock()
	defer func() {
		if err != nil {
			s.serviceMu.Unlock()
		}
	}()
	ips, ports, err := s.allocated(ctx, r, old)
	if err != nil {
		return nil, err
	}
	switch {
	case ownIPs:
	case sp.ClusterIP == corev1.ClusterIPNone:
		if sp.IPFamilyPolicy == nil {
			// A headless service without a selector gets every family of the cluster's
			// families, as recorded.
			if len(sp.Selector) == 0 {
				sp.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
			} else {
				sp.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
			}
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
			if *sp.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
				sp.IPFamilies = append(sp.IPFamilies, corev1.IPv6Protocol)
			}
		}
	case sp.ClusterIP != "":
		ip, _ := netip.ParseAddr(sp.ClusterIP)
		var reason string
		switch {
		case !serviceCIDR.Contains(ip):
			reason = "the provided network does not match the current range"
		case ips[ip]:
			reason = "provided IP is already allocated"
		}
		if reason != "" {
			return nil, apierrors.NewInvalid(r.gvk.GroupKind(), svc.Name, field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"),
				sp.ClusterIPs, fmt.Sprintf("failed to allocate IP %s: %s", sp.ClusterIP, reason))})
		}
		fallthrough
	default:
		if sp.ClusterIP == "" {
			ip, ok := randomIP(ips)
			if !ok {
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
			}
			sp.ClusterIP, sp.ClusterIPs = ip.String(), []string{ip.String()}
		}
		if sp.IPFamilyPolicy == nil {
			sp.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		}
	}
	if sp.Type == corev1.ServiceTypeNodePort || (sp.Type == corev1.ServiceTypeLoadBalancer && (sp.AllocateLoadBalancerNodePorts == nil || *sp.AllocateLoadBalancerNodePorts)) {
		for i := range sp.Ports {
			if p := sp.Ports[i].NodePort; p != 0 {
				var reason string
				switch {
				case p < minNodePort || p > maxNodePort:
					reason = fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", minNodePort, maxNodePort)
				case ports[p]:
					reason = "provided port is already allocated"
				}
				if reason != "" {
					return nil, apierrors.NewInvalid(r.gvk.GroupKind(), svc.Name, field.ErrorList{
						field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), p, reason)})
				}
				ports[p] = true
				continue
			}
			p, ok := randomPort(ports)
			if !ok {
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: range is full"))
			}
			sp.Ports[i].NodePort, ports[p] = p, true
		}
	}
	// A LoadBalancer service that keeps traffic on the node gets a health check port too.
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && sp.HealthCheckNodePort == 0 {
		p, ok := randomPort(ports)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort: range is full"))
		}
		sp.HealthCheckNodePort = p
	}
	return s.serviceMu.Unlock, nil
}

// allocated returns the cluster IPs and node ports (health check ports included) the stored
// services hold, but for those of except (the stored version of a service being updated).
func (s *Server) allocated(ctx context.Context, r *served, except *corev1.Service) (map[netip.Addr]bool, map[int32]bool, error) {
	page, err := r.cache.List(ctx, watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, nil, internalError("list services: %v", err)
	}
	ips, ports := map[netip.Addr]bool{}, map[int32]bool{}
	for _, it := range page.Items {
		var svc struct {
			Metadata struct {
				UID types.UID `json:"uid"`
			} `json:"metadata"`
			Spec struct {
				ClusterIPs          []string `json:"clusterIPs"`
				HealthCheckNodePort int32    `json:"healthCheckNodePort"`
				Ports               []struct {
					NodePort int32 `json:"nodePort"`
				} `json:"ports"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(it, &svc); err != nil {
			return nil, nil, internalError("decode service: %v", err)
		}
		if except != nil && svc.Metadata.UID == except.UID {
			continue
		}
		for _, ip := range svc.Spec.ClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				ips[a] = true
			}
		}
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				ports[p.NodePort] = true
			}
		}
		if p := svc.Spec.HealthCheckNodePort; p != 0 {
			ports[p] = true
		}
	}
	return ips, ports, nil
}

// randomIP picks a free IP of the dynamic part of the range, else of the whole range (never the
// network's first address, nor its last, the broadcast address).
func randomIP(taken map[netip.Addr]bool) (netip.Addr, bool) {
	base := serviceCIDR.Addr().As4()
	first := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	size := uint32(1) << (32 - serviceCIDR.Bits())
	dyn := dynamicFrom.As4()
	from := (uint32(dyn[0])<<24 | uint32(dyn[1])<<16 | uint32(dyn[2])<<8 | uint32(dyn[3])) - first
	for _, lo := range []uint32{from, 1} {
		n := size - 1 - lo // lo .. size-2
		start := rand.Uint32N(n)
		for i := range n {
			off := lo + (start+i)%n
			v := first + off
			ip := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
			if !taken[ip] {
				return ip, true
			}
		}
	}
	return netip.Addr{}, false
}

// randomPort picks a free node port.
func randomPort(taken map[int32]bool) (int32, bool) {
	n := int32(maxNodePort - minNodePort + 1)
	start := rand.Int32N(n)
	for i := range n {
		if p := minNodePort + (start+i)%n; !taken[p] {
			return p, true
		}
	}
	return 0, false
}

// keepAllocated is the service registry's update rule for what it allocated: a new state that
// leaves the cluster IPs, IP families, node ports (of a type that has them, before and after) or
// health check port out keeps the stored ones (kubectl replace of a manifest without them keeps
// the service's IP).
func keepAllocated(svc, old *corev1.Service) {
	sp, op := &svc.Spec, &old.Spec
	if sp.Type == corev1.ServiceTypeExternalName || op.Type == corev1.ServiceTypeExternalName {
		return
	}
	if sp.ClusterIP == "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIP, sp.ClusterIPs = op.ClusterIP, op.ClusterIPs
	}
	if sp.ClusterIP != "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if len(sp.IPFamilies) == 0 {
		sp.IPFamilies = op.IPFamilies
	}
	needsHealthCheck := func(sp *corev1.ServiceSpec) bool {
		return sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	}
	if needsHealthCheck(sp) && needsHealthCheck(op) && sp.HealthCheckNodePort == 0 {
		sp.HealthCheckNodePort = op.HealthCheckNodePort
	}
	if sp.IPFamilyPolicy == nil {
		sp.IPFamilyPolicy = op.IPFamilyPolicy
	}
	for i := range sp.Ports {
		if sp.Ports[i].NodePort != 0 || !needsNodePorts(sp) || !needsNodePorts(op) {
			continue
		}
		for _, o := range op.Ports {
			if o.Port == sp.Ports[i].Port && o.Protocol == sp.Ports[i].Protocol {
				sp.Ports[i].NodePort = o.NodePort
			}
		}
	}
}

// validateServiceUpdate is the service update validation the fake reproduces: a service's primary
// cluster IP may not change (unless it becomes or stops being an ExternalName).
func validateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	sp, op := &svc.Spec, &old.Spec
	if sp.Type == corev1.ServiceTypeExternalName || op.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if len(op.ClusterIPs) > 0 && len(sp.ClusterIPs) > 0 && sp.ClusterIPs[0] != op.ClusterIPs[0] {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), sp.ClusterIPs, "may not change once set")}
	}
	return nil
}

// needsNodePorts reports whether a service of the spec's type has node ports.
func needsNodePorts(sp *corev1.ServiceSpec) bool {
	return sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer
}

// dropTypeDependentFields is the service strategy's rule for an update that changes the type:
// what the old type had and the new one does not use goes, unless the update changed it too
// (which validation then refuses): the cluster IPs and IP families of a service that becomes an
// ExternalName, the node ports, health check port, load balancer class and node port allocation
// of one that stops being a LoadBalancer or NodePort, and the external traffic policy of one that
// stops being reachable from outside.
func dropTypeDependentFields(svc, old *corev1.Service) {
	sp, op := &svc.Spec, &old.Spec
	if op.Type != corev1.ServiceTypeExternalName && sp.Type == corev1.ServiceTypeExternalName {
		if sp.ClusterIP == op.ClusterIP && slices.Equal(sp.ClusterIPs, op.ClusterIPs) {
			sp.ClusterIP, sp.ClusterIPs = "", nil
		}
		if slices.Equal(sp.IPFamilies, op.IPFamilies) {
			sp.IPFamilies = nil
		}
		if ptr.Deref(sp.IPFamilyPolicy, "") == ptr.Deref(op.IPFamilyPolicy, "") {
			sp.IPFamilyPolicy = nil
		}
	}
	nodePorts := func(sp *corev1.ServiceSpec) map[int32]bool {
		out := map[int32]bool{}
		for _, p := range sp.Ports {
			if p.NodePort != 0 {
				out[p.NodePort] = true
			}
		}
		return out
	}
	if needsNodePorts(op) && !needsNodePorts(sp) && maps.Equal(nodePorts(sp), nodePorts(op)) {
		for i := range sp.Ports {
			sp.Ports[i].NodePort = 0
		}
	}
	needsHealthCheck := func(sp *corev1.ServiceSpec) bool {
		return sp.Type == corev1.ServiceTypeLoadBalancer && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	}
	if needsHealthCheck(op) && !needsHealthCheck(sp) && sp.HealthCheckNodePort == op.HealthCheckNodePort {
		sp.HealthCheckNodePort = 0
	}
	if op.Type == corev1.ServiceTypeLoadBalancer && sp.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := sp.AllocateLoadBalancerNodePorts, op.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			sp.AllocateLoadBalancerNodePorts = nil
		}
		if (sp.LoadBalancerClass == nil) == (op.LoadBalancerClass == nil) && ptr.Deref(sp.LoadBalancerClass, "") == ptr.Deref(op.LoadBalancerClass, "") {
			sp.LoadBalancerClass = nil
		}
	}
	externallyAccessible := func(sp *corev1.ServiceSpec) bool {
		return needsNodePorts(sp) || (sp.Type == corev1.ServiceTypeClusterIP && len(sp.ExternalIPs) > 0)
	}
	if externallyAccessible(op) && !externallyAccessible(sp) && sp.ExternalTrafficPolicy == op.ExternalTrafficPolicy {
		sp.ExternalTrafficPolicy = ""
	}
	if sp.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
	// The apiserver stores the internal traffic policy defaulted for the old type, but drops it
	// from every ExternalName service it reads (its storage's decorator); the fake's reads are
	// of what it stores.
	if sp.Type == corev1.ServiceTypeExternalName {
		sp.InternalTrafficPolicy = nil
	}
}
