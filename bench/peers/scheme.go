package peers

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Scheme knows core/v1 (pods) and the meta types, nothing else.
var Scheme = kruntime.NewScheme()

// StorageCodec is the apiserver's storage codec for pods in these benchmarks: JSON (the issue asks
// for JSON in etcd; a real apiserver stores core types as protobuf), encoding and decoding v1
// without an internal version.
var StorageCodec kruntime.Codec

func init() {
	metav1.AddToGroupVersion(Scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(corev1.AddToScheme(Scheme))
	utilruntime.Must(metav1.AddMetaToScheme(Scheme))
	Scheme.AddUnversionedTypes(corev1.SchemeGroupVersion, &metav1.Status{})
	codecs := serializer.NewCodecFactory(Scheme)
	info, ok := kruntime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), kruntime.ContentTypeJSON)
	if !ok {
		panic("no JSON serializer")
	}
	gv := schema.GroupVersions{corev1.SchemeGroupVersion}
	StorageCodec = codecs.CodecForVersions(info.Serializer, info.Serializer, gv, gv)
}

// PodAttrs is the apiserver's GetAttrs for pods (pkg/registry/core/pod/strategy.go GetAttrs and
// ToSelectableFields): the label set and every selectable field, built per object as the
// apiserver's etcd path and watch cache do.
func PodAttrs(obj kruntime.Object) (labels.Set, fields.Set, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	return labels.Set(p.Labels), podSelectableFields(p), nil
}

func podSelectableFields(p *corev1.Pod) fields.Set {
	// Sized as the apiserver sizes it: 10 pod fields + 2 object-meta fields.
	s := make(fields.Set, 12)
	s["spec.nodeName"] = p.Spec.NodeName
	s["spec.restartPolicy"] = string(p.Spec.RestartPolicy)
	s["spec.schedulerName"] = p.Spec.SchedulerName
	s["spec.serviceAccountName"] = p.Spec.ServiceAccountName
	s["spec.hostNetwork"] = strconv.FormatBool(p.Spec.HostNetwork)
	s["status.phase"] = string(p.Status.Phase)
	podIP := ""
	if len(p.Status.PodIPs) > 0 {
		podIP = p.Status.PodIPs[0].IP
	}
	s["status.podIP"] = podIP
	s["status.nominatedNodeName"] = p.Status.NominatedNodeName
	s["metadata.name"] = p.Name
	s["metadata.namespace"] = p.Namespace
	return s
}
