// Package crdcel lets the writable fake (github.com/watchcache/watchcache/fake) validate
// CustomResourceDefinitions and custom resources with the apiextensions apiserver's own code, which
// the fake cannot import without k8s.io/apiserver: x-kubernetes-validations (CEL) rules with their
// message, messageExpression, reason and fieldPath, transition rules (oldSelf, optionalOldSelf),
// the apiserver's cost limits, and validation ratcheting (an update passes when its invalid fields
// are unchanged; CRDValidationRatcheting is GA in Kubernetes 1.37). It is a module of its own so
// that the fake's users who do not want CEL do not get k8s.io/apiserver.
//
//	srv := fake.NewTest(t, fake.Options{CustomResourceValidator: crdcel.New()})
package crdcel
