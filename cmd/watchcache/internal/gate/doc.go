// Package gate authenticates and authorizes the requests serve answers, with k8s.io/apiserver's own
// authenticators, authorizers and filters, so that a client gets exactly what a kube-apiserver
// answers: 401 with the apiserver's Status for a request no authenticator accepts, 403 with its
// "... is forbidden: User ... cannot ..." Status for one the authorizer denies
// (reference/observed-authn.md).
//
// Authenticators: bearer tokens from a static file (the apiserver's --token-auth-file), client
// certificates verified against a CA (--client-ca-file), and tokens reviewed by a cluster
// (TokenReview, cached, as an aggregated apiserver's delegated authentication). Authorizers: a
// cluster's SubjectAccessReview (cached for 5 minutes when allowed and 30 seconds when denied, the
// apiserver's webhook defaults), or an ABAC policy file (the apiserver's
// --authorization-policy-file format). Members of system:masters are always allowed, as by the
// apiserver. There is no anonymous user: a request without credentials gets 401.
//
// It lives in the command's module because k8s.io/apiserver must not reach the core or the fake.
package gate
