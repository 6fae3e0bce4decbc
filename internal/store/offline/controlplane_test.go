package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	stewardv1alpha1 "github.com/butlerdotdev/butler-toolkit/pkg/apis/steward/v1alpha1"
)

// tcpDoc is a TenantControlPlane as Steward's users write it: most of its spec is not typed
// by the toolkit and must survive every edit, as must the comments.
const tcpDoc = `# The control plane of web.
apiVersion: steward.butlerlabs.dev/v1alpha1
kind: TenantControlPlane
metadata:
  name: web
  namespace: web-1a2b3c4d
spec:
  controlPlane:  # not typed by the toolkit
    deployment:
      replicas: 2
  kubernetes:
    version: v1.31.0
  writePermissions:
    blockDeletion: false # explicit
status:
  kubernetesResources:
    version:
      status: Ready
      version: v1.31.0
`

func TestSetWritePermissions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tcp.yaml")
	if err := os.WriteFile(file, []byte(tcpDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetControlPlane(ctx, "other", "web"); !apierrors.IsNotFound(err) {
		t.Fatalf("other namespace: %v, want NotFound", err)
	}
	tcp, err := s.GetControlPlane(ctx, "web-1a2b3c4d", "web")
	if err != nil || tcp.Status.KubernetesResources.Version.Status != "Ready" {
		t.Fatalf("get: %+v, %v", tcp, err)
	}

	// Each step rewrites only the lines of writePermissions; an unblocked field is removed
	// and thawing removes the block, keeping the fields the toolkit does not type.
	head := tcpDoc[:strings.Index(tcpDoc, "  writePermissions:")]
	tail := tcpDoc[strings.Index(tcpDoc, "status:"):]
	steps := []struct {
		p    stewardv1alpha1.Permissions
		want string
	}{
		{stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true, BlockDelete: true}, `  writePermissions:
    blockDeletion: true # explicit
    blockCreation: true
    blockUpdate: true
`},
		{stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true}, `  writePermissions:
    blockCreation: true
    blockUpdate: true
`},
		{stewardv1alpha1.Permissions{BlockCreate: true, BlockUpdate: true}, `  writePermissions:
    blockCreation: true
    blockUpdate: true
`},
		{stewardv1alpha1.Permissions{}, ""},
	}
	for i, st := range steps {
		got, res, err := s.SetWritePermissions(ctx, "web-1a2b3c4d", "web", st.p)
		if err != nil || res.Location != file || got.Spec.WritePermissions != st.p || got.Namespace != "web-1a2b3c4d" {
			t.Fatalf("step %d: %+v %+v %v", i, got, res, err)
		}
		b, _ := os.ReadFile(file)
		if want := head + st.want + tail; string(b) != want {
			t.Errorf("step %d:\n--- got ---\n%s--- want ---\n%s", i, b, want)
		}
		// The store serves what it wrote.
		if tcp, _ := s.GetControlPlane(ctx, "web-1a2b3c4d", "web"); tcp.Spec.WritePermissions != st.p {
			t.Errorf("step %d: read back %+v", i, tcp.Spec.WritePermissions)
		}
	}
	if _, _, err := s.SetWritePermissions(ctx, "web-1a2b3c4d", "nope", stewardv1alpha1.Permissions{}); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v, want NotFound", err)
	}
	all, err := s.ListControlPlanes(ctx, "")
	if err != nil || len(all) != 1 || all[0].Name != "web" {
		t.Errorf("list: %+v %v", all, err)
	}
	if none, _ := s.ListControlPlanes(ctx, "payments"); len(none) != 0 {
		t.Errorf("list payments: %+v", none)
	}
}
