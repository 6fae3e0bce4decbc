package manifesttest

import (
	"path/filepath"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Documents the tests of reading and writing start from.
const (
	// TeamHeader begins a Team.
	TeamHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: payments\n"
	// ClusterHeader begins a TenantCluster.
	ClusterHeader = "apiVersion: butler.butlerlabs.dev/v1alpha1\nkind: TenantCluster\nmetadata:\n  name: c\n  namespace: payments\n"
)

// CommentedFile is a Team file written by hand: comments everywhere, keys out of order,
// quoting, flow style, blank lines and a document of another kind.
const CommentedFile = `# Payments team, managed by the platform team.
# Do not edit by hand outside of a pull request.

---
# The team itself.
kind: Team   # kind before apiVersion on purpose
apiVersion: butler.butlerlabs.dev/v1alpha1
metadata:
  name: payments
  labels: {tier: gold}
spec:
  # people
  access:
    users:
    - name: alice@example.com   # lead
      role: admin

    # bob helps out
    - name: bob@example.com
      role: 'operator'
  resourceLimits:
    maxMemory: 16384Mi  # 16 GiB, written in Mi on purpose
    maxClusters: 20     # twenty
  clusterDefaults:
    workerCPU: "4"
    kubernetesVersion: "v1.31.0"
  environments:
    - name: dev
      limits:
        maxClustersPerMember: 2
      # prod is strict
    - name: prod
      limits:
        maxClusters: 6
  displayName: Payments
  # end of spec
# end of team
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: untouched    # stays as it is
data:
  weird:    "spacing"   # kept
`

// FuzzSeeds gives the fuzzers of reading and writing their seeds: documents of every
// shape the readers meet (comments, Lists, anchors, JSON, CRLF, a byte-order mark, broken
// YAML) and the examples' files under root (the repository's top).
func FuzzSeeds(root string, add func([]byte)) {
	for _, s := range []string{
		CommentedFile,
		TeamHeader + "spec:\n  clusterDefaults: {workerCPU: \"4\"}\n  environments: [{name: dev}]\n",
		ClusterHeader + "spec:\n  kubernetesVersion: v1.31.0\n  workers: {replicas: 1, machineTemplate: {memory: 16Gi}}\n  addons: {cni: {version: \"1\", values: {a: [1, 2]}}}\n",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
		"a: &a {b: 1}\nc: *a\nd:\n  <<: *a\napiVersion: v1\nkind: X\n",
		`{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  s: |\n    line\n     indented\n  q: 'it''s'\n  d: \"tab\\there\"\n",
		"--- |\n  text\n",
		"apiVersion: v1\nkind: [\n",
		"\ufeffapiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r\n",
	} {
		add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join(root, "examples", "*", "*.yaml"))
	more, _ := filepath.Glob(filepath.Join(root, "examples", "*", "*", "*.yaml"))
	for _, p := range append(files, more...) {
		if b, err := fileio.ReadFile(p, 1<<20); err == nil { // the examples are small
			add(b)
		}
	}
}
