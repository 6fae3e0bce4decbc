package gitops

import (
	"encoding/json"
	"fmt"
	"path"

	"sigs.k8s.io/kustomize/api/types"
)

// The random patches and transformers of the differential test's trees.

// patches gives a kustomization of the tree at rel up to three patches, in the forms
// kustomize reads: patches (inline or a file), and the deprecated patchesStrategicMerge
// and patchesJson6902.
func (g *treeGen) patches(rel string, k map[string]any) {
	var ps, json6902 []types.Patch
	var sm []string
	for i := range g.r.IntN(4) {
		p, isJSON := g.patch()
		text := p.Patch
		if g.chance(0.35) {
			p.Path = fmt.Sprintf("patch-%d.yaml", i)
			p.Patch = ""
			g.files[path.Join(rel, p.Path)] = text
		}
		switch {
		case !isJSON && p.Target == nil && g.chance(0.15):
			if p.Path != "" {
				sm = append(sm, p.Path)
			} else {
				sm = append(sm, text)
			}
		case isJSON && p.Target != nil && g.chance(0.15):
			if p.Target.Name == "" && g.chance(0.9) { // which kustomize refuses here
				p.Target.Name = g.name(g.pick("TenantCluster", "Team"))
			}
			json6902 = append(json6902, p)
		default:
			ps = append(ps, p)
		}
	}
	if ps != nil {
		k["patches"] = ps
	}
	if sm != nil {
		k["patchesStrategicMerge"] = sm
	}
	if json6902 != nil {
		k["patchesJson6902"] = json6902
	}
}

// patch is one patch, strategic merge or JSON 6902 (isJSON), with or without a target.
func (g *treeGen) patch() (p types.Patch, isJSON bool) {
	kind := g.pick("TenantCluster", "TenantCluster", "Team")
	isJSON = g.chance(0.45)
	if isJSON || g.chance(0.5) {
		p.Target = g.target(kind)
	}
	if isJSON {
		p.Patch = g.jsonPatch(kind)
		if g.chance(0.03) {
			p.Target = nil // kustomize refuses a JSON patch without a target
		}
		return p, true
	}
	p.Patch = g.smPatch(kind)
	if p.Target == nil && g.chance(0.05) {
		p.Patch += "---\n" + g.smPatch(kind) // several patches in one text
	}
	return p, false
}

// target selects by any of kustomize's fields, exactly or by regular expression.
func (g *treeGen) target(kind string) *types.Selector {
	s := &types.Selector{}
	if g.chance(0.7) {
		if kind == "Team" {
			s.Kind = g.pick("Team", "Team", "T.*m", "Team|Nothing", "team")
		} else {
			s.Kind = g.pick("TenantCluster", "TenantCluster", "Tenant.*", ".*Cluster", "TenantCluster|Team", "Tenant")
		}
	}
	if g.chance(0.6) {
		s.Name = g.pick(g.name(kind), g.name(kind), "c.*", "c[12]", "c1|cx", "prod-.*", ".*", "team-.*", "c", "C1", "c1.*")
	}
	if g.chance(0.2) {
		s.Namespace = g.pick("team-a", "team-.*", "team-b|team-c", "default", "team")
	}
	if g.chance(0.15) {
		s.LabelSelector = g.pick("butler.butlerlabs.dev/environment=prod", "example.com/tier in (tier-1,tier-2)",
			"!example.com/none", "patched=smp", "gen")
	}
	if g.chance(0.08) {
		s.AnnotationSelector = g.pick("butler.butlerlabs.dev/owner", "example.com/tier!=x", "gen-note=x")
	}
	if g.chance(0.1) {
		s.Group = g.pick("butler.butlerlabs.dev", `butler\..*`, "apps", "")
	}
	if g.chance(0.05) {
		s.Version = g.pick("v1alpha1", "v1.*", "v1")
	}
	return s
}

// name is the name of an object of the tree of that kind, most of the time.
func (g *treeGen) name(kind string) string { return g.object(kind).name }

// object is an object of the tree of that kind, most of the time; else a made-up one.
func (g *treeGen) object(kind string) genObj {
	var objs []genObj
	for _, o := range g.objs[g.scope:] {
		if o.kind == kind {
			objs = append(objs, o)
		}
	}
	if len(objs) == 0 || g.chance(0.1) {
		o := genObj{kind: kind, name: g.pick(append(clusterNames, teamNames...)...)}
		if kind == "TenantCluster" {
			o.namespace = g.pick(teamNames...)
		}
		return o
	}
	return objs[g.r.IntN(len(objs))]
}

// smPatch is a strategic merge patch of an object of that kind: a field, labels, or
// $patch: delete.
func (g *treeGen) smPatch(kind string) string {
	o := g.object(kind)
	meta := map[string]any{"name": o.name}
	if o.namespace != "" && g.chance(0.95) { // else it names an object of no namespace
		meta["namespace"] = o.namespace
	}
	body := map[string]any{"apiVersion": "butler.butlerlabs.dev/v1alpha1", "kind": kind, "metadata": meta}
	switch n := g.r.IntN(10); {
	case n == 0:
		body["$patch"] = "delete"
	case n < 3:
		meta["labels"] = map[string]any{"patched": "smp"}
	case n < 4:
		meta["annotations"] = map[string]any{"example.com/note": fmt.Sprint("smp-", g.r.IntN(3))}
	case kind == "Team":
		body["spec"] = map[string]any{"description": fmt.Sprint("patched ", g.r.IntN(9))}
	case n < 8:
		body["spec"] = map[string]any{"workers": map[string]any{"replicas": 1 + g.r.IntN(12)}}
	default:
		body["spec"] = map[string]any{"kubernetesVersion": "v1.32.1", "timeServers": []string{"t9.example.com"}}
	}
	return marshal(body)
}

// jsonPatch is a JSON 6902 patch of one or two operations for an object of that kind,
// some of which fail on some objects (a missing path, a failed test).
func (g *treeGen) jsonPatch(kind string) string {
	ops := map[string][]map[string]any{
		"TenantCluster": {
			{"op": "replace", "path": "/spec/workers/replicas", "value": 1 + g.r.IntN(12)},
			{"op": "add", "path": "/metadata/labels/patched", "value": "json"},
			{"op": "add", "path": "/spec/timeServers/-", "value": "t4.example.com"},
			{"op": "add", "path": "/metadata/annotations/example.com~1note", "value": "json"},
			{"op": "remove", "path": "/metadata/labels/example.com~1tier"},
			{"op": "test", "path": "/spec/workers/replicas", "value": 2},
			{"op": "copy", "from": "/metadata/name", "path": "/metadata/labels/copied"},
			{"op": "remove", "path": "/spec/timeServers/0"},
		},
		"Team": {
			{"op": "replace", "path": "/spec/description", "value": "json"},
			{"op": "add", "path": "/spec/resourceLimits/maxNodesPerCluster", "value": 4},
			{"op": "add", "path": "/metadata/labels", "value": map[string]any{"patched": "json"}},
			{"op": "add", "path": "/metadata/annotations/example.com~1note", "value": "json"},
		},
	}[kind]
	// Mostly operations that apply to any object of the kind; now and then one that may not.
	safe := map[string]int{"TenantCluster": 3, "Team": 2}[kind]
	var out []map[string]any
	for range 1 + g.r.IntN(2) {
		if g.chance(0.7) {
			out = append(out, ops[g.r.IntN(safe)])
		} else {
			out = append(out, ops[g.r.IntN(len(ops))])
		}
	}
	if g.chance(0.2) {
		data, err := jsonMarshal(out)
		if err != nil {
			panic(err)
		}
		return data
	}
	return marshal(out)
}

// transformers gives a kustomization, now and then, what the direct render does not do:
// a namespace, name affixes, labels, annotations, replacements.
func (g *treeGen) transformers(k map[string]any) {
	if g.chance(0.06) {
		k["namespace"] = g.pick("team-b", "team-c")
	}
	if g.chance(0.05) {
		k["namePrefix"] = "p-"
	}
	if g.chance(0.03) {
		k["nameSuffix"] = "-s"
	}
	if g.chance(0.05) {
		k["labels"] = []map[string]any{{"pairs": map[string]string{"gen": "x"}}}
	}
	if g.chance(0.05) {
		k["commonAnnotations"] = map[string]string{"gen-note": "x"}
	}
	if g.chance(0.05) {
		k["replacements"] = []map[string]any{{
			"source":  map[string]any{"kind": "Team", "fieldPath": "spec.description"},
			"targets": []map[string]any{{"select": map[string]any{"kind": "TenantCluster"}, "fieldPaths": []string{"metadata.annotations.team-desc"}, "options": map[string]any{"create": true}}},
		}}
	}
}

func jsonMarshal(v any) (string, error) {
	data, err := json.Marshal(v)
	return string(data), err
}
