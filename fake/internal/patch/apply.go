package patch

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// apply merges a server-side apply configuration into live (an empty object of the kind when live
// is nil, so apply creates) with the structured-merge field manager: ownership, conflicts (409 with
// one cause per conflicting field) and force are the library's.
func (p *Patcher) apply(k kind, fm *managedfields.FieldManager, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
	cfg := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(req.Patch, &cfg.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	if live == nil {
		live = k.empty()
	}
	out, err := fm.Apply(live, cfg, req.FieldManager, req.Force)
	if err != nil {
		return nil, err
	}
	if fc.strict {
		if err := yaml.UnmarshalStrict(req.Patch, &map[string]any{}); err != nil {
			if fc.fail {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			fc.warn(err)
		}
	}
	return out, nil
}
