package fake

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/kubeapi"
)

// decodeCustom decodes a custom resource's body: kind and apiVersion default to the resource's
// (another kind is the apiserver's 422 on "kind"), unknown fields are pruned (and reported, for
// fieldValidation), and the schema's defaults are filled in.
func decodeCustom(t *resourceType, body []byte) (*decoded, error) {
	var content map[string]any
	if err := utiljson.Unmarshal(body, &content); err != nil || content == nil {
		msg := "the object provided is unrecognized"
		if err != nil {
			msg = err.Error()
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", t.gvk.Kind, t.gvk.Version, t.gvk.Kind, msg))
	}
	u := &unstructured.Unstructured{Object: content}
	if kind := u.GetKind(); kind != "" && kind != t.gvk.Kind {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: t.gvk.Group, Kind: kind}, u.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("kind"), kind, "must be "+t.gvk.Kind)})
	}
	u.SetGroupVersionKind(t.gvk)
	d := &decoded{obj: u}
	vs := t.custom.schema
	d.unknown = vs.prune(content)
	applySchemaDefaults(content, vs.structural)
	return d, nil
}

// prepareCustomUpdate is the custom resource strategy's PrepareForUpdate: with a status
// subresource, the main resource keeps the stored status and the status subresource changes
// only the status.
func prepareCustomUpdate(t *resourceType, obj, old *unstructured.Unstructured, status bool) runtime.Object {
	if !t.status {
		return obj
	}
	if status {
		out := old.DeepCopy()
		if st, ok := obj.Object["status"]; ok {
			out.Object["status"] = st
		} else {
			delete(out.Object, "status")
		}
		out.SetResourceVersion(obj.GetResourceVersion())
		out.SetManagedFields(obj.GetManagedFields())
		return out
	}
	if st, ok := old.Object["status"]; ok {
		obj.Object["status"] = runtime.DeepCopyJSONValue(st)
	} else {
		delete(obj.Object, "status")
	}
	return obj
}

// customSpecChanged reports whether anything but metadata differs: what bumps a custom
// resource's generation, as the custom resource strategy compares. With a status subresource the
// main resource's status is the stored one by then (prepareCustomUpdate), so only a resource
// without one has its status changes bump the generation, as on the apiserver.
func customSpecChanged(obj, old *unstructured.Unstructured) bool {
	strip := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			switch k {
			case "apiVersion", "kind", "metadata":
				continue
			}
			out[k] = v
		}
		return out
	}
	return !equality.Semantic.DeepEqual(strip(obj.Object), strip(old.Object))
}

// prepareCRD is the CRD strategy's PrepareForCreate (old nil) and PrepareForUpdate: the status is
// the server's, and storedVersions lists every version ever marked as the storage version.
func prepareCRD(crd, old *apiextensionsv1.CustomResourceDefinition) {
	if old != nil {
		crd.Status = *old.Status.DeepCopy()
	} else {
		crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage && !contains(crd.Status.StoredVersions, v.Name) {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		}
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// validateKind is the per-kind validation the fake does beyond ObjectMeta's: a CRD's rules, a
// custom resource's schema and scale replicas, or Options.CustomResourceValidator's in their place,
// the spec of pods and workloads (validate_workloads.go), webhook configurations' with their
// matchConditions compiled by a MatchConditionsValidator, and the spec rules of the other
// built-in kinds that validateCoreKind knows (on their main resource) and validateCoreStatus
// (on their status); a pod's ephemeralcontainers and resize writes have their subresource's rules.
func (s *Server) validateKind(ctx context.Context, op Operation, r *served, obj, old runtime.Object, subresource string) field.ErrorList {
	if p, ok := obj.(*corev1.Pod); ok && subresource == "ephemeralcontainers" && old != nil {
		return validateEphemeralContainersUpdate(p, old.(*corev1.Pod))
	}
	if p, ok := obj.(*corev1.Pod); ok && subresource == "resize" && old != nil {
		return validateResize(p, old.(*corev1.Pod))
	}
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		var prev *apiextensionsv1.CustomResourceDefinition
		if old != nil {
			prev = old.(*apiextensionsv1.CustomResourceDefinition)
		}
		if cv := s.opts.CustomResourceValidator; cv != nil && subresource == "" {
			return cv.ValidateCRD(ctx, o, prev)
		}
		return validateCRD(o, prev)
	case *certificatesv1.CertificateSigningRequest:
		var prev *certificatesv1.CertificateSigningRequest
		if old != nil {
			prev = old.(*certificatesv1.CertificateSigningRequest)
		}
		return validateCSR(o, prev, subresource)
	case *certificatesv1.ClusterTrustBundle:
		var prev *certificatesv1.ClusterTrustBundle
		if old != nil {
			prev = old.(*certificatesv1.ClusterTrustBundle)
		}
		return validateClusterTrustBundle(o, prev)
	case *unstructured.Unstructured:
		if r.custom == nil {
			return nil
		}
		if v := r.custom.validator; v != nil {
			w := CustomResourceWrite{Operation: op, Subresource: subresource, Object: o}
			if old != nil {
				w.Old = old.(*unstructured.Unstructured)
			}
			return v.Validate(ctx, w)
		}
		errs := r.custom.schema.validateObject(o.Object)
		if sc := r.custom.scale; sc != nil {
			errs = append(errs, validateScaleReplicas(o.Object, sc.SpecReplicasPath)...)
		}
		return errs
	case *admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration:
		// With a MatchConditionsValidator the matchConditions are compiled, as the apiserver does.
		if v, ok := s.opts.WebhookMatchConditions.(MatchConditionsValidator); ok && subresource == "" {
			return uniqueCauses(validateWebhookConfiguration(o, old, v))
		}
		return validateCoreKind(obj, old)
	default:
		errs := validateWorkloadKind(obj, old)
		switch {
		case subresource == "":
			errs = append(errs, validateCoreKind(obj, old)...)
		case subresource == "status" && old != nil:
			errs = append(errs, validateCoreStatus(obj, old)...)
		}
		return errs
	}
}

// StorageVersionHash is discovery's hash of a resource's storage version: the first 8 bytes of
// the SHA-256 of "group/version/kind", in base64 (the apiserver's discovery.StorageVersionHash;
// checked against reference/observed-crds.md, discovery v1).
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// CustomResourcePrinter prints a custom resource's Table as the apiserver does: Name, then each of the
// version's additionalPrinterColumns, or Age when it has none; a cell is the value at the
// column's JSONPath, a date column's the age of its timestamp (reference/observed-crds.md,
// lifecycle / table, cluster / table default columns).
func CustomResourcePrinter(cols []apiextensionsv1.CustomResourceColumnDefinition) *kubeapi.Printer {
	doc := metav1.ObjectMeta{}.SwaggerDoc()
	if len(cols) == 0 {
		cols = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp", Description: doc["creationTimestamp"]}}
	}
	defs := []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name", Description: doc["name"]}}
	paths := make([]string, len(cols))
	dates := make([]bool, len(cols))
	for i, c := range cols {
		defs = append(defs, metav1.TableColumnDefinition{
			Name: c.Name, Type: c.Type, Format: c.Format, Priority: c.Priority,
			Description: "Custom resource definition column (in JSONPath format): " + c.JSONPath,
		})
		if c.Description != "" {
			defs[len(defs)-1].Description = c.Description
		}
		paths[i] = strings.TrimPrefix(c.JSONPath, ".")
		dates[i] = c.Type == "date"
	}
	return &kubeapi.Printer{Columns: defs, Row: func(obj []byte, now time.Time) metav1.TableRow {
		cells := make([]any, 0, len(paths)+1)
		cells = append(cells, gjson.GetBytes(obj, "metadata.name").String())
		for i, p := range paths {
			v := gjson.GetBytes(obj, p)
			switch {
			case !v.Exists():
				cells = append(cells, nil)
			case dates[i]:
				t, err := time.Parse(time.RFC3339, v.String())
				if err != nil {
					cells = append(cells, v.Value())
					continue
				}
				cells = append(cells, duration.HumanDuration(now.Sub(t)))
			default:
				cells = append(cells, v.Value())
			}
		}
		return metav1.TableRow{Cells: cells}
	}}
}
