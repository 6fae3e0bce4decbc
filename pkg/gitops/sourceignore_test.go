package gitops

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// archived is what source-controller archives of dir for a GitRepository, by its own
// calls: the ignore patterns of the tree (sourceignore.LoadIgnorePatterns, scoped by the
// absolute directory) and of spec.ignore, matched as its archive filter matches them
// (the default matcher without patterns, else the VCS ones first), on every regular file
// of a filepath.Walk.
func archived(t *testing.T, dir, spec string) []string {
	t.Helper()
	domain := strings.Split(dir, string(filepath.Separator))
	ps, err := sourceignore.LoadIgnorePatterns(dir, domain)
	if err != nil {
		t.Fatal(err)
	}
	if spec != "" {
		ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(spec), domain)...)
	}
	m := sourceignore.NewDefaultMatcher(ps, domain)
	if len(ps) > 0 {
		m = sourceignore.NewMatcher(append(sourceignore.VCSPatterns(domain), ps...))
	}
	var out []string
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() && !m.Match(strings.Split(p, string(filepath.Separator)), false) {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestSourceTreeDifferential: on generated trees with .sourceignore files in random
// directories and a random spec.ignore, the files a source tree keeps are the files
// source-controller's archive holds.
func TestSourceTreeDifferential(t *testing.T) {
	dirs := []string{"", "apps", "apps/base", "apps/prod", "clusters", "clusters/c1", "docs", ".github", ".git"}
	names := []string{"a.yaml", "b.yml", "kustomization.yaml", "README.md", "logo.png", "x.tar.gz", ".sops.yaml", "notes.txt", "c1.yaml"}
	patterns := []string{"*.md", "/*", "!/apps/", "!/clusters/", "docs/", "!README.md", "**/prod/**", "/apps/base/b.yml",
		"*.yaml", "!kustomization.yaml", "c?.yaml", "!*.png", "clusters/c1", "!/clusters/c1/a.yaml", "# comment", "",
		"base/", "/a.yaml", "!.github/", "[ab].yaml", "**/*.txt", "!docs/notes.txt"}
	for seed := uint64(1); seed <= 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		dir := t.TempDir()
		for _, d := range dirs {
			for _, n := range names {
				if r.IntN(3) == 0 {
					continue
				}
				writeFile(t, filepath.Join(dir, d, n), []byte("x"))
			}
			if r.IntN(3) == 0 { // some trees have no rules at all: the default excludes
				var lines []string
				for range 1 + r.IntN(4) {
					lines = append(lines, patterns[r.IntN(len(patterns))])
				}
				writeFile(t, filepath.Join(dir, d, ".sourceignore"), []byte(strings.Join(lines, "\n")))
			}
		}
		spec := ""
		if r.IntN(2) == 0 {
			spec = patterns[r.IntN(len(patterns))] + "\n" + patterns[r.IntN(len(patterns))]
		}
		st, err := readSourceTree(dir, spec)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for f := range st.files {
			got = append(got, f)
		}
		slices.Sort(got)
		if want := archived(t, dir, spec); !slices.Equal(got, want) {
			t.Fatalf("seed %d (spec %q): kept\n%v\nsource-controller archives\n%v", seed, spec, got, want)
		}
	}
}

// TestSourceMatcherDefaults: without rules, the controller's default excludes apply; with
// any rule, only the VCS ones do.
func TestSourceMatcherDefaults(t *testing.T) {
	png := []string{"img", "logo.png"}
	if !sourceMatcher(nil).Match(png, false) {
		t.Error("no rules: logo.png is kept, want it excluded by default")
	}
	rules := []gitignore.Pattern{gitignore.ParsePattern("*.md", nil)}
	if sourceMatcher(rules).Match(png, false) {
		t.Error("with rules: logo.png is excluded, want only the rules and VCS files")
	}
	if !sourceMatcher(rules).Match([]string{".gitignore"}, false) {
		t.Error("with rules: .gitignore is kept, want the VCS files excluded")
	}
}
