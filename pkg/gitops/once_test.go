package gitops

import (
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

const newFieldCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: tenantclusters.butler.butlerlabs.dev}
spec:
  group: butler.butlerlabs.dev
  names: {kind: TenantCluster, plural: tenantclusters}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {maintenanceWindow: {type: string}}}
`

const clusterWithNewField = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata: {name: web, namespace: payments}
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: payments}
  providerConfigRef: {name: harvester-prod}
  workers: {replicas: 1, machineTemplate: {cpu: 2, memory: 4Gi, diskSize: 100Gi}}
  maintenanceWindow: "sun 02:00-04:00"
`

// onceStream is standard input that fails the test when it is read past its end: a
// stream is read once.
type onceStream struct {
	t    *testing.T
	r    io.Reader
	ends int
}

func (s *onceStream) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if errors.Is(err, io.EOF) {
		if s.ends++; s.ends > 1 {
			s.t.Errorf("standard input read again after its end")
		}
	}
	return n, err
}

// countReads is a manifest.Options.ReadFile that counts the files read, by path.
func countReads(reads map[string]int) func(string, int64) ([]byte, error) {
	return func(p string, limit int64) ([]byte, error) {
		reads[p]++
		return fileio.ReadFile(p, limit)
	}
}

// TestLoadReadsEachSourceOnce: a tree whose CRDs (in a directory) declare a field that a
// cluster on standard input uses loads, with the field left unjudged: standard input is
// read once, and so is each file (the CRDs are decoded from the bytes the load read).
func TestLoadReadsEachSourceOnce(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	writeFile(t, filepath.Join(crds, "tenantcluster.yaml"), []byte(newFieldCRD))
	writeFile(t, filepath.Join(crds, "other.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"))
	reads := map[string]int{}
	in := &onceStream{t: t, r: strings.NewReader(clusterWithNewField)}
	opts := Options{}
	opts.Manifest.ReadFile = countReads(reads)
	tree, err := Load([]string{crds, "-"}, in, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var notJudged []string
	for _, o := range allOf(t, tree.Raw) {
		for _, nj := range o.NotJudged {
			notJudged = append(notJudged, o.Kind+" "+nj.Field)
		}
	}
	if strings.Join(notJudged, ",") != "TenantCluster spec.maintenanceWindow" {
		t.Errorf("not judged: %v, want the cluster's spec.maintenanceWindow", notJudged)
	}
	if len(reads) != 2 {
		t.Errorf("files read: %v, want the 2 files of crds", reads)
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times, want once", p, n)
		}
	}
}

// TestLoadUndeclaredFieldRefused: a field no CRD declares is refused, as without a CRD,
// standard input given again from what was read; the error names the field.
func TestLoadUndeclaredFieldRefused(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	writeFile(t, filepath.Join(crds, "tenantcluster.yaml"), []byte(newFieldCRD))
	in := &onceStream{t: t, r: strings.NewReader(strings.Replace(clusterWithNewField, "maintenanceWindow", "maintenanceWindw", 1))}
	_, err := Load([]string{crds, "-"}, in, Options{})
	if err == nil || !strings.Contains(err.Error(), "spec.maintenanceWindw: unknown field") {
		t.Fatalf("Load: %v, want the unknown field refused", err)
	}
	if strings.Contains(err.Error(), "standard input was empty") {
		t.Errorf("standard input was read twice: %v", err)
	}
}

// TestLoadDecodesEachFileOnce: a tree whose load keeps its clusters as records and that
// turns out to hold a Flux entry point is not loaded again to render it (each file is
// asked of Options.Reuse, which a load asks about every file it decodes, once); the
// render reads its cluster through the set's Clusters and renders it as a whole load does.
func TestLoadDecodesEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clusters/mgmt/entry.yaml"), []byte(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  commonMetadata:
    labels: {butler.butlerlabs.dev/environment: prod}
`))
	writeFile(t, filepath.Join(dir, "apps/web.yaml"), []byte(overlayCluster))
	var rendered [2][]string
	for k, lean := range []bool{true, false} {
		manifesttest.InMode(t, &manifest.WholeBytes, lean)
		var mu sync.Mutex
		decoded := map[string]int{}
		opts := Options{}
		opts.Manifest.Reuse = func(p string, _ []byte) (manifest.FileObjects, bool) {
			mu.Lock()
			decoded[p]++
			mu.Unlock()
			return manifest.FileObjects{}, false
		}
		tree, err := Load([]string{dir}, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(decoded) != 2 {
			t.Errorf("lean %v: files decoded: %v, want the 2 of the tree", lean, decoded)
		}
		for p, n := range decoded {
			if n != 1 {
				t.Errorf("lean %v: %s decoded %d times, want once", lean, p, n)
			}
		}
		rendered[k] = clustersByTarget(tree)
		tcs, _ := tree.Targets[0].Set.TenantClusters()
		if len(tcs) != 1 || tcs[0].Labels[v1alpha1.LabelEnvironment] != "prod" {
			t.Errorf("lean %v: rendered %v, want web in prod", lean, rendered[k])
		}
	}
	if !reflect.DeepEqual(rendered[0], rendered[1]) {
		t.Errorf("lean %v, whole %v", rendered[0], rendered[1])
	}
}

// TestLoadRefusalReadsEachFileOnce: a tree refused for a field no CRD declares, beside a
// file whose field its CRD declares, is refused naming that field, and each file is read
// once (the refusal is worded from the bytes the load read, not a second pass).
func TestLoadRefusalReadsEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crds", "tenantcluster.yaml"), []byte(newFieldCRD))
	writeFile(t, filepath.Join(dir, "clusters", "a.yaml"), []byte(clusterWithNewField))
	typo := strings.NewReplacer("maintenanceWindow", "maintenanceWindw", "name: web", "name: api").Replace(clusterWithNewField)
	writeFile(t, filepath.Join(dir, "clusters", "b.yaml"), []byte(typo))
	reads := map[string]int{}
	opts := Options{}
	opts.Manifest.ReadFile = countReads(reads)
	_, err := Load([]string{dir}, nil, opts)
	if err == nil || !strings.Contains(err.Error(), `b.yaml:9: TenantCluster "payments/api" (document 1): spec.maintenanceWindw: unknown field`) {
		t.Fatalf("Load: %v, want b.yaml's unknown field refused", err)
	}
	if strings.Contains(err.Error(), "a.yaml") {
		t.Errorf("the declared field of a.yaml is refused too: %v", err)
	}
	if len(reads) != 3 {
		t.Errorf("files read: %v, want the tree's 3", reads)
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times, want once", p, n)
		}
	}
}
