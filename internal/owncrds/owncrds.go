// Package owncrds decodes the CRDs the tools were built with (config/crd): what doctor
// compares the server's with, what explain reads and what the test control plane installs.
// It is apart from config/crd, which pkg/manifest imports for the raw schemas, so that
// only these users link the apiextensions types.
package owncrds

import (
	"fmt"
	"io/fs"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/config/crd"
)

// All are the embedded CRDs, decoded strictly, in the order of their file names.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(crd.FS, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		b, err := crd.FS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		c := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(b, c); err != nil {
			return nil, fmt.Errorf("the tools' own CRD %s: %w", f, err)
		}
		out = append(out, c)
	}
	return out, nil
}
