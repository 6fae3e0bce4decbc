package kubeconfig

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

func TestWriteFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(path, []byte("an older, longer kubeconfig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != FileMode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), FileMode)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("content %q", b)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if err := writeFile(fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != FileMode {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
}

func TestSecretRef(t *testing.T) {
	c := &v1alpha1.TenantCluster{}
	c.Name = "web"
	if ns, name := SecretRef(c); ns != "" || name != "web-admin-kubeconfig" {
		t.Errorf("no status: %q %q", ns, name)
	}
	c.Status.TenantNamespace = "web-0a1b2c3d"
	c.Status.KubeconfigSecretRef = &v1alpha1.LocalObjectReference{Name: "web-kc"}
	if ns, name := SecretRef(c); ns != "web-0a1b2c3d" || name != "web-kc" {
		t.Errorf("status: %q %q", ns, name)
	}
}

func TestOfflineIsAUsageError(t *testing.T) {
	streams, _, _, _ := iostreams.Test()
	o := &Options{}
	o.Name, o.Team, o.Offline = "web", "payments", true
	o.Deps = factory.Deps[Store]{IO: streams,
		Store: func(context.Context) (Store, error) {
			t.Fatal("the store is not needed to refuse")
			return nil, nil
		}}
	err := run(context.Background(), o)
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Fatalf("got %v", err)
	}
}
