package manifest

import (
	"os"
	"path/filepath"
	"testing"

	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// A partially typed object whose typed fields all become zero renders no spec at all; the
// fields of spec the toolkit does not type must stay, and only the typed ones go.
func TestWriteZeroPartialTypeKeepsUntypedFields(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tcp.yaml")
	orig := `apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: dev-1
  namespace: payments
spec:
  controlPlane:  # untyped
    deployment:
      replicas: 2
  writePermissions:
    blockCreation: true
    blockUpdate: true
  dataStore: default
status:
  kubernetesResources:
    version:
      status: WriteLimited
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, path)
	tcp := set.TenantControlPlanes()[0]
	tcp.Spec.WritePermissions = stewardv1alpha1.Permissions{}
	if err := Write([]Change{{Source: set.SourceOf(tcp), Obj: tcp}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, `apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: dev-1
  namespace: payments
spec:
  controlPlane:  # untyped
    deployment:
      replicas: 2
  dataStore: default
status:
  kubernetesResources:
    version:
      status: WriteLimited
`)

	// A block holding typed fields only still goes whole, as before.
	set = load(t, path)
	tcp = set.TenantControlPlanes()[0]
	tcp.Status = stewardv1alpha1.TenantControlPlaneStatus{}
	if err := Write([]Change{{Source: set.SourceOf(tcp), Obj: tcp}}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, `apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: dev-1
  namespace: payments
spec:
  controlPlane:  # untyped
    deployment:
      replicas: 2
  dataStore: default
`)
}
