package fake

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// The apiserver's validation of a pod spec (pkg/apis/core/validation's ValidatePodSpec and the
// container validation it calls), for the rules a controller's tests meet: containers and init
// containers (names, images, ports, environment variable names and value sources, volume mounts,
// resources, pull and termination message policies, restart policies, probes and lifecycle
// hooks, envFrom, sub-paths and mount propagation, security contexts), volumes' names and their
// number of sources, host network ports, the restart and DNS policies, the node selector, the
// pod's security context (validate_podsecurity.go), process namespace sharing, pull secrets,
// affinity, tolerations and topology spread (validate_scheduling.go), DNS config, readiness and
// scheduling gates, the service account, node, priority class and runtime class names, hostname
// and subdomain, activeDeadlineSeconds, host aliases, the preemption policy and overhead. The
// causes come in the apiserver's order (reference/observed-validation-workloads.md,
// observed-validation-podspec.md). Not reproduced: volume sources' contents, volume devices,
// resize policies, stop signals, resource claims, pod-level resources, hostnameOverride, user
// namespaces (hostUsers), OS-specific and Windows rules, ephemeral containers.

// validatePodSpec validates a pod's spec or a pod template's, at fldPath; podName is the pod's
// or the template's name.
func validatePodSpec(spec *corev1.PodSpec, podName string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(fldPath.Child("terminationGracePeriodSeconds"), ""))
	}
	vols, verrs := validateVolumes(spec.Volumes, podName, fldPath.Child("volumes"))
	errs = append(errs, verrs...)
	errs = append(errs, validatePodResourceClaims(spec.ResourceClaims, fldPath.Child("resourceClaims"))...)
	cc := containerContext{vols: vols, grace: spec.TerminationGracePeriodSeconds,
		hostUsers: ptr.Deref(spec.HostUsers, true), restartPolicy: spec.RestartPolicy, podClaims: spec.ResourceClaims}
	errs = append(errs, validateContainers(spec.Containers, cc, fldPath.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, cc, fldPath.Child("initContainers"))...)
	errs = append(errs, validateEphemeralContainers(spec, cc, fldPath.Child("ephemeralContainers"))...)
	errs = append(errs, validatePodResources(spec, fldPath.Child("resources"))...)
	errs = append(errs, validateHostNetworkPorts(spec, fldPath.Child("containers"))...)
	errs = append(errs, validateEnum(spec.RestartPolicy, fldPath.Child("restartPolicy"),
		[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})...)
	errs = append(errs, validateEnum(spec.DNSPolicy, fldPath.Child("dnsPolicy"),
		[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	errs = append(errs, validatePodSecurityContext(spec, fldPath.Child("securityContext"))...)
	if ptr.Deref(spec.ShareProcessNamespace, false) && spec.HostPID {
		errs = append(errs, field.Invalid(fldPath.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	for i, s := range spec.ImagePullSecrets {
		if s != (corev1.LocalObjectReference{Name: s.Name}) {
			errs = append(errs, field.Invalid(fldPath.Child("imagePullSecrets").Index(i), goNames{s}, "only name may be set"))
		}
	}
	errs = append(errs, validateAffinity(spec.Affinity, fldPath.Child("affinity"))...)
	errs = append(errs, validateDNSConfig(spec.DNSConfig, spec.DNSPolicy, fldPath.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, validateQualifiedName(string(g.ConditionType), fldPath.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	gates := sets.New[string]()
	for i, g := range spec.SchedulingGates {
		p := fldPath.Child("schedulingGates").Index(i)
		errs = append(errs, validateQualifiedName(g.Name, p)...)
		if gates.Has(g.Name) {
			errs = append(errs, field.Duplicate(p, g.Name))
		}
		gates.Insert(g.Name)
	}
	errs = append(errs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, fldPath.Child("topologySpreadConstraints"))...)
	errs = append(errs, validateHostProcessPod(spec, fldPath)...)
	errs = append(errs, validateHostUsers(spec, fldPath)...)
	errs = append(errs, validateHostnameOverride(spec, fldPath.Child("hostnameOverride"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.NodeName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	if spec.Hostname != "" {
		errs = append(errs, validateDNSLabel(spec.Hostname, fldPath.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateDNSLabel(spec.Subdomain, fldPath.Child("subdomain"))...)
	}
	errs = append(errs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	for i, a := range spec.HostAliases {
		p := fldPath.Child("hostAliases").Index(i)
		errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), a.IP, true, nil)...)
		for j, h := range a.Hostnames {
			for _, msg := range validation.IsDNS1123Subdomain(h) {
				errs = append(errs, field.Invalid(p.Child("hostnames").Index(j), h, msg))
			}
		}
	}
	for _, n := range []struct {
		v    *string
		name string
	}{{&spec.PriorityClassName, "priorityClassName"}, {spec.RuntimeClassName, "runtimeClassName"}} {
		if n.v == nil || (*n.v == "" && n.name == "priorityClassName") {
			continue
		}
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*n.v, false) {
			errs = append(errs, field.Invalid(fldPath.Child(n.name), *n.v, msg))
		}
	}
	if p := spec.PreemptionPolicy; p != nil {
		errs = append(errs, validateOptionalEnum(*p, fldPath.Child("preemptionPolicy"), []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever})...)
	}
	if spec.Overhead != nil {
		// The apiserver validates overhead as a container's limits.
		errs = append(errs, validateResources(&corev1.ResourceRequirements{Limits: spec.Overhead}, fldPath.Child("overhead"))...)
	}
	errs = append(errs, validateOS(spec, fldPath)...)
	return errs
}

// validateOS is the apiserver's validation of spec.os: a name, linux or windows, and then what
// that OS does not have (validateLinux, validateWindows). The contents of windowsOptions and of
// host process pods are not validated here.
func validateOS(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	switch {
	case spec.OS == nil:
		return nil
	case spec.OS.Name == "":
		return field.ErrorList{field.Required(fldPath.Child("os", "name"), "")}
	case spec.OS.Name == corev1.Linux:
		return validateLinux(spec, fldPath)
	case spec.OS.Name == corev1.Windows:
		return validateWindows(spec, fldPath)
	}
	return field.ErrorList{field.NotSupported(fldPath.Child("os"), spec.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows})}
}

// validateLinux refuses windowsOptions in a linux pod's security contexts.
func validateLinux(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	const msg = "windows options cannot be set for a linux pod"
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("securityContext", "windowsOptions"), msg))
	}
	for _, c := range visitContainers(spec, fldPath) {
		if sc := c.c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(c.path.Child("securityContext", "windowsOptions"), msg))
		}
	}
	return errs
}

// validateWindows refuses, in a windows pod, the Linux parts of the pod's and its containers'
// security contexts and the host's user, PID and IPC namespaces, in the apiserver's order.
func validateWindows(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil {
		errs = append(errs, forbiddenOnWindows(fldPath.Child("securityContext"), setField{"appArmorProfile", sc.AppArmorProfile != nil},
			setField{"seLinuxOptions", sc.SELinuxOptions != nil}, setField{"seccompProfile", sc.SeccompProfile != nil},
			setField{"fsGroup", sc.FSGroup != nil}, setField{"fsGroupChangePolicy", sc.FSGroupChangePolicy != nil},
			setField{"sysctls", len(sc.Sysctls) > 0}, setField{"runAsUser", sc.RunAsUser != nil}, setField{"runAsGroup", sc.RunAsGroup != nil},
			setField{"supplementalGroups", sc.SupplementalGroups != nil}, setField{"supplementalGroupsPolicy", sc.SupplementalGroupsPolicy != nil},
			setField{"seLinuxChangePolicy", sc.SELinuxChangePolicy != nil})...)
	}
	errs = append(errs, forbiddenOnWindows(fldPath, setField{"hostUsers", spec.HostUsers != nil}, setField{"hostPID", spec.HostPID},
		setField{"hostIPC", spec.HostIPC}, setField{"shareProcessNamespace", spec.ShareProcessNamespace != nil})...)
	for _, c := range visitContainers(spec, fldPath) {
		if sc := c.c.SecurityContext; sc != nil {
			errs = append(errs, forbiddenOnWindows(c.path.Child("securityContext"), setField{"appArmorProfile", sc.AppArmorProfile != nil},
				setField{"seLinuxOptions", sc.SELinuxOptions != nil}, setField{"seccompProfile", sc.SeccompProfile != nil},
				setField{"capabilities", sc.Capabilities != nil}, setField{"readOnlyRootFilesystem", sc.ReadOnlyRootFilesystem != nil},
				setField{"privileged", sc.Privileged != nil}, setField{"allowPrivilegeEscalation", sc.AllowPrivilegeEscalation != nil},
				setField{"procMount", sc.ProcMount != nil}, setField{"runAsUser", sc.RunAsUser != nil}, setField{"runAsGroup", sc.RunAsGroup != nil})...)
		}
	}
	return errs
}

// setField is a field by its name under a path, and whether an object sets it.
type setField struct {
	name string
	set  bool
}

// forbiddenOnWindows refuses each of fields that is set, under path.
func forbiddenOnWindows(path *field.Path, fields ...setField) field.ErrorList {
	var errs field.ErrorList
	for _, f := range fields {
		if f.set {
			errs = append(errs, field.Forbidden(path.Child(f.name), "cannot be set for a windows pod"))
		}
	}
	return errs
}

// containerContext is what a container's validation needs of its pod: the names of its valid
// volumes, its grace period and whether it uses the host's user namespace.
type containerContext struct {
	vols      map[string]*corev1.VolumeSource
	grace     *int64
	hostUsers bool
	// restartPolicy is the pod's, which a container's resize policy depends on.
	restartPolicy corev1.RestartPolicy
	// podClaims are the pod's resource claims, which a container's claims name.
	podClaims []corev1.PodResourceClaim
}

// validateHostProcessPod is the apiserver's validateWindowsHostProcessPod: a container's
// hostProcess agrees with the pod's when both say, and a pod with a host process container has
// only such containers and the host's network. The apiserver also refuses host process
// containers when it does not allow privileged ones; the fake allows both, as envtest's
// kube-apiserver (--allow-privileged) does.
func validateHostProcessPod(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var podHostProcess *bool
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		podHostProcess = sc.WindowsOptions.HostProcess
	}
	anySet := podHostProcess != nil
	eachContainer(spec, func(c *corev1.Container) {
		anySet = anySet || c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil && c.SecurityContext.WindowsOptions.HostProcess != nil
	})
	if !anySet {
		return nil // nothing to compare, no host process container: the common case, without paths
	}
	var errs field.ErrorList
	containers, hostProcess := 0, 0
	for _, c := range visitContainers(spec, fldPath) {
		containers++
		var hp *bool
		if sc := c.c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
			hp = sc.WindowsOptions.HostProcess
		}
		if podHostProcess != nil && hp != nil && *podHostProcess != *hp {
			errs = append(errs, field.Invalid(c.path.Child("securityContext", "windowsOptions", "hostProcess"), *hp,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *podHostProcess)))
		}
		if ptr.Deref(hp, false) || hp == nil && ptr.Deref(podHostProcess, false) {
			hostProcess++
		}
	}
	if hostProcess == 0 {
		return errs
	}
	if hostProcess != containers {
		errs = append(errs, field.Invalid(fldPath, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
	}
	if !spec.HostNetwork {
		errs = append(errs, field.Invalid(fldPath.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers"))
	}
	return errs
}

// validateHostUsers is the apiserver's validateHostUsers: a pod in a user namespace (hostUsers
// false) may not share the host's network, PID or IPC namespace, nor have volume devices
// (UserNamespacesHostNetworkSupport is off in 1.37.2). The PID and IPC paths are the apiserver's,
// capitals included (reference/observed-validation-podspec.md, ps-more).
func validateHostUsers(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	if ptr.Deref(spec.HostUsers, true) {
		return nil
	}
	const msg = "when `hostUsers` is false"
	var errs field.ErrorList
	if spec.HostNetwork {
		errs = append(errs, field.Forbidden(fldPath.Child("hostNetwork"), msg))
	}
	if spec.HostPID {
		errs = append(errs, field.Forbidden(fldPath.Child("HostPID"), msg))
	}
	if spec.HostIPC {
		errs = append(errs, field.Forbidden(fldPath.Child("HostIPC"), msg))
	}
	for _, c := range visitContainers(spec, fldPath) {
		if len(c.c.VolumeDevices) > 0 {
			errs = append(errs, field.Forbidden(c.path.Child("volumeDevices"), msg))
		}
	}
	return errs
}

// eachContainer calls visit with each container of spec, to change it, in visitContainers'
// order.
func eachContainer(spec *corev1.PodSpec, visit func(*corev1.Container)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// validateHostnameOverride is the apiserver's validatePodHostName: an override is not set with
// setHostnameAsFQDN or the host's network, is at most 64 bytes and a DNS subdomain.
func validateHostnameOverride(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec.HostnameOverride == nil {
		return nil
	}
	var errs field.ErrorList
	if ptr.Deref(spec.SetHostnameAsFQDN, false) {
		errs = append(errs, field.Forbidden(fldPath, "may not be specified when setHostnameAsFQDN is true"))
	}
	if spec.HostNetwork {
		errs = append(errs, field.Forbidden(fldPath, "may not be specified when hostNetwork is true"))
	}
	if len(*spec.HostnameOverride) > 64 {
		errs = append(errs, field.TooLong(fldPath, "", 64))
	}
	for _, msg := range validation.IsDNS1123Subdomain(*spec.HostnameOverride) {
		errs = append(errs, field.Invalid(fldPath, *spec.HostnameOverride, msg))
	}
	return errs
}

// validateHostNetworkPorts is the apiserver's validatePodHostNetworkDeps: with the host's network,
// a host port, when set, is the container port. (A pod's unset host ports are defaulted to the
// container ports before, so the apiserver's stricter rule for pods gives the same answers.)
func validateHostNetworkPorts(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, c := range spec.Containers {
		for j, p := range c.Ports {
			if p.HostPort != 0 && p.HostPort != p.ContainerPort {
				errs = append(errs, field.Invalid(fldPath.Index(i).Child("ports").Index(j).Child("hostPort"), p.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// validateQualifiedName is the apiserver's ValidateQualifiedName.
func validateQualifiedName(v string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(v) {
		errs = append(errs, field.Invalid(fldPath, v, msg))
	}
	return errs
}

// The apiserver's DNS config limits (MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars).
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// validateDNSConfig is the apiserver's validatePodDNSConfig.
func validateDNSConfig(c *corev1.PodDNSConfig, policy corev1.DNSPolicy, fldPath *field.Path) field.ErrorList {
	if policy == corev1.DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(fldPath, fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone))}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(fldPath.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone))}
		}
	}
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxDNSNameservers {
		errs = append(errs, field.Invalid(fldPath.Child("nameservers"), c.Nameservers, fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range c.Nameservers {
		errs = append(errs, validation.IsValidIPForLegacyField(fldPath.Child("nameservers").Index(i), ns, true, nil)...)
	}
	if len(c.Searches) > maxDNSSearchPaths {
		errs = append(errs, field.Invalid(fldPath.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(c.Searches, " ")) > maxDNSSearchListChars {
		errs = append(errs, field.Invalid(fldPath.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, s := range c.Searches {
		if s == "." {
			continue
		}
		s = strings.TrimSuffix(s, ".")
		for _, msg := range validation.IsDNS1123SubdomainWithUnderscore(s) {
			errs = append(errs, field.Invalid(fldPath.Child("searches").Index(i), s, msg))
		}
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(fldPath.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

// validatePodTemplateSpec is the apiserver's ValidatePodTemplateSpec: the template's labels and
// annotations, then its pod spec.
func validatePodTemplateSpec(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, fldPath.Child("labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&t.Spec, t.Name, fldPath.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// validatePodOnly is what the apiserver validates of a pod's spec beyond a template's
// (validatePodMetadataAndSpec): projected tokens only with a service account, a non-negative grace
// period, images without surrounding spaces.
func validatePodOnly(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	errs := validateProjectedTokens(spec, fldPath)
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(*g, fldPath.Child("terminationGracePeriodSeconds"))...)
	}
	for _, cs := range []struct {
		list []corev1.Container
		path *field.Path
	}{{spec.Containers, fldPath.Child("containers")}, {spec.InitContainers, fldPath.Child("initContainers")}} {
		for i, c := range cs.list {
			if strings.TrimSpace(c.Image) != c.Image {
				errs = append(errs, field.Invalid(cs.path.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
			}
		}
	}
	return errs
}

// validateEnum is a required field of one of the values given: Required when empty, Unsupported
// otherwise.
func validateEnum[T ~string](v T, fldPath *field.Path, valid []T) field.ErrorList {
	switch {
	case slices.Contains(valid, v):
		return nil
	case v == "":
		return field.ErrorList{field.Required(fldPath, "")}
	default:
		return field.ErrorList{field.NotSupported(fldPath, v, valid)}
	}
}

// validateDNSLabel is the apiserver's ValidateDNS1123Label.
func validateDNSLabel(v string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(fldPath, v, msg))
	}
	return errs
}

// validateContainers is the apiserver's validateContainers: at least one, each valid, names
// unique.
func validateContainers(cs []corev1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	if len(cs) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range cs {
		path := fldPath.Index(i)
		errs = append(errs, validateContainer(&cs[i], cc, path)...)
		if names.Has(cs[i].Name) {
			errs = append(errs, field.Duplicate(path.Child("name"), cs[i].Name))
		} else {
			names.Insert(cs[i].Name)
		}
		errs = append(errs, validateProbes(&cs[i], cc.grace, path)...)
		errs = append(errs, validateContainerRestartPolicy(cs[i].RestartPolicy, cs[i].RestartPolicyRules, path)...)
	}
	return errs
}

// validateInitContainers is the apiserver's validateInitContainers: each valid, names unique
// among init and regular containers, probes and lifecycle only for restartable (sidecar) ones.
func validateInitContainers(cs, regular []corev1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for _, c := range regular {
		names.Insert(c.Name)
	}
	for i := range cs {
		c := &cs[i]
		path := fldPath.Index(i)
		errs = append(errs, validateContainer(c, cc, path)...)
		sidecar := ptr.Deref(c.RestartPolicy, "") == corev1.ContainerRestartPolicyAlways
		switch {
		case sidecar && len(c.RestartPolicyRules) > 0:
			errs = append(errs, field.Forbidden(path.Child("restartPolicyRules"), "restartPolicyRules are not allowed for init containers with restart policy Always"))
		case !sidecar:
			errs = append(errs, validateContainerRestartPolicy(c.RestartPolicy, c.RestartPolicyRules, path)...)
		}
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(path.Child("name"), c.Name))
		} else if c.Name != "" {
			names.Insert(c.Name)
		}
		if sidecar {
			errs = append(errs, validateProbes(c, cc.grace, path)...)
		} else {
			const msg = "may not be set for init containers without restartPolicy=Always"
			if c.Lifecycle != nil {
				errs = append(errs, field.Forbidden(path.Child("lifecycle"), msg))
			}
			if c.LivenessProbe != nil {
				errs = append(errs, field.Forbidden(path.Child("livenessProbe"), msg))
			}
			if c.ReadinessProbe != nil {
				errs = append(errs, field.Forbidden(path.Child("readinessProbe"), msg))
			}
			if c.StartupProbe != nil {
				errs = append(errs, field.Forbidden(path.Child("startupProbe"), msg))
			}
			for j, p := range c.ResizePolicy {
				if p.RestartPolicy == corev1.RestartContainer {
					errs = append(errs, field.Invalid(path.Child("resizePolicy").Index(j).Child("restartPolicy"), p.RestartPolicy, "must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return errs
}

// validateProbes is the apiserver's validation of a container's lifecycle hooks (one handler
// each; a sleep within the grace period) and of its liveness, readiness and startup probes: one
// handler, its port and path, non-negative numbers, a success threshold of 1 for liveness and
// startup, no grace period for readiness.
func validateProbes(c *corev1.Container, grace *int64, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l := c.Lifecycle; l != nil {
		for _, h := range []struct {
			h    *corev1.LifecycleHandler
			name string
		}{{l.PostStart, "postStart"}, {l.PreStop, "preStop"}} {
			if h.h != nil {
				errs = append(errs, validateContainerHandler(containerHandler{h.h.Exec, h.h.HTTPGet, h.h.TCPSocket, nil, h.h.Sleep}, grace, path.Child("lifecycle", h.name))...)
			}
		}
	}
	for _, pr := range []struct {
		p    *corev1.Probe
		name string
	}{{c.LivenessProbe, "livenessProbe"}, {c.ReadinessProbe, "readinessProbe"}, {c.StartupProbe, "startupProbe"}} {
		if pr.p == nil {
			continue
		}
		p, fp := pr.p, path.Child(pr.name)
		errs = append(errs, validateContainerHandler(containerHandler{p.Exec, p.HTTPGet, p.TCPSocket, p.GRPC, nil}, grace, fp)...)
		for _, n := range []struct {
			v    int32
			name string
		}{{p.InitialDelaySeconds, "initialDelaySeconds"}, {p.TimeoutSeconds, "timeoutSeconds"}, {p.PeriodSeconds, "periodSeconds"},
			{p.SuccessThreshold, "successThreshold"}, {p.FailureThreshold, "failureThreshold"}} {
			errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(n.v), fp.Child(n.name))...)
		}
		if g := p.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
			errs = append(errs, field.Invalid(fp.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
		}
		switch {
		case pr.name != "readinessProbe" && p.SuccessThreshold != 1:
			errs = append(errs, field.Invalid(fp.Child("successThreshold"), p.SuccessThreshold, "must be 1"))
		case pr.name == "readinessProbe" && p.TerminationGracePeriodSeconds != nil:
			errs = append(errs, field.Invalid(fp.Child("terminationGracePeriodSeconds"), p.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	return errs
}

// containerHandler is a probe's or a lifecycle hook's action (the apiserver's commonHandler).
type containerHandler struct {
	exec      *corev1.ExecAction
	httpGet   *corev1.HTTPGetAction
	tcpSocket *corev1.TCPSocketAction
	grpc      *corev1.GRPCAction
	sleep     *corev1.SleepAction
}

// validateContainerHandler is the apiserver's validateHandler: exactly one of exec, httpGet,
// tcpSocket, grpc and sleep, each valid.
func validateContainerHandler(h containerHandler, grace *int64, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	one := func(set bool, name string, validate func() field.ErrorList) {
		switch {
		case !set:
		case n > 0:
			errs = append(errs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 handler type"))
		default:
			n++
			errs = append(errs, validate()...)
		}
	}
	one(h.exec != nil, "exec", func() field.ErrorList {
		if len(h.exec.Command) == 0 {
			return field.ErrorList{field.Required(fldPath.Child("exec", "command"), "")}
		}
		return nil
	})
	one(h.httpGet != nil, "httpGet", func() field.ErrorList {
		var errs field.ErrorList
		p := fldPath.Child("httpGet")
		if h.httpGet.Path == "" {
			errs = append(errs, field.Required(p.Child("path"), ""))
		}
		errs = append(errs, validatePortNumOrName(h.httpGet.Port, p.Child("port"))...)
		if s := h.httpGet.Scheme; s != corev1.URISchemeHTTP && s != corev1.URISchemeHTTPS {
			errs = append(errs, field.NotSupported(p.Child("scheme"), s, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
		}
		for _, hd := range h.httpGet.HTTPHeaders {
			for _, msg := range validation.IsHTTPHeaderName(hd.Name) {
				errs = append(errs, field.Invalid(p.Child("httpHeaders"), hd.Name, msg))
			}
		}
		return errs
	})
	one(h.tcpSocket != nil, "tcpSocket", func() field.ErrorList {
		return validatePortNumOrName(h.tcpSocket.Port, fldPath.Child("tcpSocket", "port"))
	})
	one(h.grpc != nil, "grpc", func() field.ErrorList {
		return validatePortNumOrName(intstr.FromInt32(h.grpc.Port), fldPath.Child("grpc", "port"))
	})
	one(h.sleep != nil, "sleep", func() field.ErrorList {
		if grace != nil && (h.sleep.Seconds < 0 || h.sleep.Seconds > *grace) {
			return field.ErrorList{field.Invalid(fldPath.Child("sleep"), h.sleep.Seconds,
				fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *grace))}
		}
		return nil
	})
	if n == 0 {
		errs = append(errs, field.Required(fldPath, "must specify a handler type"))
	}
	return errs
}

// validatePortNumOrName is the apiserver's ValidatePortNumOrName.
func validatePortNumOrName(port intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(fldPath, port.StrVal, msg))
		}
		return errs
	}
	errs = append(errs, validPort(port.IntValue(), fldPath)...)
	return errs
}

// validateContainerRestartPolicy is the apiserver's validateContainerRestartPolicy with
// ContainerRestartRules on (a container may set its own restart policy), for the policy: one of
// Always, Never, OnFailure, and required by restart rules.
func validateContainerRestartPolicy(p *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, path *field.Path) field.ErrorList {
	switch {
	case p == nil && len(rules) > 0:
		return field.ErrorList{field.Required(path.Child("restartPolicy"), "must specify restartPolicy when restart rules are used")}
	case p == nil:
		return nil
	}
	// Sorted, as the apiserver lists them.
	valid := []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure}
	if !slices.Contains(valid, *p) {
		return field.ErrorList{field.NotSupported(path.Child("restartPolicy"), *p, valid)}
	}
	return nil
}

// validateContainer is the apiserver's validateContainerCommon, for the rules listed at the top
// of this file.
func validateContainer(c *corev1.Container, cc containerContext, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, validateDNSLabel(c.Name, path.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	}
	errs = append(errs, validateEnum(c.TerminationMessagePolicy, path.Child("terminationMessagePolicy"),
		[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError})...)
	errs = append(errs, validateContainerPorts(c.Ports, path.Child("ports"))...)
	errs = append(errs, validateEnvNames(c.Env, path.Child("env"))...)
	errs = append(errs, validateEnvFrom(c.EnvFrom, path.Child("envFrom"))...)
	errs = append(errs, validateVolumeMounts(c, cc.vols, path.Child("volumeMounts"))...)
	errs = append(errs, validateVolumeDevices(c, cc, path.Child("volumeDevices"))...)
	errs = append(errs, validatePullPolicy(c.ImagePullPolicy, path.Child("imagePullPolicy"))...)
	errs = append(errs, validateRequirements(&c.Resources, validateContainerResourceName, cc.podClaims, path.Child("resources"))...)
	errs = append(errs, validateResizePolicy(c.ResizePolicy, cc.restartPolicy, path.Child("resizePolicy"))...)
	errs = append(errs, validateSecurityContext(c.SecurityContext, cc.hostUsers, path.Child("securityContext"))...)
	return errs
}

// validateResizePolicy is the apiserver's validateResizePolicy: each resource (cpu or memory)
// once, each policy NotRequired or RestartContainer, and only NotRequired in a pod that never
// restarts (reference/observed-validation-podspec.md, ps-more).
func validateResizePolicy(policies []corev1.ContainerResizePolicy, podRestart corev1.RestartPolicy, fldPath *field.Path) field.ErrorList {
	if len(policies) == 0 {
		return nil
	}
	var errs field.ErrorList
	seen := map[corev1.ResourceName]bool{}
	for i, p := range policies {
		if seen[p.ResourceName] {
			errs = append(errs, field.Duplicate(fldPath.Index(i), p.ResourceName))
		}
		seen[p.ResourceName] = true
		switch p.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
		case "":
			errs = append(errs, field.Required(fldPath, ""))
		default:
			errs = append(errs, field.NotSupported(fldPath, p.ResourceName, []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}))
		}
		switch p.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			errs = append(errs, field.Required(fldPath, ""))
		default:
			errs = append(errs, field.NotSupported(fldPath, p.RestartPolicy, []corev1.ResourceResizeRestartPolicy{corev1.NotRequired, corev1.RestartContainer}))
		}
		if podRestart == corev1.RestartPolicyNever && p.RestartPolicy != corev1.NotRequired {
			errs = append(errs, field.Invalid(fldPath, p.RestartPolicy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return errs
}

// validatePullPolicy: the apiserver lists the supported values sorted (Always, IfNotPresent,
// Never).
func validatePullPolicy(p corev1.PullPolicy, fldPath *field.Path) field.ErrorList {
	return validateEnum(p, fldPath, []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever})
}

// validateContainerPorts is the apiserver's validateContainerPorts.
func validateContainerPorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		path := fldPath.Index(i)
		if p.Name != "" {
			if msgs := validation.IsValidPortName(p.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
				}
			} else if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
			} else {
				names.Insert(p.Name)
			}
		}
		if p.ContainerPort == 0 {
			errs = append(errs, field.Required(path.Child("containerPort"), ""))
		} else {
			errs = append(errs, validPort(p.ContainerPort, path.Child("containerPort"))...)
		}
		if p.HostPort != 0 {
			errs = append(errs, validPort(p.HostPort, path.Child("hostPort"))...)
		}
		// The supported protocols, sorted as the apiserver lists them.
		errs = append(errs, validateEnum(p.Protocol, path.Child("protocol"), []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP})...)
	}
	return errs
}

// validateEnvNames checks environment variable names with the relaxed rule the apiserver applies
// since RelaxedEnvironmentVariableValidation went GA (printable ASCII without '='), and the
// number of their value's sources.
func validateEnvNames(env []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		path := fldPath.Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(path, ""))
		} else {
			for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
				errs = append(errs, field.Invalid(path, e.Name, msg))
			}
		}
		errs = append(errs, validateEnvValueFrom(e, fldPath.Index(i).Child("valueFrom"))...)
	}
	return errs
}

// validateEnvValueFrom is the apiserver's validateEnvVarValueFrom: each source's contents (but a
// file key's), one source, and none with a value.
func validateEnvValueFrom(e corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	vf := e.ValueFrom
	if vf == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	if vf.FieldRef != nil {
		n++
		errs = append(errs, validateFieldSelector(vf.FieldRef, envFieldPaths, fldPath.Child("fieldRef"))...)
	}
	if vf.ResourceFieldRef != nil {
		n++
		errs = append(errs, validateResourceFieldSelector(vf.ResourceFieldRef, false, fldPath.Child("resourceFieldRef"))...)
	}
	if r := vf.ConfigMapKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if r := vf.SecretKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, fldPath.Child("secretKeyRef"))...)
	}
	if vf.FileKeyRef != nil {
		n++
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case e.Value != "":
		errs = append(errs, field.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case n > 1:
		errs = append(errs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return errs
}

// validateKeySelector is the apiserver's validateConfigMapKeySelector and
// validateSecretKeySelector: a name (an empty one is invalid, not missing) and a key.
func validateKeySelector(name, key string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fldPath.Child("name"), name, msg))
	}
	if key == "" {
		return append(errs, field.Required(fldPath.Child("key"), ""))
	}
	for _, msg := range validation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(fldPath.Child("key"), key, msg))
	}
	return errs
}

// validateEnvFrom is the apiserver's ValidateEnvFrom: relaxed prefixes, one source each, its
// name.
func validateEnvFrom(env []corev1.EnvFromSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		p := fldPath.Index(i)
		if e.Prefix != "" {
			for _, msg := range validation.IsRelaxedEnvVarName(e.Prefix) {
				errs = append(errs, field.Invalid(p.Child("prefix"), e.Prefix, msg))
			}
		}
		type ref struct {
			kind string
			name *string
		}
		var refs []ref
		if e.ConfigMapRef != nil {
			refs = append(refs, ref{"configMapRef", &e.ConfigMapRef.Name})
		}
		if e.SecretRef != nil {
			refs = append(refs, ref{"secretRef", &e.SecretRef.Name})
		}
		for _, r := range refs {
			namePath := p.Child(r.kind, "name")
			if *r.name == "" {
				errs = append(errs, field.Required(namePath, ""))
				continue
			}
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*r.name, true) {
				errs = append(errs, field.Invalid(namePath, *r.name, msg))
			}
		}
		n := len(refs)
		switch {
		case n == 0:
			errs = append(errs, field.Invalid(fldPath, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

// validateVolumeMounts is the apiserver's ValidateVolumeMounts for names, mount paths and their
// uniqueness, sub-paths, mount propagation and recursive read-only mounts. The apiserver's paths
// of the sub-path, propagation and read-only causes have no index.
func validateVolumeMounts(c *corev1.Container, vols map[string]*corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := sets.New[string]()
	for i, m := range c.VolumeMounts {
		path := fldPath.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(path.Child("name"), ""))
		}
		if vols[m.Name] == nil {
			errs = append(errs, field.NotFound(path.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(path.Child("mountPath"), ""))
		}
		if paths.Has(m.MountPath) {
			errs = append(errs, field.Invalid(path.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.Insert(m.MountPath)
		if slices.ContainsFunc(c.VolumeDevices, func(d corev1.VolumeDevice) bool { return d.Name == m.Name }) {
			errs = append(errs, field.Invalid(path.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		if slices.ContainsFunc(c.VolumeDevices, func(d corev1.VolumeDevice) bool { return d.DevicePath == m.MountPath }) {
			errs = append(errs, field.Invalid(path.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
		}
		if m.SubPath != "" {
			errs = append(errs, validateLocalDescendingPath(m.SubPath, fldPath.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(path.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, validateLocalDescendingPath(m.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
		errs = append(errs, validateMountPropagation(m, c, fldPath.Child("mountPropagation"))...)
		errs = append(errs, validateRecursiveReadOnly(m, fldPath.Child("recursiveReadOnly"))...)
	}
	return errs
}

// validatePodResources is the apiserver's validatePodResources (PodLevelResources is on in
// 1.37.2): none for a windows pod; no claims; the requirements of a container but for the names,
// which are the pod-level resources (cpu, memory, hugepages); the pod's requests no less than its
// containers' together, their hugepages limits no more than the pod's, and no container's limit
// above the pod's (reference/observed-validation-podspec.md, ps-podresources). Its maps are walked
// in the apiserver's random order, sorted here.
func validatePodResources(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	r := spec.Resources
	if r == nil {
		return nil
	}
	if spec.OS != nil && spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(fldPath, "may not be set for a windows pod")}
	}
	var errs field.ErrorList
	if r.Claims != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, validateRequirements(r, validatePodResourceName, spec.ResourceClaims, fldPath)...)
	pod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: spec.InitContainers, Containers: spec.Containers}}
	requests := resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
	for _, name := range sortedResourceNames(requests) {
		podRequest, ok := r.Requests[name]
		if want := requests[name]; ok && want.Cmp(podRequest) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("requests").Key(string(name)), podRequest.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", want.String())))
		}
	}
	limits := resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{})
	for _, name := range sortedResourceNames(limits) {
		podLimit, ok := r.Limits[name]
		if want := limits[name]; ok && strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) && want.Cmp(podLimit) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("limits").Key(string(name)), podLimit.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", want.String())))
		}
	}
	for i, c := range spec.Containers {
		for _, name := range sortedResourceNames(c.Resources.Limits) {
			podLimit, ok := r.Limits[name]
			if limit := c.Resources.Limits[name]; ok && limit.Cmp(podLimit) > 0 {
				errs = append(errs, field.Invalid(fldPath.Child("containers").Index(i).Key(string(name)).Child("limits"), limit.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", podLimit.String())))
			}
		}
	}
	return errs
}

// validatePodResourceName is the apiserver's validatePodResourceName: a resource name that is a
// pod-level resource.
func validatePodResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	if errs := validateResourceName(name, fldPath); len(errs) > 0 {
		return errs
	}
	if !resourcehelper.IsSupportedPodLevelResource(name) {
		return field.ErrorList{field.NotSupported(fldPath, name, sets.List(resourcehelper.SupportedPodLevelResources()))}
	}
	return nil
}

// validatePodResourceClaims is the apiserver's validatePodResourceClaims: each claim named (a DNS
// label, once) and naming exactly one of a claim or a claim template (DNS subdomains).
func validatePodResourceClaims(claims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, c := range claims {
		path := fldPath.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(path.Child("name"), ""))
		case names.Has(c.Name):
			errs = append(errs, field.Duplicate(path.Child("name"), c.Name))
		default:
			errs = append(errs, validateDNSLabel(c.Name, path.Child("name"))...)
			names.Insert(c.Name)
		}
		if c.ResourceClaimName != nil && c.ResourceClaimTemplateName != nil {
			errs = append(errs, field.Invalid(path, goNames{c}, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		if c.ResourceClaimName == nil && c.ResourceClaimTemplateName == nil {
			errs = append(errs, field.Invalid(path, goNames{c}, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		for _, n := range []struct {
			name  *string
			field string
		}{{c.ResourceClaimName, "resourceClaimName"}, {c.ResourceClaimTemplateName, "resourceClaimTemplateName"}} {
			if n.name == nil {
				continue
			}
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*n.name, false) {
				errs = append(errs, field.Invalid(path.Child(n.field), *n.name, msg))
			}
		}
	}
	return errs
}

// validateClaimNames is the apiserver's validateResourceClaimNames: each claim (or claim and
// request) named once, and one of the pod's resource claims.
func validateClaimNames(claims []corev1.ResourceClaim, podClaims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	if len(claims) == 0 {
		return nil
	}
	var errs field.ErrorList
	podNames := sets.New[string]()
	for _, c := range podClaims {
		if c.Name != "" {
			podNames.Insert(c.Name)
		}
	}
	names := sets.New[string]()
	for i, c := range claims {
		path := fldPath.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(path, ""))
			continue
		}
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(path, c.Name))
		} else {
			key := c.Name
			if c.Request != "" {
				errs = append(errs, validateDNSLabel(c.Request, path.Child("request"))...)
				key += "/" + c.Request
			}
			if names.Has(key) {
				errs = append(errs, field.Duplicate(path, key))
			} else if c.Request == "" {
				for _, k := range sets.List(names) {
					if claim, _, ok := strings.Cut(k, "/"); ok && claim == c.Name {
						errs = append(errs, field.Duplicate(path, c.Name))
					}
				}
			}
			names.Insert(key)
		}
		if !podNames.Has(c.Name) {
			e := field.NotFound(path, c.Name)
			e.Detail = "must be one of the names in pod.spec.resourceClaims"
			if podNames.Len() == 0 {
				e.Detail += " which is empty"
			} else {
				e.Detail += ": " + strings.Join(sets.List(podNames), ", ")
			}
			errs = append(errs, e)
		}
	}
	return errs
}

// validateVolumeDevices is the apiserver's ValidateVolumeDevices: each device names a claim or an
// ephemeral volume of the pod, once, at a path given once and without backsteps, neither the
// name nor the path one of the container's volume mounts has
// (reference/observed-validation-podspec.md, ps-devices).
func validateVolumeDevices(c *corev1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	if len(c.VolumeDevices) == 0 {
		return nil
	}
	var errs field.ErrorList
	paths, names := sets.New[string](), sets.New[string]()
	for i, d := range c.VolumeDevices {
		path := fldPath.Index(i)
		if d.Name == "" {
			errs = append(errs, field.Required(path.Child("name"), ""))
		}
		if names.Has(d.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), d.Name, "must be unique"))
		}
		switch src := cc.vols[d.Name]; {
		case src != nil && (src.PersistentVolumeClaim != nil || src.Ephemeral != nil):
		case src != nil:
			errs = append(errs, field.Invalid(path.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		default:
			errs = append(errs, field.NotFound(path.Child("name"), d.Name))
		}
		if d.DevicePath == "" {
			errs = append(errs, field.Required(path.Child("devicePath"), ""))
		}
		if paths.Has(d.DevicePath) {
			errs = append(errs, field.Invalid(path.Child("devicePath"), d.DevicePath, "must be unique"))
		}
		if d.DevicePath != "" && len(validateNoBacksteps(d.DevicePath, fldPath)) > 0 {
			errs = append(errs, field.Invalid(path.Child("devicePath"), d.DevicePath, "can not contain backsteps ('..')"))
		} else {
			paths.Insert(d.DevicePath)
		}
		if slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == d.Name }) {
			errs = append(errs, field.Invalid(path.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		if slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == d.DevicePath }) {
			errs = append(errs, field.Invalid(path.Child("devicePath"), d.DevicePath, "must not already exist as a path in volumeMounts"))
		}
		if d.Name != "" {
			names.Insert(d.Name)
		}
	}
	return errs
}

// validateMountPropagation is the apiserver's validateMountPropagation: a known mode,
// Bidirectional only for privileged containers.
func validateMountPropagation(m corev1.VolumeMount, c *corev1.Container, fldPath *field.Path) field.ErrorList {
	mp := m.MountPropagation
	if mp == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateOptionalEnum(*mp, fldPath,
		[]corev1.MountPropagationMode{corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone})...)
	privileged := c.SecurityContext != nil && ptr.Deref(c.SecurityContext.Privileged, false)
	if *mp == corev1.MountPropagationBidirectional && !privileged {
		errs = append(errs, field.Forbidden(fldPath, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

// validateRecursiveReadOnly is the apiserver's validateMountRecursiveReadOnly.
func validateRecursiveReadOnly(m corev1.VolumeMount, fldPath *field.Path) field.ErrorList {
	rro := m.RecursiveReadOnly
	if rro == nil {
		return nil
	}
	var errs field.ErrorList
	switch *rro {
	case corev1.RecursiveReadOnlyDisabled:
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			errs = append(errs, field.Forbidden(fldPath, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			errs = append(errs, field.Forbidden(fldPath, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath, *rro,
			[]corev1.RecursiveReadOnlyMode{corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible}))
	}
	return errs
}

// overcommitForbidden reports whether a resource's request must equal its limit: hugepages and
// extended resources (names with a domain other than kubernetes.io's), as the apiserver's
// IsOvercommitAllowed.
func overcommitForbidden(name corev1.ResourceName) bool {
	n := string(name)
	return strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) || (strings.Contains(n, "/") && !strings.Contains(n, corev1.ResourceDefaultNamespacePrefix))
}

// standardContainerResources are the unprefixed resource names a container may request (and
// hugepages-<size>).
var standardContainerResources = sets.New(corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage)

// standardResources are the apiserver's standard resource names (and hugepages-<size>,
// requests.hugepages-<size>).
var standardResources = sets.New[corev1.ResourceName]("cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services",
	"replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
	"services.nodeports", "services.loadbalancers")

// validateResources is the apiserver's validateResourceRequirements for a container: valid
// names, non-negative quantities, requests no greater than limits (equal for resources that may
// not be overcommitted), hugepages only with cpu or memory. The apiserver walks the maps in Go's random order: with more than one
// error its causes come in any order, and so do the fake's (sorted here for stable tests).
func validateResources(r *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	return validateRequirements(r, validateContainerResourceName, nil, fldPath)
}

// validateRequirements is validateResources with the names validated by validName, and the
// claims (validateClaimNames) of the pod's claims podClaims.
func validateRequirements(r *corev1.ResourceRequirements, validName func(corev1.ResourceName, *field.Path) field.ErrorList, podClaims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	for _, name := range sortedResourceNames(r.Limits) {
		q := r.Limits[name]
		path := limPath.Key(string(name))
		errs = append(errs, validName(name, path)...)
		errs = append(errs, validateQuantity(q, path)...)
	}
	hugepages, cpuOrMemory := false, false
	for _, l := range []corev1.ResourceList{r.Limits, r.Requests} {
		for name := range l {
			hugepages = hugepages || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
			cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
		}
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		path := reqPath.Key(string(name))
		errs = append(errs, validName(name, path)...)
		errs = append(errs, validateQuantity(q, path)...)
		lim, ok := r.Limits[name]
		switch {
		case ok && q.Cmp(lim) != 0 && overcommitForbidden(name):
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
		case ok && q.Cmp(lim) > 0:
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		case !ok && overcommitForbidden(name):
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
	}
	if hugepages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	return append(errs, validateClaimNames(r.Claims, podClaims, fldPath.Child("claims"))...)
}

// sortedResourceNames are a resource list's names in order.
func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// validateContainerResourceName is the apiserver's ValidateContainerResourceName: a resource
// name (validateResourceName); an unprefixed one a standard resource for containers, a prefixed
// one outside kubernetes.io an extended resource name.
func validateContainerResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	errs := validateResourceName(name, fldPath)
	n := string(name)
	switch {
	case !strings.Contains(n, "/"):
		if !standardContainerResources.Has(name) && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) {
			errs = append(errs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
		}
	case !strings.Contains(n, corev1.ResourceDefaultNamespacePrefix):
		if strings.HasPrefix(n, corev1.DefaultResourceRequestsPrefix) || len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+n)) > 0 {
			errs = append(errs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
		}
	}
	return errs
}

// validateResourceName is the apiserver's validateResourceName: a qualified name, an unprefixed
// one a standard resource (hugepages-<size> and requests.hugepages-<size> among them).
func validateResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	errs := validateQualifiedName(string(name), fldPath)
	n := string(name)
	if len(errs) == 0 && !strings.Contains(n, "/") && !standardResources.Has(name) &&
		!strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) && !strings.HasPrefix(n, corev1.ResourceRequestsHugePagesPrefix) {
		errs = append(errs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// validateQuantity is the apiserver's ValidateNonnegativeQuantity.
func validateQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be greater than or equal to 0")}
	}
	return nil
}
