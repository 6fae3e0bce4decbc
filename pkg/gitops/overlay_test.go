package gitops

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest/manifesttest"
)

const overlayCluster = `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: TenantCluster
metadata:
  name: web
  namespace: team-payments
  labels:
    butler.butlerlabs.dev/team: payments
    butler.butlerlabs.dev/environment: dev
spec:
  kubernetesVersion: v1.31.0
  teamRef: {name: payments}
  workers: {replicas: 1, machineTemplate: {cpu: 2, memory: 4Gi, diskSize: 50Gi}}
`

// TestEntryMetadataIsApplied: the labels and annotations an entry point sets on every
// object (Flux's spec.commonMetadata, Argo CD's kustomize.commonLabels), or its patches
// set, are on the objects judged: the environment label decides which environment a cluster counts in.
func TestEntryMetadataIsApplied(t *testing.T) {
	for name, entry := range map[string]string{
		"flux": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  commonMetadata:
    labels: {butler.butlerlabs.dev/environment: prod}
    annotations: {example.com/owner: platform}
`,
		"argocd": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: apps, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc}
  source:
    repoURL: https://example.com/repo.git
    path: apps
    kustomize:
      commonLabels: {butler.butlerlabs.dev/environment: prod}
      commonAnnotations: {example.com/owner: platform}
`,
		"argocd-patch": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: apps, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc}
  source:
    repoURL: https://example.com/repo.git
    path: apps
    kustomize:
      patches:
      - target: {kind: TenantCluster}
        patch: |
          - op: add
            path: /metadata/labels/butler.butlerlabs.dev~1environment
            value: prod
          - op: add
            path: /metadata/annotations
            value: {example.com/owner: platform}
`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "clusters/mgmt/entry.yaml"), []byte(entry))
			writeFile(t, filepath.Join(dir, "apps/web.yaml"), []byte(overlayCluster))
			// Whether the load keeps the clusters whole or as records, the renders read
			// them whole through the set's Clusters, and render the same.
			var trees [2]*Tree
			for k, lean := range []bool{true, false} {
				manifesttest.InMode(t, &manifest.WholeBytes, lean)
				var err error
				if trees[k], err = Load([]string{dir}, nil, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			lean, tree := trees[0], trees[1]
			var found, leanFound *v1alpha1.TenantCluster
			for _, tg := range tree.Targets {
				tcs, _ := tg.Set.TenantClusters()
				for _, c := range tcs {
					found = c
				}
			}
			for _, tg := range lean.Targets {
				tcs, _ := tg.Set.TenantClusters()
				for _, c := range tcs {
					leanFound = c
				}
			}
			if !reflect.DeepEqual(found, leanFound) {
				t.Errorf("asked for lean: %+v, want %+v", leanFound, found)
			}
			if found == nil {
				t.Fatalf("no TenantCluster rendered: %+v", tree)
			}
			if env := found.Labels["butler.butlerlabs.dev/environment"]; env != "prod" {
				t.Errorf("environment label %q, want the entry's prod", env)
			}
			if found.Labels["butler.butlerlabs.dev/team"] != "payments" || found.Annotations["example.com/owner"] != "platform" {
				t.Errorf("labels %v, annotations %v: want the cluster's team kept and the entry's annotation set", found.Labels, found.Annotations)
			}
		})
	}
}
