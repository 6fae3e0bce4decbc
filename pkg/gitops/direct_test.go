package gitops

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"k8s.io/apimachinery/pkg/runtime"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// renderBothWays loads the tree at dir as kustomize builds it as a whole, and with the
// builds direct takes over; the two must be the same, object for object (origins and
// lines included), or fail alike.
func renderBothWays(t *testing.T, dir string) (direct *buildStats, err error) {
	t.Helper()
	whole, wholeErr := Load([]string{dir}, nil, Options{kustomizeOnly: true, stats: &buildStats{}})
	stats := &buildStats{}
	got, gotErr := Load([]string{dir}, nil, Options{stats: stats})
	if (wholeErr == nil) != (gotErr == nil) || (gotErr != nil && gotErr.Error() != wholeErr.Error()) {
		t.Fatalf("errors differ:\nkustomize: %v\ndirect:    %v", wholeErr, gotErr)
	}
	if gotErr != nil {
		return stats, gotErr
	}
	if len(got.Targets) != len(whole.Targets) {
		t.Fatalf("targets differ: %d direct, %d kustomize", len(got.Targets), len(whole.Targets))
	}
	for i := range got.Targets {
		g, w := got.Targets[i], whole.Targets[i]
		ga, wa := allOf(t, g.Set), allOf(t, w.Set)
		if g.Name != w.Name || len(ga) != len(wa) {
			t.Fatalf("target %d: direct %q with %d objects, kustomize %q with %d", i, g.Name, len(ga), w.Name, len(wa))
		}
		for j := range ga {
			if a, b := fingerprint(t, ga[j]), fingerprint(t, wa[j]); a != b {
				t.Errorf("target %q object %d differs:\ndirect:\n%s\nkustomize:\n%s", g.Name, j, a, b)
			}
		}
	}
	same := func(what string, a, b []manifest.Object) {
		if len(a) != len(b) {
			t.Errorf("%s: %d direct, %d kustomize", what, len(a), len(b))
			return
		}
		for j := range a {
			if x, y := fingerprint(t, a[j]), fingerprint(t, b[j]); x != y {
				t.Errorf("%s %d differs:\ndirect:\n%s\nkustomize:\n%s", what, j, x, y)
			}
		}
	}
	same("unreached", got.Unreached, whole.Unreached)
	same("unknown", got.Unknown, whole.Unknown)
	same("raw", allOf(t, got.Raw), allOf(t, whole.Raw))
	if !reflect.DeepEqual(got.Recognised, whole.Recognised) || !reflect.DeepEqual(got.NotRendered, whole.NotRendered) {
		t.Errorf("counts differ: direct %v %v, kustomize %v %v", got.Recognised, got.NotRendered, whole.Recognised, whole.NotRendered)
	}
	return stats, nil
}

// TestDirectRender renders each tree of testdata/render both ways; its "want" file says
// whether the shortcut must be taken (direct), must not be (kustomize), or the load fails.
func TestDirectRender(t *testing.T) {
	archives, _ := filepath.Glob("testdata/render/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no trees in testdata/render")
	}
	for _, a := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(a), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(a)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			want := ""
			for _, f := range ar.Files {
				if f.Name == "want" {
					want = strings.TrimSpace(string(f.Data))
					continue
				}
				writeFile(t, filepath.Join(dir, f.Name), f.Data)
			}
			stats, err := renderBothWays(t, dir)
			switch want {
			case "error":
				if err == nil {
					t.Fatal("the tree loaded; want an error")
				}
			case "direct":
				if err != nil {
					t.Fatal(err)
				}
				if stats.direct == 0 || stats.kustomize != 0 {
					t.Errorf("builds: %d direct, %d by kustomize as a whole; want every one direct", stats.direct, stats.kustomize)
				}
			case "kustomize":
				if err != nil {
					t.Fatal(err)
				}
				if stats.kustomize == 0 {
					t.Errorf("builds: %d direct, none by kustomize as a whole; this tree needs it", stats.direct)
				}
			default:
				t.Fatalf("want %q: not direct, kustomize or error", want)
			}
		})
	}
}

// TestDirectRenderExamples renders the Flux and Argo CD trees of the check's scripts both
// ways: examples/flux as it is and as the scripts change it.
func TestDirectRenderExamples(t *testing.T) {
	scripts := filepath.Join("..", "..", "testdata", "script")
	cases := []struct {
		name, script, tree string
		copies             map[string]string // archive file → place in the tree
	}{
		{name: "flux", tree: "flux"},
		{name: "flux_patch", script: "ctl_check_flux_patch.txtar", tree: "flux", copies: map[string]string{
			"pr/infrastructure.yaml": "clusters/mgmt-east/infrastructure.yaml", "pr/checkout-size.yaml": "apps/prod/payments/checkout-size.yaml"}},
		{name: "flux_substitute", script: "ctl_check_flux_substitute.txtar", tree: "flux", copies: map[string]string{
			"west/apps.yaml": "clusters/mgmt-west/apps.yaml", "west/vars.yaml": "clusters/mgmt-west/vars.yaml"}},
		{name: "flux_targets", script: "ctl_check_flux_targets.txtar", tree: "flux", copies: map[string]string{
			"extra/checkout-2.yaml": "apps/dev/checkout-2.yaml"}},
		{name: "argocd", script: "ctl_check_argocd.txtar", tree: "repo", copies: map[string]string{
			"extra/web-2.yaml": "apps/payments/web-2.yaml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), c.tree)
			if c.tree == "flux" {
				copyTree(t, filepath.Join("..", "..", "examples", "flux"), dir)
			}
			if c.script != "" {
				ar, err := txtar.ParseFile(filepath.Join(scripts, c.script))
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range ar.Files {
					if to, ok := c.copies[f.Name]; ok {
						writeFile(t, filepath.Join(dir, to), f.Data)
					} else if r, ok := strings.CutPrefix(f.Name, c.tree+"/"); ok {
						writeFile(t, filepath.Join(dir, r), f.Data)
					}
				}
			}
			if c.name == "flux_targets" {
				k := filepath.Join(dir, "apps", "dev", "kustomization.yaml")
				data, err := os.ReadFile(k)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, k, []byte(strings.Replace(string(data), "  - ../base/payments\n", "  - ../base/payments\n  - checkout-2.yaml\n", 1)))
			}
			stats, err := renderBothWays(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			if stats.direct == 0 {
				t.Errorf("builds: none direct, %d by kustomize as a whole", stats.kustomize)
			}
		})
	}
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(from, p)
		writeFile(t, filepath.Join(to, r), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fingerprint is what a finding can read of an object: where it was written, its id, its
// content, the fields not judged, and the file and line of every field.
func fingerprint(t *testing.T, o manifest.Object) string {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.Obj)
	if err != nil {
		t.Fatal(err)
	}
	content, err := sigsyaml.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s/%s\n%s%v\n", o.Source, o.APIVersion, o.Kind, o.Namespace, o.Name, content, o.NotJudged)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		file, line := o.Position(path)
		fmt.Fprintf(&b, "%s: %s:%d\n", path, file, line)
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if strings.ContainsAny(k, ".[]/") {
					p = path + "[" + k + "]"
				}
				walk(p, v[k])
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", u)
	return b.String()
}

// allOf is every object of a set, its clusters whole, in the order read.
func allOf(t *testing.T, set *manifest.Set) []manifest.Object {
	t.Helper()
	all, err := set.All()
	if err != nil {
		t.Fatal(err)
	}
	return all
}
