package kubeapi

import "cmp"

// builtinGroupPriorities are the groups' places in kube-apiserver 1.37.2's discovery, as its
// aggregator orders both /apis documents: by the highest GroupPriorityMinimum of the group's
// versions, then by name. They are k8s.io/kubernetes v1.37.2 cmd/kube-apiserver/app/aggregator.go
// apiVersionPriorities (merged over pkg/controlplane/apiserver DefaultGenericAPIServicePriorities),
// and kube-aggregator's APIRegistrationGroupPriority, which puts apiregistration.k8s.io first
// (fake/testdata/discovery/apis.json, aggregated-apis.json show the order).
var builtinGroupPriorities = map[string]int{
	"apiregistration.k8s.io":       20001,
	"":                             18000,
	"apps":                         17800,
	"events.k8s.io":                17750,
	"authentication.k8s.io":        17700,
	"authorization.k8s.io":         17600,
	"autoscaling":                  17500,
	"batch":                        17400,
	"certificates.k8s.io":          17300,
	"networking.k8s.io":            17200,
	"policy":                       17100,
	"rbac.authorization.k8s.io":    17000,
	"storage.k8s.io":               16800,
	"admissionregistration.k8s.io": 16700,
	"apiextensions.k8s.io":         16700,
	"scheduling.k8s.io":            16600,
	"coordination.k8s.io":          16500,
	"node.k8s.io":                  16300,
	"discovery.k8s.io":             16200,
	"resource.k8s.io":              16200,
	"flowcontrol.apiserver.k8s.io": 16100,
	"internal.apiserver.k8s.io":    16000,
	"storagemigration.k8s.io":      15800,
	"lifecycle.k8s.io":             15700,
}

// customGroupPriority is the priority of any other group: the one the apiserver gives a CRD's
// group-versions (apiextensions' discovery controller and crdregistration: 1000). An aggregated
// API's own APIService priority is not known here, so its group sorts among the CRDs' groups.
const customGroupPriority = 1000

// compareGroups orders groups as the apiserver's discovery lists them: higher priority first,
// then by name.
func compareGroups(a, b string) int {
	pa, ok := builtinGroupPriorities[a]
	if !ok {
		pa = customGroupPriority
	}
	pb, ok := builtinGroupPriorities[b]
	if !ok {
		pb = customGroupPriority
	}
	if c := cmp.Compare(pb, pa); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}
