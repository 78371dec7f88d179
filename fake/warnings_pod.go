package fake

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The pod strategy's warnings for a pod's or a template's spec (pkg/api/pod's
// warningsForPodSpecAndMeta), in its order, as recorded in reference/observed-validation-podspec.md:
// deprecated node labels, null label selectors, deprecated annotations and volume plugins,
// duplicate host alias IPs and pull secrets, fractional byte quantities, environment variables
// that hide earlier ones, duplicate and overlapping ports and port names, a negative grace
// period, non-standard IPs. Not reproduced: overlapping volume paths, ephemeral claim templates'
// warnings, AppArmor annotations.

// deprecatedNodeLabels are the node labels the apiserver warns about, with its messages.
var deprecatedNodeLabels = map[string]string{
	"beta.kubernetes.io/arch":                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	"beta.kubernetes.io/os":                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	"failure-domain.beta.kubernetes.io/region":      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	"failure-domain.beta.kubernetes.io/zone":        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	"beta.kubernetes.io/instance-type":              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	"app.kubernetes.io/created-by":                  `deprecated since v1.9`,
	"scheduler.alpha.kubernetes.io/preferAvoidPods": `deprecated since v1.22; use Taints and Tolerations instead`,
	"node-role.kubernetes.io/master":                `use "node-role.kubernetes.io/control-plane" instead`,
}

// deprecatedPodAnnotations are the pod annotations the apiserver warns about, with its messages.
var deprecatedPodAnnotations = []struct{ key, message string }{
	{"scheduler.alpha.kubernetes.io/critical-pod", `non-functional in v1.16+; use the "priorityClassName" field instead`},
	{"security.alpha.kubernetes.io/sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
	{"security.alpha.kubernetes.io/unsafe-sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
}

// podWarnings are the warnings for a pod spec and its annotations; prefix is where the spec's
// object is (nil for a pod, spec.template for a deployment's).
func podWarnings(spec *corev1.PodSpec, annotations map[string]string, prefix *field.Path) []string {
	var w []string
	add := func(p *field.Path, format string, args ...any) {
		w = append(w, p.String()+": "+fmt.Sprintf(format, args...))
	}
	specPath := prefix.Child("spec")
	for _, k := range sortedKeys(spec.NodeSelector) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			add(specPath.Child("nodeSelector").Key(k), "%s", msg)
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		na := a.NodeAffinity
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			tp := specPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			for i, t := range r.NodeSelectorTerms {
				w = append(w, nodeSelectorTermWarnings(t, false, tp.Index(i))...)
			}
		}
		pp := specPath.Child("affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			w = append(w, nodeSelectorTermWarnings(t.Preference, true, pp.Index(i).Child("preference"))...)
		}
	}
	const noMatch = "a null labelSelector results in matching no pod"
	for i, c := range spec.TopologySpreadConstraints {
		cp := specPath.Child("topologySpreadConstraints").Index(i)
		if msg, ok := deprecatedNodeLabels[c.TopologyKey]; ok {
			add(cp.Child("topologyKey"), "%s is %s", c.TopologyKey, msg)
		}
		if c.LabelSelector == nil {
			add(cp.Child("labelSelector"), noMatch)
		}
	}
	for _, d := range deprecatedPodAnnotations {
		if _, ok := annotations[d.key]; ok {
			add(prefix.Child("metadata", "annotations").Key(d.key), "%s", d.message)
		}
	}
	for i, v := range spec.Volumes {
		vp := specPath.Child("volumes").Index(i)
		for _, d := range []struct {
			set        bool
			name, text string
		}{
			{v.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
			{v.GitRepo != nil, "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"},
			{v.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
			{v.Flocker != nil, "flocker", "deprecated in v1.22, non-functional in v1.25+"},
			{v.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
			{v.Quobyte != nil, "quobyte", "deprecated in v1.22, non-functional in v1.25+"},
			{v.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
			{v.CephFS != nil, "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
			{v.RBD != nil, "rbd", "deprecated in v1.28, non-functional in v1.31+"},
		} {
			if d.set {
				add(vp.Child(d.name), "%s", d.text)
			}
		}
	}
	ips := sets.New[string]()
	for i, a := range spec.HostAliases {
		if ips.Has(a.IP) {
			add(specPath.Child("hostAliases").Index(i).Child("ip"), "duplicate ip %q", a.IP)
		}
		ips.Insert(a.IP)
	}
	secrets := sets.New[string]()
	for i, s := range spec.ImagePullSecrets {
		if secrets.Has(s.Name) {
			add(specPath.Child("imagePullSecrets").Index(i).Child("name"), "duplicate name %q", s.Name)
		}
		secrets.Insert(s.Name)
	}
	for i, s := range spec.ImagePullSecrets {
		if s.Name == "" {
			add(specPath.Child("imagePullSecrets").Index(i).Child("name"), "invalid empty name %q", s.Name)
		}
	}
	w = append(w, fractionalBytes(spec.Overhead, specPath.Child("overhead"))...)
	if spec.SecurityContext == nil || spec.SecurityContext.SeccompProfile == nil {
		if _, ok := annotations[corev1.SeccompPodAnnotationKey]; ok {
			add(prefix.Child("metadata", "annotations").Key(corev1.SeccompPodAnnotationKey), `non-functional in v1.27+; use the "seccompProfile" field instead`)
		}
	}
	containers := visitContainers(spec, specPath)
	for _, c := range containers {
		if c.c.SecurityContext == nil || c.c.SecurityContext.SeccompProfile == nil {
			key := corev1.SeccompContainerAnnotationKeyPrefix + c.c.Name
			if _, ok := annotations[key]; ok {
				add(prefix.Child("metadata", "annotations").Key(key), `non-functional in v1.27+; use the "seccompProfile" field instead`)
			}
		}
		rp := c.path.Child("resources")
		for _, l := range []struct {
			list corev1.ResourceList
			name string
		}{{c.c.Resources.Limits, "limits"}, {c.c.Resources.Requests, "requests"}} {
			if q, ok := l.list[corev1.ResourceMemory]; ok && q.MilliValue()%1000 != 0 {
				add(rp.Child(l.name).Key(string(corev1.ResourceMemory)), "fractional byte value %q is invalid, must be an integer", q.String())
			}
		}
		for _, l := range []struct {
			list corev1.ResourceList
			name string
		}{{c.c.Resources.Limits, "limits"}, {c.c.Resources.Requests, "requests"}} {
			if q, ok := l.list[corev1.ResourceEphemeralStorage]; ok && q.MilliValue()%1000 != 0 {
				add(rp.Child(l.name).Key(string(corev1.ResourceEphemeralStorage)), "fractional byte value %q is invalid, must be an integer", q.String())
			}
		}
		names := sets.New[string]()
		for i, e := range c.c.Env {
			if !names.Has(e.Name) {
				names.Insert(e.Name)
				continue
			}
			// Redefining a variable is fine when the new value builds on the old one.
			ref := "$(" + e.Name + ")"
			if e.ValueFrom != nil || e.Value == ref || !strings.Contains(e.Value, ref) {
				add(c.path.Child("env").Index(i), "hides previous definition of %q, which may be dropped when using apply", e.Name)
			}
		}
	}
	type portAt struct {
		path *field.Path
		port corev1.ContainerPort
	}
	ports := map[string][]portAt{}
	for _, c := range containers {
		for i, p := range c.c.Ports {
			pp := c.path.Child("ports").Index(i)
			if p.HostIP != "" && p.HostPort == 0 {
				add(pp, "hostIP set without hostPort: %+v", p)
			}
			k := fmt.Sprintf("%d/%s", p.ContainerPort, p.Protocol)
			for _, o := range ports[k] {
				a, b := p.HostIP == "", o.port.HostIP == ""
				switch {
				case p.HostIP == o.port.HostIP && p.HostPort == o.port.HostPort:
					add(pp, "duplicate port definition with %s", o.path)
				case p.HostPort == 0 || o.port.HostPort == 0:
					add(pp, "overlapping port definition with %s", o.path)
				case p.HostPort == o.port.HostPort && (a || b) && !(a && b):
					add(pp, "dangerously ambiguous port definition with %s", o.path)
				}
			}
			ports[k] = append(ports[k], portAt{pp, p})
		}
	}
	portNames := map[string]*field.Path{}
	for _, c := range containers {
		for i, p := range c.c.Ports {
			if p.Name == "" {
				continue
			}
			pp := c.path.Child("ports").Index(i)
			if o, ok := portNames[p.Name]; ok {
				add(pp, "duplicate port name %q with %s, services and probes that select ports by name will use %s", p.Name, o, o)
			} else {
				portNames[p.Name] = pp
			}
		}
	}
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		add(specPath.Child("terminationGracePeriodSeconds"), "must be >= 0; negative values are invalid and will be treated as 1")
	}
	if a := spec.Affinity; a != nil {
		for _, pa := range []struct {
			name      string
			required  []corev1.PodAffinityTerm
			preferred []corev1.WeightedPodAffinityTerm
		}{
			{"podAffinity", podAffinityRequired(a.PodAffinity), podAffinityPreferred(a.PodAffinity)},
			{"podAntiAffinity", podAntiAffinityRequired(a.PodAntiAffinity), podAntiAffinityPreferred(a.PodAntiAffinity)},
		} {
			ap := specPath.Child("affinity", pa.name)
			for i, t := range pa.required {
				if t.LabelSelector == nil {
					add(ap.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i).Child("labelSelector"), noMatch)
				}
			}
			for i, t := range pa.preferred {
				if t.PodAffinityTerm.LabelSelector == nil {
					add(ap.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm", "labelSelector"), noMatch)
				}
			}
		}
	}
	if c := spec.DNSConfig; c != nil {
		for i, ns := range c.Nameservers {
			w = append(w, validation.GetWarningsForIP(specPath.Child("dnsConfig", "nameservers").Index(i), ns)...)
		}
	}
	for i, a := range spec.HostAliases {
		w = append(w, validation.GetWarningsForIP(specPath.Child("hostAliases").Index(i).Child("ip"), a.IP)...)
	}
	return w
}

// nodeSelectorTermWarnings is the apiserver's GetWarningsForNodeSelectorTerm: deprecated node
// label keys, and for preferred terms values that are not label values.
func nodeSelectorTermWarnings(t corev1.NodeSelectorTerm, checkValues bool, p *field.Path) []string {
	var w []string
	for i, e := range t.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		if msg, ok := deprecatedNodeLabels[e.Key]; ok {
			w = append(w, fmt.Sprintf("%s: %s is %s", ep.Child("key"), e.Key, msg))
		}
		if !checkValues {
			continue
		}
		for j, v := range e.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				w = append(w, fmt.Sprintf("%s: %s is invalid, %s", ep.Child("values").Index(j), v, msg))
			}
		}
	}
	return w
}

// fractionalBytes warns of memory and ephemeral storage quantities that are not whole bytes.
func fractionalBytes(l corev1.ResourceList, p *field.Path) []string {
	var w []string
	for _, n := range []corev1.ResourceName{corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := l[n]; ok && q.MilliValue()%1000 != 0 {
			w = append(w, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", p.Key(string(n)), q.String()))
		}
	}
	return w
}

// containerAt is a container of a pod spec and its path.
type containerAt struct {
	c    *corev1.Container
	path *field.Path
}

// visitContainers lists a spec's init, regular and ephemeral containers with their paths, in the
// apiserver's order (pods.VisitContainersWithPath).
func visitContainers(spec *corev1.PodSpec, specPath *field.Path) []containerAt {
	var out []containerAt
	for i := range spec.InitContainers {
		out = append(out, containerAt{&spec.InitContainers[i], specPath.Child("initContainers").Index(i)})
	}
	for i := range spec.Containers {
		out = append(out, containerAt{&spec.Containers[i], specPath.Child("containers").Index(i)})
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, containerAt{&c, specPath.Child("ephemeralContainers").Index(i)})
	}
	return out
}

// The terms of a pod affinity or anti-affinity, nil when it is.
func podAffinityRequired(a *corev1.PodAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAffinityPreferred(a *corev1.PodAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityRequired(a *corev1.PodAntiAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityPreferred(a *corev1.PodAntiAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}
