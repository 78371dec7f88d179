package main

import "errors"

// delegate makes the cluster of serve --kubeconfig authenticate and authorize serve's clients, as
// an aggregated apiserver delegates to the kube-apiserver that fronts it
// (k8s.io/apiserver/pkg/server/options: DelegatingAuthenticationOptions and
// DelegatingAuthorizationOptions, which read the in-cluster or --authentication-kubeconfig
// cluster by default): a replica of a cluster's objects must not show them to clients the cluster
// would refuse. Bearer tokens go to the cluster's TokenReview unless --authentication-kubeconfig
// names another cluster, requests to its SubjectAccessReview unless --authorization-kubeconfig or
// --authorization-policy-file names another authorizer. --delegated-auth=false leaves the Gate
// as the other flags make it: without them, plain HTTP without credentials, which newFront
// allows on loopback only. The generated cluster and etcd have no cluster to ask: delegate
// leaves them alone.
func delegate(sec *safetyFlags, kubeconfig string, set map[string]bool) error {
	if kubeconfig == "" {
		if set["delegated-auth"] {
			return errors.New("--delegated-auth needs --kubeconfig: only a live cluster can review tokens and access")
		}
		return nil
	}
	if !sec.delegatedAuth {
		return nil
	}
	if sec.gate.AuthenticationKubeconfig == "" {
		sec.gate.AuthenticationKubeconfig = kubeconfig
	}
	if sec.gate.AuthorizationKubeconfig == "" && sec.gate.AuthorizationPolicyFile == "" {
		sec.gate.AuthorizationKubeconfig = kubeconfig
	}
	return nil
}
