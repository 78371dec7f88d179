package wire

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// decodeMeta decodes an object's metadata JSON into ObjectMeta.
func decodeMeta(metadata []byte) (metav1.ObjectMeta, error) {
	var m metav1.ObjectMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(metadata, &m); err != nil {
		return m, fmt.Errorf("wire: decode metadata for protobuf: %w", err)
	}
	return m, nil
}

// AppendPartial appends the enveloped PartialObjectMetadata of meta.k8s.io/version (v1 or
// v1beta1, whose types are the same) holding the metadata JSON.
func AppendPartial(dst []byte, version string, metadata []byte) ([]byte, error) {
	m, err := decodeMeta(metadata)
	if err != nil {
		return dst, err
	}
	return appendEnveloped(dst, "meta.k8s.io/"+version, "PartialObjectMetadata", &metav1.PartialObjectMetadata{ObjectMeta: m})
}

// PartialList returns the enveloped PartialObjectMetadataList of meta.k8s.io/version with the
// items' metadata JSON. The list is built whole: metadata is small, and v1beta1's list numbers
// its fields the other way round (items 1, metadata 2).
func PartialList(version string, meta metav1.ListMeta, metadata [][]byte) ([]byte, error) {
	items := make([]metav1.PartialObjectMetadata, len(metadata))
	for i, md := range metadata {
		m, err := decodeMeta(md)
		if err != nil {
			return nil, err
		}
		items[i].ObjectMeta = m
	}
	if version == "v1beta1" {
		// v1beta1.PartialObjectMetadataList is its own type, with the other field numbers.
		return appendEnveloped(nil, "meta.k8s.io/v1beta1", "PartialObjectMetadataList",
			&metav1beta1.PartialObjectMetadataList{ListMeta: meta, Items: items})
	}
	return appendEnveloped(nil, "meta.k8s.io/"+version, "PartialObjectMetadataList",
		&metav1.PartialObjectMetadataList{ListMeta: meta, Items: items})
}

// ToYAML converts a JSON answer to the apiserver's YAML answer: its YAML serializer marshals the
// object to JSON and converts that with sigs.k8s.io/yaml, so the same JSON gives the same bytes.
func ToYAML(json []byte) ([]byte, error) {
	y, err := yaml.JSONToYAML(json)
	if err != nil {
		return nil, fmt.Errorf("wire: yaml: %w", err)
	}
	return y, nil
}
