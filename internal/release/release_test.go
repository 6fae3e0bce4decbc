package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const buildinfoPkg = "github.com/butlerdotdev/butler-toolkit/internal/buildinfo"

type config struct {
	Version int `json:"version"`
	Builds  []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		GOOS    []string `json:"goos"`
		GOARCH  []string `json:"goarch"`
		Ldflags []string `json:"ldflags"`
	} `json:"builds"`
	Archives []struct {
		ID      string   `json:"id"`
		IDs     []string `json:"ids"`
		Formats []string `json:"formats"`
		Files   []any    `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
	Krews []struct {
		Name string   `json:"name"`
		IDs  []string `json:"ids"`
	} `json:"krews"`
	Kos []struct {
		Build     string   `json:"build"`
		BaseImage string   `json:"base_image"`
		User      string   `json:"user"`
		Platforms []string `json:"platforms"`
	} `json:"kos"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestConfigStructure checks what the releases must have, whether or not goreleaser is
// available: both binaries for linux, darwin and windows on amd64 and arm64, stamped with
// the version, commit and date; archives with the completions and man pages; checksums.
func TestConfigStructure(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 {
		t.Errorf("version: %d, want 2", c.Version)
	}
	binaries := map[string]bool{}
	for _, bd := range c.Builds {
		binaries[bd.Binary] = true
		if bd.Main != "./cmd/"+bd.Binary {
			t.Errorf("build %s: main %q", bd.ID, bd.Main)
		}
		for _, goos := range []string{"linux", "darwin", "windows"} {
			if !slices.Contains(bd.GOOS, goos) {
				t.Errorf("build %s: no %s", bd.ID, goos)
			}
		}
		for _, arch := range []string{"amd64", "arm64"} {
			if !slices.Contains(bd.GOARCH, arch) {
				t.Errorf("build %s: no %s", bd.ID, arch)
			}
		}
		if !slices.Contains(bd.Env, "CGO_ENABLED=0") {
			t.Errorf("build %s: CGO_ENABLED=0 missing", bd.ID)
		}
		ld := strings.Join(bd.Ldflags, " ")
		for _, v := range []string{"Version", "Commit", "Date"} {
			if !strings.Contains(ld, "-X "+buildinfoPkg+"."+v+"=") {
				t.Errorf("build %s: ldflags do not stamp buildinfo.%s", bd.ID, v)
			}
		}
	}
	for _, want := range []string{"butlerctl", "butleradm"} {
		if !binaries[want] {
			t.Errorf("no build of %s", want)
		}
	}
	if len(c.Archives) == 0 {
		t.Fatal("no archives")
	}
	for _, a := range c.Archives {
		if a.ID == pluginArchive {
			continue // the plugin alone; TestPluginAndImage
		}
		if !slices.Contains(a.IDs, "butlerctl") || !slices.Contains(a.IDs, "butleradm") {
			t.Errorf("archive ids %v: want both binaries", a.IDs)
		}
		var srcs []string
		for _, f := range a.Files {
			switch f := f.(type) {
			case string:
				srcs = append(srcs, f)
			case map[string]any:
				if s, ok := f["src"].(string); ok {
					srcs = append(srcs, s)
				}
			}
		}
		for _, want := range []string{"completions/", "docs/man/"} {
			found := false
			for _, s := range srcs {
				if strings.HasPrefix(s, want) {
					matches, _ := filepath.Glob(filepath.Join(root, s))
					if len(matches) == 0 {
						t.Errorf("archive file pattern %s matches nothing", s)
					}
					found = true
				}
			}
			if !found {
				t.Errorf("archives do not include %s (files: %v)", want, srcs)
			}
		}
	}
	if c.Checksum.NameTemplate == "" {
		t.Error("no checksum file")
	}
}

const pluginArchive = "kubectl-butler"

// TestPluginAndImage checks what the release ships besides the tools' archives: the
// kubectl plugin built for every platform, in archives of its own that a krew manifest
// (named butler, so `kubectl krew install butler`) points at; and the webhook's image,
// butleradm on a distroless static base as a non-root user, for amd64 and arm64.
func TestPluginAndImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	built := false
	for _, bd := range c.Builds {
		built = built || bd.Binary == "kubectl-butler"
	}
	if !built {
		t.Error("no build of kubectl-butler")
	}
	archived := false
	for _, a := range c.Archives {
		if a.ID == pluginArchive {
			archived = slices.Equal(a.IDs, []string{"kubectl-butler"})
		}
	}
	if !archived {
		t.Errorf("no archive %q of kubectl-butler alone", pluginArchive)
	}
	if len(c.Krews) != 1 || c.Krews[0].Name != "butler" || !slices.Equal(c.Krews[0].IDs, []string{pluginArchive}) {
		t.Errorf("krews: %+v, want one manifest named butler over the %s archives", c.Krews, pluginArchive)
	}
	if len(c.Kos) != 1 {
		t.Fatalf("kos: %d images, want 1", len(c.Kos))
	}
	k := c.Kos[0]
	if k.Build != "butleradm" || !strings.HasPrefix(k.BaseImage, "gcr.io/distroless/static") || !strings.HasSuffix(k.BaseImage, ":nonroot") {
		t.Errorf("image: build %q on %q, want butleradm on distroless static :nonroot", k.Build, k.BaseImage)
	}
	if k.User == "" || strings.HasPrefix(k.User, "0") || strings.HasPrefix(k.User, "root") {
		t.Errorf("image user %q: want a non-root uid", k.User)
	}
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		if !slices.Contains(k.Platforms, p) {
			t.Errorf("image: no %s", p)
		}
	}
}

// TestGoreleaserCheck runs `goreleaser check`. It is skipped when goreleaser has not been
// built (`make goreleaser`), unless BUTLER_GORELEASER names the binary (as `make test`
// does), in which case a missing binary fails.
func TestGoreleaserCheck(t *testing.T) {
	root := repoRoot(t)
	bin := os.Getenv("BUTLER_GORELEASER")
	required := bin != ""
	if bin == "" {
		out, err := exec.Command(filepath.Join(root, "hack", "goreleaser.sh"), "--path").Output()
		if err != nil {
			t.Skipf("hack/goreleaser.sh --path: %v", err)
		}
		bin = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(bin); err != nil {
		if required {
			t.Fatalf("goreleaser %s: %v (run make goreleaser)", bin, err)
		}
		t.Skipf("goreleaser not built (%s): run make goreleaser", bin)
	}
	cmd := exec.Command(bin, "check", ".goreleaser.yaml")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
	t.Logf("goreleaser check:\n%s", out)
}

// TestConfigLoads reads .goreleaser.yaml with goreleaser's own loader (configcheck: a
// strict decoding into goreleaser's types), and a copy with a misspelt key, which must
// fail: the check can fail. Skipped when configcheck has not been built (`make
// goreleaser-config`), unless BUTLER_GORELEASER_CONFIGCHECK names it (as `make test` does),
// in which case a missing checker fails.
func TestConfigLoads(t *testing.T) {
	root := repoRoot(t)
	bin := os.Getenv("BUTLER_GORELEASER_CONFIGCHECK")
	required := bin != ""
	if bin == "" {
		out, err := exec.Command(filepath.Join(root, "hack", "goreleaser.sh"), "--configcheck", "--path").Output()
		if err != nil {
			t.Skipf("hack/goreleaser.sh --configcheck --path: %v", err)
		}
		bin = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(bin); err != nil {
		if required {
			t.Fatalf("configcheck %s: %v (run make goreleaser-config)", bin, err)
		}
		t.Skipf("configcheck not built (%s): run make goreleaser-config", bin)
	}
	good := filepath.Join(root, ".goreleaser.yaml")
	if out, err := exec.Command(bin, good).CombinedOutput(); err != nil {
		t.Fatalf("configcheck .goreleaser.yaml: %v\n%s", err, out)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for name, broken := range map[string]string{
		"misspelt key":  strings.Replace(string(b), "\n    main: ", "\n    mian: ", 1),
		"wrong version": strings.Replace(string(b), "version: 2\n", "version: 1\n", 1),
		"wrong type":    strings.Replace(string(b), "goos: [linux, darwin, windows]", "goos: {os: linux}", 1),
	} {
		if broken == string(b) {
			t.Fatalf("%s: the replacement found nothing to break in .goreleaser.yaml", name)
		}
		p := filepath.Join(t.TempDir(), ".goreleaser.yaml")
		if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, p).CombinedOutput()
		if err == nil {
			t.Errorf("%s: configcheck passed a broken configuration:\n%s", name, out)
		}
	}
}
