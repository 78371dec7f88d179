package main

import (
	"encoding/json"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	etcdsource "github.com/watchcache/watchcache/source/etcd"
)

// crdsResource is the CustomResourceDefinitions themselves, which the apiextensions apiserver
// stores as JSON at apiextensions.k8s.io/v1beta1 (observed on 1.37.2) and serves at v1, with the
// names and categories of its discovery.
var crdsResource = etcdsource.Resource{
	Prefix: crdPrefix[:len(crdPrefix)-1], Group: "apiextensions.k8s.io", Version: "v1",
	Kind: "CustomResourceDefinition", Resource: "customresourcedefinitions",
	ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
}

// crdScheme and crdDecoder read a stored CRD (v1beta1, or v1) into the internal version with the
// apiextensions scheme's defaulting, and convert it to v1: the apiserver's own reading of its
// storage, not a hand-written mapping of v1beta1's shared validation, subresources and columns
// onto v1's versions.
var crdScheme, crdDecoder = func() (*runtime.Scheme, runtime.Decoder) {
	s := runtime.NewScheme()
	install.Install(s)
	return s, serializer.NewCodecFactory(s).UniversalDecoder()
}()

// crdInV1 is the cache's Transform for CRDs: the stored object as the apiserver serves it at v1.
// An object that does not decode is kept as stored.
func crdInV1(raw []byte) []byte {
	obj, _, err := crdDecoder.Decode(raw, nil, nil)
	if err != nil {
		return raw
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := crdScheme.Convert(obj, &crd, nil); err != nil {
		return raw
	}
	crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
	out, err := json.Marshal(&crd)
	if err != nil {
		return raw
	}
	return out
}
