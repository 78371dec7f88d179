package etcd

import (
	"encoding/json"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/watchcache"
)

// ServedAs returns the watchcache.Transform that turns the objects of r, stored at
// r.StorageVersion, into what the apiserver serves at r.Version, or nil when r is served as
// stored (no StorageVersion) or its served kind is not in client-go's scheme. Set it as the
// cache's Options.Transform.
//
// The apiserver converts through its internal type, which client-go lacks; for the resources of
// Builtin the conversion only copies the fields the two versions share and drops those the
// served one lacks (PodCertificateRequest v1beta1's pkixPublicKey and proofOfPossession;
// k8s.io/kubernetes pkg/apis/*/v1*/zz_generated.conversion.go), so the object is decoded into
// the served version's type, which drops them too, and encoded again in that type's field order.
// An object already at r.Version is returned as it is; one that does not decode is too, and the
// cache then refuses it as malformed or stores it unchanged. The transform is safe for
// concurrent use.
func ServedAs(r Resource) watchcache.Transform {
	if r.StorageVersion == "" || r.StorageVersion == r.Version {
		return nil
	}
	gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	if !scheme.Scheme.Recognizes(gvk) {
		return nil
	}
	apiVersion := gvk.GroupVersion().String()
	return func(raw []byte) []byte {
		if v := gjson.GetBytes(raw, "apiVersion"); v.Str == apiVersion {
			return raw
		}
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			return raw
		}
		if err := json.Unmarshal(raw, obj); err != nil {
			return raw
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		out, err := json.Marshal(obj)
		if err != nil {
			return raw
		}
		return out
	}
}
