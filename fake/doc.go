// Package fake is a writable, in-process Kubernetes API server for tests: every built-in resource
// of k8s.io/api's scheme, served over HTTP on a loopback listener so that client-go (typed,
// dynamic, metadata), controller-runtime and kubectl work against it unchanged.
//
// Config's rest.Config reaches the server without the listener: its Transport hands client-go's
// request to the server's handler in the test's process and returns the answer the listener would
// give (status, headers, body; a watch streams), with no socket and no HTTP parsing, which makes a
// request through client-go cost about a third of its CPU over a loopback connection
// (BENCHMARKS.md). NetworkConfig is the same configuration over the listener, for a client that
// needs TLS options, its own dialer or a real connection; URL is for kubectl and other processes.
//
// It is a front over the project's watch caches, not a second store: reads (list, get, watch) are
// kubeapi's read path over one watchcache.Cache per resource; writes (create, update, patch,
// delete, deletecollection, the status and scale subresources, a CSR's approval, pods'
// ephemeralcontainers and resize) are decoded, validated and admitted here, take the next value
// of one global resourceVersion counter (as etcd's revision is global) and go into the resource's
// cache as one event, so that a watch sees every write in order and a consistent read sees every
// write before it.
//
// The registry of resources — group, version, kind, scope, verbs, short names, categories and
// subresources — is the discovery a kube-apiserver 1.37.2 serves, recorded in testdata/discovery.
// The answers to writes (codes, reasons, messages, details, resulting objects) are those recorded
// from that apiserver in reference/observed-writes.md and the other reference/observed-*.md
// (observed-writes-more.md for the less common kinds), which the tests cite.
//
// CustomResourceDefinitions are served as the apiextensions apiserver serves them (crd.go):
// created through the API or at start (Options.CRDs, Options.CRDDirectoryPaths), Established
// before the create answers, their objects pruned, defaulted and validated against the structural
// schema (reference/observed-crds.md). Environment is a Server in envtest's shape.
//
// Of the admission plugins, LimitRanger (a pod's defaults; pods' and claims' bounds) and
// ResourceQuota are reproduced (reference/observed-admission.md): quotas are enforced from the
// status a test sets, as no quota controller counts usage, and admission charges their status.
// So are Priority (reference/observed-priority.md), DefaultTolerationSeconds, the not-ready node
// taint and the stored admission webhooks (webhook.go, reference/observed-webhooks.md).
//
// Who a request is and what it may do are answered as an RBAC apiserver answers them (identity.go,
// rbac.go, reviews.go; reference/observed-authz.md): the review APIs (kubectl auth whoami, auth
// can-i) evaluate the stored RBAC objects for Admin (a request without credentials), a static
// token of Options.Tokens, a service account token the fake issued, or whom the impersonation
// headers name; Options.EnforceRBAC makes every request pass that authorization.
//
// Two controllers of kube-controller-manager run in it, each switchable off: the garbage
// collector (ownerReferences; Background, Foreground and Orphan propagation) and the namespace
// controller (a deleted namespace's content goes, then the namespace), as recorded with
// kube-controller-manager in reference/observed-gc.md.
//
// Admission webhooks (webhook.go, webhook_call.go): the Mutating and ValidatingWebhookConfigurations
// it stores are called for the writes sent to the API as kube-apiserver calls them — matching,
// order, reinvocation, failure policies, timeouts, refusals and warnings as recorded in
// reference/observed-webhooks.md; Options.WebhookServiceURL routes service references to a
// webhook server the test runs. Their matchConditions (CEL) are evaluated by
// Options.WebhookMatchConditions — fake/crdcel's WebhookMatchConditions() is the apiserver's
// matcher (reference/observed-matchconditions.md), and, being a MatchConditionsValidator, compiles
// them when a configuration is written; without it a webhook is called as if its conditions
// held, and storing its configuration answers a warning.
//
// Start one per test with NewTest, or with NewServer and Close:
//
//	srv := fake.NewTest(t, fake.Options{})
//	cs := kubernetes.NewForConfigOrDie(srv.Config())
//	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{...}, metav1.CreateOptions{})
package fake
