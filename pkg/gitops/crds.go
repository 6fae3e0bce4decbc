package gitops

import (
	"bytes"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// crdTolerance decodes the CustomResourceDefinitions of Butler's and Steward's groups that
// the files hold (read already), and returns manifest.Options.Tolerate for the fields they
// declare; nil when they hold none.
func crdTolerance(files []manifest.File) func(apiVersion, kind, field string) bool {
	var crds []*apiextv1.CustomResourceDefinition
	for _, f := range files {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(f.Data), 4096)
		for {
			var crd apiextv1.CustomResourceDefinition
			if err := dec.Decode(&crd); err != nil {
				break
			}
			if crd.Kind == "CustomResourceDefinition" && (crd.Spec.Group == manifest.ButlerGroup || crd.Spec.Group == manifest.StewardGroup) {
				crds = append(crds, crd.DeepCopy())
			}
		}
	}
	if len(crds) == 0 {
		return nil
	}
	return func(apiVersion, kind, field string) bool {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return false
		}
		for _, crd := range crds {
			if crd.Spec.Group != gv.Group || crd.Spec.Names.Kind != kind {
				continue
			}
			for _, v := range crd.Spec.Versions {
				if v.Name == gv.Version && v.Schema != nil && declared(v.Schema.OpenAPIV3Schema, manifest.FieldSteps(field)) {
					return true
				}
			}
		}
		return false
	}
}

// declared reports whether a schema declares a field path.
func declared(s *apiextv1.JSONSchemaProps, steps []string) bool {
	for _, st := range steps {
		if s == nil {
			return false
		}
		if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
			return true
		}
		if s.Type == "array" {
			if s.Items == nil || s.Items.Schema == nil {
				return false
			}
			s = s.Items.Schema
			if isIndex(st) {
				continue
			}
		}
		if p, ok := s.Properties[st]; ok {
			s = &p
			continue
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			s = s.AdditionalProperties.Schema
			continue
		}
		return false
	}
	return true
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
