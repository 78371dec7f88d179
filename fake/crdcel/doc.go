// Package crdcel lets the writable fake (github.com/watchcache/watchcache/fake) evaluate CEL with
// the apiserver's own code, which the fake cannot import without k8s.io/apiserver. It is a module
// of its own so that the fake's users who do not want CEL do not get k8s.io/apiserver.
//
// New validates CustomResourceDefinitions and custom resources with the apiextensions apiserver's
// code: x-kubernetes-validations (CEL) rules with their message, messageExpression, reason and
// fieldPath, transition rules (oldSelf, optionalOldSelf), the apiserver's cost limits, and
// validation ratcheting (an update passes when its invalid fields are unchanged;
// CRDValidationRatcheting is GA in Kubernetes 1.37).
//
// WebhookMatchConditions evaluates admission webhooks' matchConditions with the apiserver's
// matcher, so that a webhook is called only when they hold, and an evaluation error is decided by
// the webhook's failurePolicy, as in a cluster; a configuration whose conditions do not compile
// is refused when it is written, as by the apiserver's validation.
//
//	srv := fake.NewTest(t, fake.Options{
//		CustomResourceValidator: crdcel.New(),
//		WebhookMatchConditions:  crdcel.WebhookMatchConditions(),
//	})
package crdcel
