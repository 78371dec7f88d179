package kubeapi

import "k8s.io/apimachinery/pkg/runtime/schema"

// builtinPrinters is every built-in resource printed with columns of its own, as kube-apiserver
// 1.37.2 prints it; each is recorded from the oracle (testdata/tables/<resource>.json, or
// testdata/oracle/table-<resource>*.http for the first five), and a test checks that the two name
// the same resources. Resources not listed get GenericPrinter, the apiserver's default.
var builtinPrinters = map[schema.GroupResource]func() *Printer{
	{Resource: "pods"}:                   PodPrinter,
	{Resource: "nodes"}:                  NodePrinter,
	{Resource: "namespaces"}:             NamespacePrinter,
	{Resource: "configmaps"}:             ConfigMapPrinter,
	{Resource: "services"}:               ServicePrinter,
	{Resource: "secrets"}:                secretPrinter,
	{Resource: "serviceaccounts"}:        nameAgePrinter,
	{Resource: "endpoints"}:              endpointsPrinter,
	{Resource: "events"}:                 eventPrinter,
	{Resource: "persistentvolumes"}:      persistentVolumePrinter,
	{Resource: "persistentvolumeclaims"}: persistentVolumeClaimPrinter,
	{Resource: "replicationcontrollers"}: replicationControllerPrinter,
	{Resource: "podtemplates"}:           podTemplatePrinter,
	{Resource: "resourcequotas"}:         resourceQuotaPrinter,

	{Group: "apps", Resource: "deployments"}:         deploymentPrinter,
	{Group: "apps", Resource: "replicasets"}:         replicaSetPrinter,
	{Group: "apps", Resource: "statefulsets"}:        statefulSetPrinter,
	{Group: "apps", Resource: "daemonsets"}:          daemonSetPrinter,
	{Group: "apps", Resource: "controllerrevisions"}: controllerRevisionPrinter,
	{Group: "batch", Resource: "jobs"}:               jobPrinter,
	{Group: "batch", Resource: "cronjobs"}:           cronJobPrinter,

	{Group: "networking.k8s.io", Resource: "ingresses"}:                                    ingressPrinter,
	{Group: "networking.k8s.io", Resource: "ingressclasses"}:                               ingressClassPrinter,
	{Group: "networking.k8s.io", Resource: "networkpolicies"}:                              networkPolicyPrinter,
	{Group: "coordination.k8s.io", Resource: "leases"}:                                     leasePrinter,
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:                         roleBindingPrinter,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:                  clusterRoleBindingPrinter,
	{Group: "policy", Resource: "poddisruptionbudgets"}:                                    podDisruptionBudgetPrinter,
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:                              priorityClassPrinter,
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:                                     runtimeClassPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   webhookPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     webhookPrinter,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}:                                endpointSlicePrinter,
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                           horizontalPodAutoscalerPrinter,
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}:                 certificateSigningRequestPrinter,
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:                        clusterTrustBundlePrinter,
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:                     podCertificateRequestPrinter,
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}:                 customResourceDefinitionPrinter,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:                             apiServicePrinter,
	{Group: "storage.k8s.io", Resource: "storageclasses"}:                                  storageClassPrinter,
	{Group: "events.k8s.io", Resource: "events"}:                                           eventsV1EventPrinter,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                       flowSchemaPrinter,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:                                 resourceClaimPrinter,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}:                         nameAgePrinter,
	{Group: "resource.k8s.io", Resource: "resourceslices"}:                                 resourceSlicePrinter,
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                               deviceTaintRulePrinter,
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}:               storageVersionMigrationPrinter,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                                        csiNodePrinter,
	{Group: "storage.k8s.io", Resource: "csidrivers"}:                                      csiDriverPrinter,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:                               volumeAttachmentPrinter,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}:                         volumeAttributesClassPrinter,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:                                  nameAgePrinter,
	{Group: "networking.k8s.io", Resource: "servicecidrs"}:                                 serviceCIDRPrinter,
	{Group: "networking.k8s.io", Resource: "ipaddresses"}:                                  ipAddressPrinter,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:       priorityLevelConfigurationPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       validatingAdmissionPolicyPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: policyBindingPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         mutatingAdmissionPolicyPrinter,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   policyBindingPrinter,
}

// PrinterFor returns the Printer kube-apiserver 1.37.2 uses for a built-in resource (group ""
// for the core group), and false for a resource it prints with the default columns (Name,
// Created At: GenericPrinter) — custom resources among them. Every call returns a new Printer.
func PrinterFor(group, resource string) (*Printer, bool) {
	p, ok := builtinPrinters[schema.GroupResource{Group: group, Resource: resource}]
	if !ok {
		return nil, false
	}
	return p(), true
}
