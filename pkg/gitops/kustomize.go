package gitops

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// kustomization is a kustomization file of the tree.
type kustomization struct {
	file string // as walked
	k    types.Kustomization
	// inputs are the files it names that are not manifests (patches, generator and
	// replacement sources), relative to its directory: kustomize reads them, Load does not.
	inputs []string
	// patches are its patches, with where each field they set is written; allRead is
	// false when one of k.Patches gave none (unreadable: kustomize says why).
	patches []patch
	allRead bool
}

// patch is one patch of a kustomization (or of a Flux Kustomization) and the lines of the
// fields it sets.
type patch struct {
	target *types.Selector
	// The id a strategic merge patch names itself, "" for a JSON patch.
	apiVersion, kind, namespace, name string
	file                              string
	fields                            []manifest.FieldOrigin
	// annotationOp: a JSON patch operation reads or writes metadata.annotations (or the
	// whole metadata), which the annotations kustomize adds for a build's metadata change.
	annotationOp bool
}

func readKustomization(file string, opts manifest.Options) (*kustomization, error) {
	limit := opts.MaxFileBytes
	if limit <= 0 {
		limit = manifest.DefaultMaxFileBytes
	}
	data, err := fileio.ReadFile(file, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	k := &kustomization{file: file}
	if err := sigsyaml.UnmarshalStrict(data, &k.k); err != nil {
		return nil, &manifest.DecodeError{File: file, Line: 1, Kind: "Kustomization",
			Msg: "not a kustomization kustomize can read: " + strings.TrimPrefix(err.Error(), "error unmarshaling JSON: while decoding JSON: ")}
	}
	k.k.FixKustomization()
	for _, p := range k.k.Patches {
		if p.Path != "" {
			k.inputs = append(k.inputs, p.Path)
		}
	}
	//lint:ignore SA1019 kustomize still applies the deprecated patch lists; their files are inputs too
	for _, p := range k.k.PatchesStrategicMerge {
		if s := string(p); !strings.Contains(s, "\n") {
			k.inputs = append(k.inputs, s)
		}
	}
	//lint:ignore SA1019 kustomize still applies the deprecated patch lists; their files are inputs too
	for _, p := range k.k.PatchesJson6902 {
		if p.Path != "" {
			k.inputs = append(k.inputs, p.Path)
		}
	}
	for _, r := range k.k.Replacements {
		if r.Path != "" {
			k.inputs = append(k.inputs, r.Path)
		}
	}
	for _, g := range append(append([]types.ConfigMapArgs{}, k.k.ConfigMapGenerator...), secretArgs(k.k.SecretGenerator)...) {
		for _, f := range g.FileSources {
			_, src, found := strings.Cut(f, "=")
			if !found {
				src = f
			}
			k.inputs = append(k.inputs, src)
		}
		k.inputs = append(k.inputs, g.EnvSources...)
	}
	k.inputs = append(k.inputs, k.k.Configurations...)
	k.inputs = append(k.inputs, k.k.Crds...)
	k.patches, k.allRead = kustomizationPatches(file, data, &k.k)
	return k, nil
}

func secretArgs(s []types.SecretArgs) []types.ConfigMapArgs {
	var out []types.ConfigMapArgs
	for _, a := range s {
		out = append(out, types.ConfigMapArgs{GeneratorArgs: a.GeneratorArgs})
	}
	return out
}

// kustomizationPatches reads where the fields of a kustomization's patches are written:
// a patch file's lines, or an inline patch's lines within the kustomization file. allRead
// is false when a patch of any form gave none: what it selects is kustomize's to say.
func kustomizationPatches(file string, data []byte, k *types.Kustomization) (out []patch, allRead bool) {
	dir := filepath.Dir(file)
	var doc yaml.Node
	_ = yaml.Unmarshal(data, &doc)
	allRead = true
	read := func(ps []types.Patch, inline map[int]int) {
		for i, p := range ps {
			var got []patch
			if p.Path != "" {
				f := filepath.Join(dir, p.Path)
				if text, err := fileio.ReadFile(f, manifest.DefaultMaxFileBytes); err == nil { // else kustomize reports it
					got = patchesOf(f, string(text), 0, p.Target)
				}
			} else {
				got = patchesOf(file, p.Patch, inline[i], p.Target)
			}
			allRead = allRead && len(got) > 0
			out = append(out, got...)
		}
	}
	read(k.Patches, inlinePatchLines(&doc, "patches"))
	//lint:ignore SA1019 kustomize still applies the deprecated JSON 6902 patches; so does the render
	read(k.PatchesJson6902, inlinePatchLines(&doc, "patchesJson6902"))
	smLines := inlineSMLines(&doc)
	//lint:ignore SA1019 kustomize still applies the deprecated strategic-merge patches; so does the render
	for i, p := range k.PatchesStrategicMerge {
		var got []patch
		if s := string(p); !strings.Contains(s, "\n") {
			f := filepath.Join(dir, s)
			if text, err := fileio.ReadFile(f, manifest.DefaultMaxFileBytes); err == nil {
				got = patchesOf(f, string(text), 0, nil)
			}
		} else {
			got = patchesOf(file, s, smLines[i], nil)
		}
		allRead = allRead && len(got) > 0
		out = append(out, got...)
	}
	return out, allRead
}

// inlineSMLines gives, for each inline patch of a kustomization's patchesStrategicMerge,
// the line before its text starts.
func inlineSMLines(doc *yaml.Node) map[int]int {
	out := map[int]int{}
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n = mapValue(n, "patchesStrategicMerge"); n == nil || n.Kind != yaml.SequenceNode {
		return out
	}
	for i, item := range n.Content {
		if item.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			out[i] = item.Line
		} else {
			out[i] = item.Line - 1
		}
	}
	return out
}

// inlinePatchLines gives, for each item of a list of patches (a kustomization's patches,
// a Flux Kustomization's spec.patches), the line before its patch text starts.
func inlinePatchLines(doc *yaml.Node, keys ...string) map[int]int {
	out := map[int]int{}
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		n = mapValue(n, k)
		if n == nil {
			return out
		}
	}
	if n.Kind != yaml.SequenceNode {
		return out
	}
	for i, item := range n.Content {
		if v := mapValue(item, "patch"); v != nil {
			if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				out[i] = v.Line // the text starts on the next line
			} else {
				out[i] = v.Line - 1
			}
		}
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// patchesOf reads a patch's text (a strategic merge patch, several documents of them, or
// a JSON 6902 patch) into the fields it sets, at line offset off in file.
func patchesOf(file, text string, off int, target *types.Selector) []patch {
	var out []patch
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if len(doc.Content) == 0 {
			continue
		}
		n := doc.Content[0]
		p := patch{target: target, file: file}
		switch n.Kind {
		case yaml.SequenceNode: // JSON 6902
			for _, op := range n.Content {
				path := mapValue(op, "path")
				if path == nil {
					continue
				}
				p.annotationOp = p.annotationOp || readsAnnotations(path) || readsAnnotations(mapValue(op, "from"))
				steps := strings.Split(strings.TrimPrefix(path.Value, "/"), "/")
				for i := range steps {
					steps[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(steps[i])
				}
				line := path.Line
				if v := mapValue(op, "value"); v != nil {
					line = v.Line
				}
				p.fields = append(p.fields, manifest.FieldOrigin{Field: joinSteps(steps), File: file, Line: line + off})
			}
		case yaml.MappingNode:
			p.apiVersion, p.kind = scalar(mapValue(n, "apiVersion")), scalar(mapValue(n, "kind"))
			p.name = scalar(mapValue(mapValue(n, "metadata"), "name"))
			p.namespace = scalar(mapValue(mapValue(n, "metadata"), "namespace"))
			leaves(n, nil, func(steps []string, line int) {
				switch joinSteps(steps) {
				case "apiVersion", "kind", "metadata.name", "metadata.namespace":
					return
				}
				p.fields = append(p.fields, manifest.FieldOrigin{Field: joinSteps(steps), File: file, Line: line + off})
			})
		}
		out = append(out, p)
	}
	return out
}

// readsAnnotations reports whether a JSON pointer (nil: none) is metadata.annotations,
// within it, or above it.
func readsAnnotations(ptr *yaml.Node) bool {
	if ptr == nil {
		return false
	}
	v := ptr.Value
	return v == "" || v == "/" || v == "/metadata" || strings.HasPrefix(v, "/metadata/annotations")
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// leaves calls fn with the path and line of every scalar (or empty collection) below n.
func leaves(n *yaml.Node, steps []string, fn func([]string, int)) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			s := append(append([]string{}, steps...), k.Value)
			if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) > 0 {
				leaves(v, s, fn)
				continue
			}
			fn(s, k.Line)
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			s := append(append([]string{}, steps...), fmt.Sprint(i))
			if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) > 0 {
				leaves(v, s, fn)
				continue
			}
			fn(s, v.Line)
		}
	}
}

// joinSteps writes steps as a field path; Position compares steps, so the form of a key
// ("a.b" or "a[b]") does not matter.
func joinSteps(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		if strings.ContainsAny(s, ".[]") {
			b.WriteString("[" + s + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// applies reports whether a patch may have changed an object with those ids (its
// previous ids and its current one), as kustomize selects: a target's group, version,
// kind, name and namespace are regular expressions matched whole against any of them, a
// strategic merge patch without a target is the object of its own id. A target that
// selects by labels or annotations counts as applying: what the object's labels were when
// the patch ran is kustomize's to know.
func (p *patch) applies(ids []resid.ResId) bool {
	if p.target != nil {
		if p.target.LabelSelector != "" || p.target.AnnotationSelector != "" {
			return true
		}
		re, err := types.NewSelectorRegex(p.target)
		if err != nil {
			return true // kustomize refused it already; never assume it left the object alone
		}
		for _, id := range ids {
			if re.MatchGvk(id.Gvk) && re.MatchName(id.Name) && re.MatchNamespace(id.EffectiveNamespace()) {
				return true
			}
		}
		return false
	}
	if p.kind == "" || p.name == "" {
		return true // not an object's id: kustomize decides
	}
	g, v := resid.ParseGroupVersion(p.apiVersion)
	own := resid.NewResIdWithNamespace(resid.NewGvk(g, v, p.kind), p.name, p.namespace)
	for _, id := range ids {
		if id.Equals(own) {
			return true
		}
	}
	return false
}

// readCoverage reads the export's coverage.yaml: it must be YAML; it is not judged.
func readCoverage(file string, opts manifest.Options) error {
	limit := opts.MaxFileBytes
	if limit <= 0 {
		limit = manifest.DefaultMaxFileBytes
	}
	data, err := fileio.ReadFile(file, limit)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return &manifest.DecodeError{File: file, Line: 1, Msg: "coverage.yaml is not YAML: " + err.Error()}
		}
	}
}
