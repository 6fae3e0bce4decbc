package gitops

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// srcView is a source of test files: each path holds itself as its "repository file".
func srcView(paths ...string) *view {
	v := newView()
	for _, p := range paths {
		if d, ok := strings.CutSuffix(p, "/"); ok {
			v.addDir(d)
			continue
		}
		v.files[p] = "src:" + p
		v.addDir(filepathDir(p))
	}
	return v
}

func filepathDir(p string) string { return filepath.ToSlash(filepath.Dir(p)) }

// TestBuildArtifact holds the copy semantics of source-watcher's ArtifactGenerator, case
// by case as its builder tests state them: the artifact's files, each with the source
// file it holds ("src:ALIAS/PATH" stands for the file PATH of source ALIAS).
func TestBuildArtifact(t *testing.T) {
	tests := []struct {
		name    string
		sources map[string][]string
		ops     []copyOp
		want    map[string]string
		dirs    []string // directories the artifact must hold besides the files'
		wantErr string
	}{
		{name: "single file into the root", sources: map[string][]string{"source": {"config.yaml"}},
			ops:  []copyOp{{From: "@source/config.yaml", To: "@artifact/"}},
			want: map[string]string{"config.yaml": "source:config.yaml"}},
		{name: "two sources", sources: map[string][]string{"git": {"app.yaml"}, "oci": {"config.json"}},
			ops:  []copyOp{{From: "@git/app.yaml", To: "@artifact/manifests/"}, {From: "@oci/config.json", To: "@artifact/config/"}},
			want: map[string]string{"manifests/app.yaml": "git:app.yaml", "config/config.json": "oci:config.json"}},
		{name: "glob of files", sources: map[string][]string{"source": {"deployment.yaml", "service.yaml", "notes.txt"}},
			ops:  []copyOp{{From: "@source/*.yaml", To: "@artifact/manifests/"}},
			want: map[string]string{"manifests/deployment.yaml": "source:deployment.yaml", "manifests/service.yaml": "source:service.yaml"}},
		{name: "the root, as a directory", sources: map[string][]string{"source": {"root.yaml", "subdir/nested.yaml"}},
			ops:  []copyOp{{From: "@source/", To: "@artifact/"}},
			want: map[string]string{"root.yaml": "source:root.yaml", "subdir/nested.yaml": "source:subdir/nested.yaml"}},
		{name: "the root's entries, a glob", sources: map[string][]string{"source": {"root.yaml", "subdir/nested.yaml"}},
			ops:  []copyOp{{From: "@source/**", To: "@artifact/"}},
			want: map[string]string{"root.yaml": "source:root.yaml", "subdir/nested.yaml": "source:subdir/nested.yaml"}},
		{name: "a later copy overwrites, the rest stays",
			sources: map[string][]string{"s1": {"config/app.yaml", "config/database.yaml"}, "s2": {"config/app.yaml", "config/network.yaml"}},
			ops:     []copyOp{{From: "@s1/**", To: "@artifact/"}, {From: "@s2/**", To: "@artifact/"}},
			want: map[string]string{"config/app.yaml": "s2:config/app.yaml", "config/database.yaml": "s1:config/database.yaml",
				"config/network.yaml": "s2:config/network.yaml"}},
		{name: "a directory without a slash goes below the destination", sources: map[string][]string{"source": {"config/app.yaml"}},
			ops:  []copyOp{{From: "@source/config", To: "@artifact/dest"}},
			want: map[string]string{"dest/config/app.yaml": "source:config/app.yaml"}},
		{name: "a directory with a slash goes below the destination too", sources: map[string][]string{"source": {"config/app.yaml"}},
			ops:  []copyOp{{From: "@source/config/", To: "@artifact/dest/"}},
			want: map[string]string{"dest/config/app.yaml": "source:config/app.yaml"}},
		{name: "a file into a directory keeps its name", sources: map[string][]string{"source": {"config.yaml"}},
			ops:  []copyOp{{From: "@source/config.yaml", To: "@artifact/dest/"}},
			want: map[string]string{"dest/config.yaml": "source:config.yaml"}},
		{name: "DIR/** strips DIR", sources: map[string][]string{"source": {"config/app.yaml", "config/subdir/db.yaml"}},
			ops:  []copyOp{{From: "@source/config/**", To: "@artifact/dest/"}},
			want: map[string]string{"dest/app.yaml": "source:config/app.yaml", "dest/subdir/db.yaml": "source:config/subdir/db.yaml"}},
		{name: "a file to a file name", sources: map[string][]string{"chart": {"Chart.yaml", "values.yaml"}, "repo": {"charts/podinfo/values-prod.yaml"}},
			ops: []copyOp{{From: "@chart/**", To: "@artifact/"}, {From: "@repo/charts/podinfo/values-prod.yaml", To: "@artifact/podinfo/values.yaml"}},
			want: map[string]string{"Chart.yaml": "chart:Chart.yaml", "values.yaml": "chart:values.yaml",
				"podinfo/values.yaml": "repo:charts/podinfo/values-prod.yaml"}},
		{name: "a file into an existing directory", sources: map[string][]string{"source": {"file1.txt", "subdir/file2.txt"}},
			ops:  []copyOp{{From: "@source/subdir/", To: "@artifact/"}, {From: "@source/file1.txt", To: "@artifact/subdir"}},
			want: map[string]string{"subdir/file1.txt": "source:file1.txt", "subdir/file2.txt": "source:subdir/file2.txt"}},
		{name: "exclude by extension", sources: map[string][]string{"source": {"app.yaml", "README.md", "docs/notes.md"}},
			ops:  []copyOp{{From: "@source/**", To: "@artifact/", Exclude: []string{"*.md"}}},
			want: map[string]string{"app.yaml": "source:app.yaml"}, dirs: []string{"docs"}},
		{name: "exclude a directory", sources: map[string][]string{"source": {"app.yaml", "testdata/test.yaml", "configs/prod.yaml"}},
			ops:  []copyOp{{From: "@source/**", To: "@artifact/", Exclude: []string{"**/testdata/**"}}},
			want: map[string]string{"app.yaml": "source:app.yaml", "configs/prod.yaml": "source:configs/prod.yaml"}},
		{name: "exclude among a glob's files", sources: map[string][]string{"source": {"app.yaml", "secret.yaml", "other.json"}},
			ops:  []copyOp{{From: "@source/*.yaml", To: "@artifact/configs/", Exclude: []string{"secret.yaml"}}},
			want: map[string]string{"configs/app.yaml": "source:app.yaml"}},
		{name: "exclude the one file", sources: map[string][]string{"source": {"secret.yaml"}},
			ops:  []copyOp{{From: "@source/secret.yaml", To: "@artifact/config.yaml", Exclude: []string{"secret.yaml"}}},
			want: map[string]string{}},
		{name: "exclude by the path from the source root",
			sources: map[string][]string{"source": {"infrastructure/controllers/descheduler/release.yaml", "infrastructure/controllers/sealed/release.yaml", "infrastructure/configs/issuer.yaml"}},
			ops:     []copyOp{{From: "@source/infrastructure/**", To: "@artifact/", Exclude: []string{"infrastructure/controllers/descheduler/**"}}},
			want: map[string]string{"controllers/sealed/release.yaml": "source:infrastructure/controllers/sealed/release.yaml",
				"configs/issuer.yaml": "source:infrastructure/configs/issuer.yaml"}},
		{name: "exclude by the path from the pattern's prefix",
			sources: map[string][]string{"source": {"infrastructure/controllers/descheduler/release.yaml", "infrastructure/controllers/sealed/release.yaml"}},
			ops:     []copyOp{{From: "@source/infrastructure/**", To: "@artifact/", Exclude: []string{"controllers/descheduler/**"}}},
			want:    map[string]string{"controllers/sealed/release.yaml": "source:infrastructure/controllers/sealed/release.yaml"}},
		{name: "exclude anchored at the prefix, not at the walked directory",
			sources: map[string][]string{"source": {"infrastructure/descheduler/release.yaml", "infrastructure/controllers/descheduler/release.yaml"}},
			ops:     []copyOp{{From: "@source/infrastructure/**", To: "@artifact/", Exclude: []string{"descheduler/**"}}},
			want:    map[string]string{"controllers/descheduler/release.yaml": "source:infrastructure/controllers/descheduler/release.yaml"}},
		{name: "exclude below a plain directory copy",
			sources: map[string][]string{"source": {"infrastructure/controllers/descheduler/release.yaml", "infrastructure/configs/issuer.yaml"}},
			ops:     []copyOp{{From: "@source/infrastructure", To: "@artifact/", Exclude: []string{"controllers/descheduler/**"}}},
			want:    map[string]string{"infrastructure/configs/issuer.yaml": "source:infrastructure/configs/issuer.yaml"}},
		{name: "the archive leaves out the controller's default excludes", sources: map[string][]string{"source": {"app.yaml", "logo.png", ".sops.yaml", ".github/ci.yaml"}},
			ops:  []copyOp{{From: "@source/", To: "@artifact/"}},
			want: map[string]string{"app.yaml": "source:app.yaml"}},
		{name: "missing file", sources: map[string][]string{"source": {"a.yaml"}},
			ops: []copyOp{{From: "@source/test.yaml", To: "@artifact/"}}, wantErr: "failed to apply copy operation from '@source/test.yaml' to '@artifact/': source 'test.yaml' does not exist"},
		{name: "a glob matching nothing", sources: map[string][]string{"source": {"a.json"}},
			ops: []copyOp{{From: "@source/*.yaml", To: "@artifact/"}}, wantErr: "no files match pattern '*.yaml' in source 'source'"},
		{name: "a bad glob", sources: map[string][]string{"source": {"a.json"}},
			ops: []copyOp{{From: "@source/[", To: "@artifact/"}}, wantErr: "syntax error in pattern"},
		{name: "an unknown alias", sources: map[string][]string{"source": {"a.json"}},
			ops: []copyOp{{From: "@missing/file.yaml", To: "@artifact/"}}, wantErr: "source alias 'missing' not found"},
		{name: "everything excluded", sources: map[string][]string{"source": {"test.md", "other.md"}},
			ops: []copyOp{{From: "@source/*.md", To: "@artifact/", Exclude: []string{"*.md"}}}, wantErr: "all files matching pattern '*.md' in source 'source' were excluded"},
		{name: "a destination out of the artifact", sources: map[string][]string{"source": {"a.yaml"}},
			ops: []copyOp{{From: "@source/a.yaml", To: "@artifact/../../a.yaml"}}, wantErr: "../../a.yaml: path escapes from parent"},
		{name: "a source out of the source", sources: map[string][]string{"source": {"a.yaml"}},
			ops: []copyOp{{From: "@source/../a.yaml", To: "@artifact/"}}, wantErr: "failed to stat source '../a.yaml': ../a.yaml: path escapes from parent"},
		{name: "a bad exclude", sources: map[string][]string{"source": {"test.md"}},
			ops: []copyOp{{From: "@source/*.md", To: "@artifact/", Exclude: []string{"[*.md"}}}, wantErr: "invalid exclude pattern '[*.md'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sources := map[string]*view{}
			for alias, paths := range tt.sources {
				v := srcView(paths...)
				for f := range v.files {
					v.files[f] = alias + ":" + f
				}
				sources[alias] = v
			}
			got, _, err := buildArtifact(tt.ops, sources)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got.files, tt.want) {
				t.Errorf("files:\n got %v\nwant %v", got.files, tt.want)
			}
			for _, d := range tt.dirs {
				if !got.dirs[d] {
					t.Errorf("directory %s missing from %v", d, slices.Sorted(maps.Keys(got.dirs)))
				}
			}
		})
	}
}

// TestBuildArtifactNotRendered: the strategies that make files of their own say so.
func TestBuildArtifactNotRendered(t *testing.T) {
	src := map[string]*view{"s": srcView("a/values.yaml", "b/values.yaml", "c.tgz")}
	for _, ops := range [][]copyOp{
		{{From: "@s/a/values.yaml", To: "@artifact/values.yaml"}, {From: "@s/b/values.yaml", To: "@artifact/values.yaml", Strategy: strategyMerge}},
		{{From: "@s/*.tgz", To: "@artifact/", Strategy: strategyExtract}},
	} {
		if _, _, err := buildArtifact(ops, src); !errors.Is(err, errUnrendered) {
			t.Errorf("%v: error %v, want errUnrendered", ops, err)
		}
	}
	// Merge onto nothing is a copy.
	ops := []copyOp{{From: "@s/a/values.yaml", To: "@artifact/values.yaml", Strategy: strategyMerge}}
	if v, _, err := buildArtifact(ops, src); err != nil || v.files["values.yaml"] != "src:a/values.yaml" {
		t.Errorf("merge onto nothing: %v %v", v, err)
	}
}

// TestViewFS: globbing and walking a view give what they give on the same tree on disk
// (the controller globs and walks an os.Root).
func TestViewFS(t *testing.T) {
	paths := []string{"a.yaml", "b.json", ".hidden", "d/x.yaml", "d/e/y.yaml", "d/e/f/z.yaml", "g/", "h/i.yaml"}
	dir := t.TempDir()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	disk, mem := os.DirFS(dir), srcView(paths...).fsys()
	for _, pat := range []string{"*", "**", "*.yaml", "d/*", "d/**", "d/*/*.yaml", "?.yaml", "[ab].*", "d/e", "nope/*", "g/*", "."} {
		want, werr := fs.Glob(disk, pat)
		got, gerr := fs.Glob(mem, pat)
		if !slices.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("Glob(%q) = %v, %v; on disk %v, %v", pat, got, gerr, want, werr)
		}
	}
	for _, root := range []string{".", "d", "g"} {
		walk := func(f fs.FS) []string {
			var out []string
			_ = fs.WalkDir(f, root, func(p string, d fs.DirEntry, err error) error {
				out = append(out, p+map[bool]string{true: "/"}[d != nil && d.IsDir()])
				return err
			})
			return out
		}
		if got, want := walk(mem), walk(disk); !slices.Equal(got, want) {
			t.Errorf("WalkDir(%q) = %v; on disk %v", root, got, want)
		}
	}
}
