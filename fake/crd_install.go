package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// crdInstallManager is the field manager of the CRDs a server creates at start.
const crdInstallManager = "watchcache-fake"

// installCRDs creates Options.CRDs and the CRDs of Options.CRDDirectoryPaths, in that order.
func (s *Server) installCRDs() error {
	if len(s.opts.CRDs) == 0 && len(s.opts.CRDDirectoryPaths) == 0 {
		return nil
	}
	crds := slices.Clone(s.opts.CRDs)
	fromFiles, err := readCRDPaths(s.opts.CRDDirectoryPaths, s.opts.ErrorIfCRDPathMissing)
	if err != nil {
		return err
	}
	crds = append(crds, fromFiles...)
	r := s.byGR[crdGR]
	if r == nil {
		return fmt.Errorf("fake: CustomResourceDefinitions are not served")
	}
	for _, crd := range crds {
		body, err := json.Marshal(crd)
		if err != nil {
			return fmt.Errorf("fake: CRD %s: %w", crd.Name, err)
		}
		if _, _, err := s.createObject(context.Background(), target{res: r}, body, metav1.CreateOptions{}, crdInstallManager); err != nil {
			return fmt.Errorf("fake: CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}

// readCRDPaths reads the CustomResourceDefinitions of files and directories (manifestFiles).
// Documents of other kinds are skipped. A missing path is skipped unless failIfMissing.
func readCRDPaths(paths []string, failIfMissing bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := manifestFiles(paths, failIfMissing, "CRD")
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		err := eachDocument(f, "CRD", func(kind string, doc []byte) error {
			if kind != "CustomResourceDefinition" {
				return nil
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			out = append(out, crd)
			return utilyaml.Unmarshal(doc, crd)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
