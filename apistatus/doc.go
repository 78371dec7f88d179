// Package apistatus maps the errors of the watch cache's core packages (watchcache, rvclock,
// selection, index) to the Status a kube-apiserver answers for the same case: code, reason,
// message, causes and Retry-After.
//
// The core returns sentinels and typed errors and knows nothing of HTTP or metav1.Status; every
// edge that speaks the apiserver's protocol (the HTTP façade kubeapi, the conformance suite, the
// storage.Interface adapter, a fake clientset) calls FromError, so the mapping exists once.
//
// Rules cited as "rule N.M" refer to reference/apiserver-semantics.md of the project's design notes.
package apistatus
