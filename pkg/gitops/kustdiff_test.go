package gitops

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

// TestRenderEqualsKustomize is the differential test of the render: random kustomization
// trees of Teams and TenantClusters, with random patches (strategic merge and JSON 6902,
// inline and in files, under patches and the deprecated fields; targets by exact and
// regular-expression names, kinds, namespaces, groups, label and annotation selectors;
// $patch: delete), nested kustomizations, components, transformers and replacements,
// sometimes applied by a Flux Kustomization with patches of its own. Each is rendered as
// the check renders it (Load, direct where it may) and by kustomize's own build; the two
// must be the same object for object, in order, or both fail.
//
// BUTLER_KUSTDIFF_TREES and BUTLER_KUSTDIFF_SEED run other trees; BUTLER_KUSTDIFF_TREE=i
// only tree i of the seed (a failure names both); BUTLER_KUSTDIFF_WHY=1 logs why kustomize
// refused the trees it refused.
func TestRenderEqualsKustomize(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	if s := os.Getenv("BUTLER_KUSTDIFF_TREES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(1)
	if s := os.Getenv("BUTLER_KUSTDIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	// kustomize writes its warnings of deprecated fields (patchesStrategicMerge,
	// patchesJson6902) to the process's standard error: not the test's output.
	if null, err := os.Open(os.DevNull); err == nil {
		stderr := os.Stderr
		os.Stderr = null
		defer func() { os.Stderr = stderr; null.Close() }()
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // kustomize allocates much and keeps little
	only := os.Getenv("BUTLER_KUSTDIFF_TREE")         // one tree of the seed, to look at
	base := t.TempDir()
	// Thousands of small trees are mostly file creation: in memory where the system has it
	// (the kustomize builds' own directories too).
	if shm, err := os.MkdirTemp("/dev/shm", "butler-kustdiff-"); err == nil {
		defer os.RemoveAll(shm)
		base = shm
		t.Setenv("TMPDIR", shm)
	}
	results := make([]diffResult, n)
	stats := make([]buildStats, 2)
	var wg sync.WaitGroup
	for w := range stats { // two trees at a time
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += len(stats) {
				if only != "" && only != strconv.Itoa(i) {
					continue
				}
				results[i] = renderTree(base, seed, i, &stats[w])
			}
		}()
	}
	wg.Wait()
	failed, disagree := 0, 0
	for i, r := range results {
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.refused != nil {
			failed++
			if os.Getenv("BUTLER_KUSTDIFF_WHY") != "" {
				t.Log(r.refused)
			}
		}
		if r.diff != "" {
			if disagree++; disagree <= 3 {
				t.Errorf("tree %d (BUTLER_KUSTDIFF_SEED=%d) renders differently: %s\n%s", i, seed, r.diff, r.tree)
			}
		}
	}
	direct, whole := stats[0].direct+stats[1].direct, stats[0].kustomize+stats[1].kustomize
	t.Logf("%d trees (%d refused by kustomize): %d builds direct, %d by kustomize as a whole", n, failed, direct, whole)
	if disagree > 0 {
		t.Errorf("%d of %d trees render differently", disagree, n)
	}
	if only == "" && (direct == 0 || whole == 0) {
		t.Errorf("the trees took one way only: %d direct, %d by kustomize", direct, whole)
	}
}

// diffResult is what one tree of the differential test found.
type diffResult struct {
	refused    error  // kustomize's (and so the check's) refusal
	diff, tree string // how the renders differ, and the tree, when they do
	err        error  // the test's own
}

// renderTree generates tree i of the seed, writes it below base and renders it both ways.
func renderTree(base string, seed uint64, i int, stats *buildStats) diffResult {
	g := &treeGen{r: rand.New(rand.NewPCG(seed, uint64(i))), files: map[string]string{}, ids: map[string]bool{}}
	g.tree()
	dir := filepath.Join(base, strconv.Itoa(i))
	for name, text := range g.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return diffResult{err: err}
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return diffResult{err: err}
		}
	}
	want, wantErr := kustomizeRender(dir, g.flux)
	got, gotErr := checkRender(dir, stats)
	res := diffResult{refused: wantErr, diff: disagreement(want, wantErr, got, gotErr)}
	if res.diff != "" {
		res.tree = g.dump()
	}
	res.err = os.RemoveAll(dir)
	return res
}

// disagreement says how two renders differ, "" when they do not.
func disagreement(want []string, wantErr error, got []string, gotErr error) string {
	switch {
	case wantErr != nil && gotErr != nil:
		return ""
	case wantErr != nil:
		return fmt.Sprintf("kustomize refuses it (%v), the check renders %d objects", wantErr, len(got))
	case gotErr != nil:
		return fmt.Sprintf("kustomize renders %d objects, the check refuses it: %v", len(want), gotErr)
	}
	var b strings.Builder
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "object %d (- kustomize, + check):\n%s", i, lineDiff(w, g))
		}
	}
	return b.String()
}

// checkRender is what the check reads of the tree: every target's objects, in order.
func checkRender(dir string, stats *buildStats) ([]string, error) {
	tree, err := Load([]string{dir}, nil, Options{stats: stats})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, tg := range tree.Targets {
		all, err := tg.Set.All()
		if err != nil {
			return nil, err
		}
		for _, o := range all {
			s, err := objectText(o)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// kustomizeRender is kustomize's own build of the tree's app, through the Flux
// Kustomization's patches when it has one, each object decoded as the check decodes it.
func kustomizeRender(dir string, flux []types.Patch) ([]string, error) {
	fs := filesys.MakeFsOnDisk()
	build := filepath.Join(dir, "app")
	if flux != nil {
		// What Flux builds: the app with the Kustomization's patches over it, kept out of
		// the tree the check reads.
		wrap := dir + "-flux"
		k := types.Kustomization{Resources: []string{filepath.Join("..", filepath.Base(dir), "app")}, Patches: flux}
		data, err := sigsyaml.Marshal(k)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(wrap, 0o755); err != nil {
			return nil, err
		}
		defer os.RemoveAll(wrap)
		if err := os.WriteFile(filepath.Join(wrap, "kustomization.yaml"), data, 0o644); err != nil {
			return nil, err
		}
		build = wrap
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(fs, build)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range m.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			return nil, err
		}
		set, err := manifest.LoadFiles([]manifest.File{{Name: "rendered.yaml", Data: data}}, manifest.Options{})
		if err != nil {
			return nil, err // the check must refuse what it cannot decode
		}
		all, err := set.All()
		if err != nil || len(all) != 1 {
			return nil, errors.New("one resource decoded as several objects")
		}
		s, err := objectText(all[0])
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// objectText is an object's id and content.
func objectText(o manifest.Object) (string, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.Obj)
	if err != nil {
		return "", err
	}
	data, err := sigsyaml.Marshal(u)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %s/%s\n%s", o.APIVersion, o.Kind, o.Namespace, o.Name, data), nil
}

// treeGen generates one tree: app/ (a kustomization, its bases and components), and
// sometimes a Flux Kustomization applying it.
type treeGen struct {
	r     *rand.Rand
	files map[string]string // by slash path below the tree
	ids   map[string]bool
	objs  []genObj
	scope int           // the objects a kustomization's patches name: objs[scope:]
	flux  []types.Patch // the Flux Kustomization's patches; nil without one
}

type genObj struct{ kind, namespace, name string }

var (
	clusterNames = []string{"c1", "c2", "c12", "cx", "prod-a", "web"}
	teamNames    = []string{"team-a", "team-b"}
)

func (g *treeGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *treeGen) chance(p float64) bool    { return g.r.Float64() < p }

func (g *treeGen) tree() {
	g.kustomization("app", 2, false, 0)
	g.scope = 0
	if !g.chance(0.25) {
		return
	}
	g.flux = []types.Patch{}
	for range g.r.IntN(3) {
		p, _ := g.patch()
		g.flux = append(g.flux, p)
	}
	spec := map[string]any{"interval": "10m", "path": "./app", "prune": true,
		"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}}
	if len(g.flux) > 0 {
		spec["patches"] = g.flux
	}
	g.files["clusters/mgmt/sync.yaml"] = marshal(map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind": "Kustomization", "metadata": map[string]any{"name": "apps", "namespace": "flux-system"}, "spec": spec})
}

// dump is the tree's files, for a failure's message.
func (g *treeGen) dump() string {
	names := make([]string, 0, len(g.files))
	for n := range g.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		text := g.files[n]
		if strings.HasPrefix(path.Base(n), "objs-") { // the generator's objects: their ids
			var ids []string
			for _, doc := range strings.Split(text, "---\n") {
				var m struct {
					Kind     string
					Metadata struct{ Name, Namespace string }
				}
				_ = sigsyaml.Unmarshal([]byte(doc), &m)
				ids = append(ids, m.Kind+" "+m.Metadata.Namespace+"/"+m.Metadata.Name)
			}
			text = "# " + strings.Join(ids, ", ") + "\n"
		}
		fmt.Fprintf(&b, "-- %s --\n%s", n, text)
	}
	return b.String()
}

func marshal(v any) string {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// kustomization writes a kustomization (or a component) at rel, with what it lists.
// Its patches name objects of its own resources (from scope on in g.objs), mostly.
func (g *treeGen) kustomization(rel string, depth int, component bool, scope int) {
	k := map[string]any{}
	switch {
	case component:
		k["apiVersion"], k["kind"] = types.ComponentVersion, types.ComponentKind
	case g.chance(0.5):
		k["apiVersion"], k["kind"] = types.KustomizationVersion, types.KustomizationKind
	}
	var res []string
	if depth > 0 && g.chance(0.4) {
		g.kustomization(path.Join(rel, "base"), depth-1, false, len(g.objs))
		res = append(res, "base")
	}
	for i := range 1 + g.r.IntN(2) {
		name := fmt.Sprintf("objs-%d.yaml", i)
		g.files[path.Join(rel, name)] = g.objects(1 + g.r.IntN(3))
		res = append(res, name)
	}
	g.r.Shuffle(len(res), func(i, j int) { res[i], res[j] = res[j], res[i] })
	k["resources"] = res
	if depth > 0 && !component && g.chance(0.15) {
		g.kustomization(path.Join(rel, "comp"), 0, true, scope)
		k["components"] = []string{"comp"}
	}
	g.scope = scope
	g.patches(rel, k)
	g.transformers(k)
	g.files[path.Join(rel, "kustomization.yaml")] = marshal(k)
}

// objects is a file of n documents: Teams and TenantClusters of the generator's sizes.
func (g *treeGen) objects(n int) string {
	var docs []string
	for range n {
		o := genObj{kind: "TenantCluster", namespace: g.pick(teamNames...), name: g.pick(clusterNames...)}
		if g.chance(0.2) {
			o = genObj{kind: "Team", name: g.pick(append(teamNames, "team-c")...)}
		}
		key := o.kind + "/" + o.namespace + "/" + o.name
		if g.ids[key] && !g.chance(0.01) { // now and then a duplicate, which kustomize refuses
			continue
		}
		g.ids[key] = true
		g.objs = append(g.objs, o)
		docs = append(docs, g.doc(o))
	}
	if len(docs) == 0 { // every name taken: a Team of its own
		name := "team-" + strconv.Itoa(len(g.objs)+10)
		g.ids["Team//"+name] = true
		g.objs = append(g.objs, genObj{kind: "Team", name: name})
		docs = append(docs, g.doc(genObj{kind: "Team", name: name}))
	}
	return strings.Join(docs, "---\n")
}

// lineDiff is the lines of a and b that the other lacks, with the first line of each.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out strings.Builder
	fa, _, _ := strings.Cut(a, "\n")
	fb, _, _ := strings.Cut(b, "\n")
	fmt.Fprintf(&out, "  - %s\n  + %s\n", fa, fb)
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			fmt.Fprintf(&out, "  - %s\n", l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			fmt.Fprintf(&out, "  + %s\n", l)
		}
	}
	return out.String()
}

// doc is an object's manifest: one in ten as the loader benchmark's generator writes it
// (about 4 KB), the others with only what a patch or selector of the test reads, so that
// thousands of trees build in seconds.
func (g *treeGen) doc(o genObj) string {
	if g.chance(0.1) {
		if o.kind == "Team" {
			return manifesttest.Team(o.name, 3)
		}
		return manifesttest.Cluster(o.namespace, o.name, g.r.IntN(12))
	}
	if o.kind == "Team" {
		return fmt.Sprintf(smallTeam, o.name)
	}
	i := g.r.IntN(12)
	env := "dev"
	if i%3 == 0 {
		env = "prod"
	}
	return fmt.Sprintf(smallCluster, o.namespace, o.name, env, i%4, 1+i%5)
}

const smallTeam = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: %[1]s
spec:
  displayName: Team %[1]s
  description: Services of %[1]s
  providerConfigRef:
    name: harvester-prod
  resourceLimits:
    maxClusters: 6
`

// smallCluster: 1 team, 2 name, 3 environment, 4 tier, 5 workers.
const smallCluster = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: %[2]s
  namespace: %[1]s
  labels:
    butler.butlerlabs.dev/environment: %[3]s
    example.com/tier: tier-%[4]d
  annotations:
    butler.butlerlabs.dev/owner: dev1.%[1]s@example.com
spec:
  kubernetesVersion: v1.31.2
  teamRef:
    name: %[1]s
  providerConfigRef:
    name: harvester-prod
    namespace: butler-system
  workers:
    replicas: %[5]d
    machineTemplate:
      cpu: 4
      memory: 8Gi
  timeServers:
    - time1.example.com
`
