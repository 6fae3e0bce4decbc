package v1alpha1_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// repoRoot is the directory holding the project's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/butlerdotdev/butler-toolkit\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod of github.com/butlerdotdev/butler-toolkit not found above the test directory")
		}
		dir = parent
	}
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// Intentional differences from the live CRDs, each with its reason.
var allowedDiffs = map[string]string{
	// docs/rules.md §1.1: pc is never used, it is PriorityClass's short name.
	"butler.butlerlabs.dev_providerconfigs.yaml: spec.names.shortNames: live=[pc] ours=<none>": "pc clashes with PriorityClass",
}

// TestCRDsMatchLive compares the generated CRDs with the reference copies of Butler's own
// under testdata/crds (see its README for their source), one for every kind the tools read
// or write, field by field: every validation keyword (type, enum, pattern, minimum,
// maximum, required, default, format, lengths, list types, CEL rules and their messages,
// ...), every property, and the names, scope and versions. Descriptions are not compared.
// A kind with no generated CRD is a difference too.
func TestCRDsMatchLive(t *testing.T) {
	root := repoRoot(t)
	live := filepath.Join(root, "testdata", "crds")
	files, _ := filepath.Glob(filepath.Join(live, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no reference CRDs in %s", live)
	}
	var diffs []string
	for _, f := range files {
		name := filepath.Base(f)
		ours := filepath.Join(root, "config", "crd", name)
		if _, err := os.Stat(ours); err != nil {
			diffs = append(diffs, name+": not generated")
			continue
		}
		for _, d := range crdDiff(readYAML(t, f), readYAML(t, ours)) {
			if _, ok := allowedDiffs[name+": "+d]; !ok {
				diffs = append(diffs, name+": "+d)
			}
		}
	}
	if len(diffs) > 0 {
		t.Errorf("generated CRDs differ from the live ones in %d places:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

func get(m any, path ...string) any {
	for _, p := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[p]
	}
	return m
}

func show(v any) string {
	if v == nil {
		return "<none>"
	}
	return fmt.Sprint(v)
}

// crdDiff lists every difference between two CRDs that changes what they accept.
func crdDiff(live, ours map[string]any) []string {
	var out []string
	for _, p := range [][]string{
		{"spec", "group"}, {"spec", "scope"},
		{"spec", "names", "kind"}, {"spec", "names", "listKind"}, {"spec", "names", "plural"},
		{"spec", "names", "singular"}, {"spec", "names", "shortNames"}, {"spec", "names", "categories"},
	} {
		if a, b := get(live, p...), get(ours, p...); !reflect.DeepEqual(a, b) {
			out = append(out, fmt.Sprintf("%s: live=%s ours=%s", strings.Join(p, "."), show(a), show(b)))
		}
	}
	versions := func(m map[string]any) map[string]map[string]any {
		vs := map[string]map[string]any{}
		list, _ := get(m, "spec", "versions").([]any)
		for _, v := range list {
			if vm, ok := v.(map[string]any); ok {
				vs[fmt.Sprint(vm["name"])] = vm
			}
		}
		return vs
	}
	lv, ov := versions(live), versions(ours)
	for name, l := range lv {
		o, ok := ov[name]
		if !ok {
			out = append(out, "version "+name+": missing")
			continue
		}
		for _, k := range []string{"served", "storage", "subresources"} {
			if !reflect.DeepEqual(l[k], o[k]) {
				out = append(out, fmt.Sprintf("version %s: %s: live=%s ours=%s", name, k, show(l[k]), show(o[k])))
			}
		}
		out = append(out, schemaDiff("openAPIV3Schema",
			get(l, "schema", "openAPIV3Schema"), get(o, "schema", "openAPIV3Schema"))...)
	}
	for name := range ov {
		if _, ok := lv[name]; !ok {
			out = append(out, "version "+name+": not in the live CRD")
		}
	}
	sort.Strings(out)
	return out
}

// Keys that hold sub-schemas, compared by recursion.
var nested = map[string]bool{"properties": true, "items": true, "additionalProperties": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true}

// schemaDiff compares two schema nodes keyword by keyword.
func schemaDiff(path string, a, b any) []string {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	var out []string
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if k == "description" {
			continue
		}
		av, bv := am[k], bm[k]
		switch {
		case k == "properties":
			ap, _ := av.(map[string]any)
			bp, _ := bv.(map[string]any)
			names := map[string]bool{}
			for n := range ap {
				names[n] = true
			}
			for n := range bp {
				names[n] = true
			}
			list := make([]string, 0, len(names))
			for n := range names {
				list = append(list, n)
			}
			sort.Strings(list)
			for _, n := range list {
				_, inA := ap[n]
				_, inB := bp[n]
				switch {
				case !inB:
					out = append(out, path+"."+n+": missing in ours")
				case !inA:
					out = append(out, path+"."+n+": not in the live CRD")
				default:
					out = append(out, schemaDiff(path+"."+n, ap[n], bp[n])...)
				}
			}
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			al, _ := av.([]any)
			bl, _ := bv.([]any)
			if len(al) != len(bl) {
				out = append(out, fmt.Sprintf("%s: %s: live has %d entries, ours %d", path, k, len(al), len(bl)))
				continue
			}
			for i := range al {
				out = append(out, schemaDiff(fmt.Sprintf("%s.%s[%d]", path, k, i), al[i], bl[i])...)
			}
		case nested[k]:
			_, aSchema := av.(map[string]any)
			_, bSchema := bv.(map[string]any)
			if aSchema && bSchema {
				out = append(out, schemaDiff(path+"."+k, av, bv)...)
			} else if !reflect.DeepEqual(av, bv) {
				out = append(out, fmt.Sprintf("%s: %s: live=%s ours=%s", path, k, show(av), show(bv)))
			}
		case k == "enum" || k == "required":
			if !reflect.DeepEqual(asSet(av), asSet(bv)) {
				out = append(out, fmt.Sprintf("%s: %s: live=%s ours=%s", path, k, show(av), show(bv)))
			}
		default:
			if !reflect.DeepEqual(av, bv) {
				out = append(out, fmt.Sprintf("%s: %s: live=%s ours=%s", path, k, show(av), show(bv)))
			}
		}
	}
	return out
}

func asSet(v any) []string {
	l, _ := v.([]any)
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = fmt.Sprintf("%T:%v", e, e)
	}
	sort.Strings(s)
	return s
}

// TestSchemaDiffCatchesDifferences proves the comparison sees each kind of difference.
func TestSchemaDiffCatchesDifferences(t *testing.T) {
	base := `type: object
required: [a]
properties:
  a: {type: integer, format: int32, minimum: 0, maximum: 9, default: 1}
  b: {type: string, pattern: "^x$", enum: [p, q], maxLength: 3}
  c: {type: array, items: {type: object, properties: {n: {type: string}}}}
`
	parse := func(s string) any {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if d := schemaDiff("s", parse(base), parse(strings.Replace(base, "enum: [p, q]", "enum: [q, p]", 1))); len(d) != 0 {
		t.Errorf("enum order is not a difference: %v", d)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"type: integer", "type: number", "s.a: type: live=integer ours=number"},
		{"format: int32", "format: int64", "s.a: format: live=int32 ours=int64"},
		{"minimum: 0", "minimum: 1", "s.a: minimum: live=0 ours=1"},
		{"maximum: 9, ", "", "s.a: maximum: live=9 ours=<none>"},
		{"default: 1", "default: 2", "s.a: default: live=1 ours=2"},
		{`pattern: "^x$"`, `pattern: "^y$"`, "s.b: pattern: live=^x$ ours=^y$"},
		{"enum: [p, q]", "enum: [p]", "s.b: enum: live=[p q] ours=[p]"},
		{"maxLength: 3", "maxLength: 4", "s.b: maxLength: live=3 ours=4"},
		{"required: [a]", "required: [a, b]", "s: required: live=[a] ours=[a b]"},
		{"n: {type: string}", "m: {type: string}", "s.c.items.m: not in the live CRD"},
		{"n: {type: string}", "n: {type: string}, m: {type: string}", "s.c.items.m: not in the live CRD"},
	} {
		changed := strings.Replace(base, tc.from, tc.to, 1)
		d := schemaDiff("s", parse(base), parse(changed))
		if len(d) == 0 || !strings.Contains(strings.Join(d, "\n"), tc.want) {
			t.Errorf("%s -> %s: got %v, want %q", tc.from, tc.to, d, tc.want)
		}
	}
	if d := schemaDiff("s", parse(strings.Replace(base, "n: {type: string}", "n: {type: string}, m: {type: string}", 1)), parse(base)); len(d) != 1 || d[0] != "s.c.items.m: missing in ours" {
		t.Errorf("missing property: %v", d)
	}
}

var pinnedVersion = regexp.MustCompile(`sigs\.k8s\.io/controller-tools (v\S+)`)

// controllerGen finds a controller-gen of the version pinned in hack/tools: $CONTROLLER_GEN,
// else one built from hack/tools without network access, else one on PATH that reports
// the pinned version. The empty string means none is available.
func controllerGen(t *testing.T, root string) (string, string) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(root, "hack", "tools", "go.mod"))
	if err != nil {
		return "", "hack/tools/go.mod not found"
	}
	m := pinnedVersion.FindSubmatch(mod)
	if m == nil {
		return "", "controller-tools is not pinned in hack/tools/go.mod"
	}
	version := string(m[1])
	if p := os.Getenv("CONTROLLER_GEN"); p != "" {
		return p, ""
	}
	// go test puts its own toolchain's bin first on PATH, so this is the go running the test.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", "no go command on PATH"
	}
	bin := filepath.Join(t.TempDir(), "controller-gen")
	build := exec.Command(goBin, "build", "-o", bin, "sigs.k8s.io/controller-tools/cmd/controller-gen")
	build.Dir = filepath.Join(root, "hack", "tools")
	// Offline and read-only: a fresh machine without the modules skips instead of
	// downloading or touching go.sum.
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOPROXY=off")
	out, err := build.CombinedOutput()
	if err == nil {
		return bin, ""
	}
	if p, err := exec.LookPath("controller-gen"); err == nil {
		if v, err := exec.Command(p, "--version").Output(); err == nil && strings.Contains(string(v), version) {
			return p, ""
		}
	}
	return "", fmt.Sprintf("controller-gen %s is not available (set CONTROLLER_GEN, or download the hack/tools modules): %s", version, bytes.TrimSpace(out))
}

// TestCRDsAreCurrent regenerates the CRDs and deepcopy code into a temporary directory
// and checks that the checked-in files are what the generator writes today.
func TestCRDsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen")
	}
	root := repoRoot(t)
	gen, why := controllerGen(t, root)
	if gen == "" {
		t.Skip(why)
	}
	tmp := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gen, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("controller-gen %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("crd", "paths=./pkg/apis/...", "output:crd:artifacts:config="+filepath.Join(tmp, "crd"))
	compareDir(t, filepath.Join(root, "config", "crd"), filepath.Join(tmp, "crd"), "*.yaml")
	for _, pkg := range []string{"butler/v1alpha1", "steward/v1alpha1"} {
		out := filepath.Join(tmp, "object", pkg)
		run("object", "paths=./pkg/apis/"+pkg, "output:object:dir="+out)
		compareDir(t, filepath.Join(root, "pkg", "apis", pkg), out, "zz_generated.*.go")
	}
}

const regenerate = "controller-gen object paths=./pkg/apis/... && controller-gen crd paths=./pkg/apis/... output:crd:artifacts:config=config/crd, with controller-gen built from hack/tools"

func compareDir(t *testing.T, checkedIn, fresh, pattern string) {
	t.Helper()
	have, _ := filepath.Glob(filepath.Join(checkedIn, pattern))
	want, _ := filepath.Glob(filepath.Join(fresh, pattern))
	names := map[string]bool{}
	for _, f := range append(have, want...) {
		names[filepath.Base(f)] = true
	}
	for n := range names {
		a, errA := os.ReadFile(filepath.Join(checkedIn, n))
		b, errB := os.ReadFile(filepath.Join(fresh, n))
		switch {
		case errB != nil:
			t.Errorf("%s: not generated any more; delete it", filepath.Join(checkedIn, n))
		case errA != nil:
			t.Errorf("%s: missing; regenerate (%s)", filepath.Join(checkedIn, n), regenerate)
		case !bytes.Equal(a, b):
			t.Errorf("%s is stale; regenerate (%s)", filepath.Join(checkedIn, n), regenerate)
		}
	}
}
