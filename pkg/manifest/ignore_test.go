package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The patterns of --exclude and .butlerignore leave paths out unread: a broken symlink
// or a file that would not decode, once excluded, fails nothing.
func TestExclude(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		IgnoreFile:           "# drafts\ndrafts/\n",
		"team.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"drafts/bad.yaml":    "kind: [\n",
		"deep/x/values.yaml": "replicaCount: 1\n",
		"deep/x/keep.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
	})
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "gone.yaml")); err != nil {
		t.Fatal(err)
	}
	set, err := LoadWith([]string{dir}, nil, Options{Exclude: []string{"**/values.yaml", "/gone.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Objects) != 2 || len(set.NotObjects) != 0 {
		t.Errorf("%d objects, %d not objects", len(set.Objects), len(set.NotObjects))
	}
	want := []string{filepath.Join(dir, "deep/x/values.yaml"), filepath.Join(dir, "drafts"), filepath.Join(dir, "gone.yaml")}
	got := slices.Clone(set.Excluded)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("excluded %v, want %v", got, want)
	}
	if !slices.Equal(set.ExcludePatterns, []string{"drafts/", "**/values.yaml", "/gone.yaml"}) {
		t.Errorf("patterns %v", set.ExcludePatterns)
	}
	// The caller's copy of the ignore file stands in for the directory's.
	_, err = LoadWith([]string{dir}, nil, Options{Exclude: []string{"**/values.yaml", "/gone.yaml"},
		IgnoreFile: func(string) ([]byte, bool, error) { return nil, false, nil }})
	if err == nil {
		t.Error("drafts/bad.yaml read without the ignore file: want its error")
	}
}
