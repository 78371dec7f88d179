package fake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// readCRDPaths reads the CustomResourceDefinitions of files and directories (not recursively:
// a directory's .json, .yaml and .yml files, in name order, as envtest reads them). Documents of
// other kinds are skipped. A missing path is skipped unless failIfMissing.
func readCRDPaths(paths []string, failIfMissing bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && !failIfMissing {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fake: CRD path: %w", err)
		}
		files := []string{p}
		if info.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("fake: CRD path: %w", err)
			}
			files = files[:0]
			for _, e := range entries {
				switch strings.ToLower(filepath.Ext(e.Name())) {
				case ".json", ".yaml", ".yml":
					if !e.IsDir() {
						files = append(files, filepath.Join(p, e.Name()))
					}
				}
			}
		}
		for _, f := range files {
			crds, err := readCRDFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, crds...)
		}
	}
	return out, nil
}

// readCRDFile reads the CRDs of one file of YAML documents (or JSON).
func readCRDFile(name string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("fake: CRD file: %w", err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("fake: CRD file %s: %w", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := utilyaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("fake: CRD file %s: %w", name, err)
		}
		if tm.Kind != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := utilyaml.Unmarshal(doc, crd); err != nil {
			return nil, fmt.Errorf("fake: CRD file %s: %w", name, err)
		}
		out = append(out, crd)
	}
}
