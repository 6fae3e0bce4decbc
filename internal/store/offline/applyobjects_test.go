package offline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

const commentedTeam = `# the team
apiVersion: butler.butlerlabs.dev/v1alpha1
kind: Team
metadata:
  name: payments
spec:
  displayName: Payments # shown in the console
`

func team(name, display string) *v1alpha1.Team {
	return &v1alpha1.Team{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindTeam},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.TeamSpec{DisplayName: display}}
}

// ApplyObjects writes all or nothing: when one object's new file cannot be written (one
// is there already), the in-place edit of another is not written either; once it can,
// the edit keeps the comments and the new object gets its file.
func TestApplyObjectsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(file, []byte(commentedTeam), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "teams", "search.yaml")
	if err := os.MkdirAll(filepath.Dir(taken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(taken, []byte("# not a team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := offline.Load([]string{dir}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	objs := []store.Object{team("payments", "Payments and ledgers"), team("search", "Search")}
	if _, err := s.ApplyObjects(context.Background(), objs, store.ApplyOptions{}); !errors.Is(err, storeerr.ErrFileExists) {
		t.Fatalf("err = %v, want ErrFileExists", err)
	}
	if b, _ := os.ReadFile(file); string(b) != commentedTeam {
		t.Fatalf("team.yaml written although the batch failed:\n%s", b)
	}

	if err := os.Remove(taken); err != nil {
		t.Fatal(err)
	}
	got, err := s.ApplyObjects(context.Background(), objs, store.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Location != file || got[1].Location != taken {
		t.Errorf("locations %q, %q", got[0].Location, got[1].Location)
	}
	want := "# the team\napiVersion: butler.butlerlabs.dev/v1alpha1\nkind: Team\nmetadata:\n  name: payments\nspec:\n  displayName: Payments and ledgers # shown in the console\n"
	if b, _ := os.ReadFile(file); string(b) != want {
		t.Errorf("team.yaml:\n%s\nwant:\n%s", b, want)
	}
	if _, err := os.Stat(taken); err != nil {
		t.Error(err)
	}
}
