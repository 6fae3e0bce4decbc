package provider_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/cli/butleradm"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/store/offline"
)

// leaks are credential values fed to the provider commands; none may appear in anything
// they print, nor in any file they write other than a Secret's (where they are base64).
var leaks = []string{
	"LEAK-harvester-kubeconfig-7f3a",
	"LEAK-nutanix-user-1b0c",
	"LEAK-nutanix-pass-91c2",
	"LEAK-proxmox-token-55d1",
	"LEAK-azure-tenant-3c9e",
	"LEAK-azure-client-8a44",
	"LEAK-azure-secret-0e47",
	"LEAK-azure-sub-2f61",
	"LEAK-aws-akid-6b02",
	"LEAK-aws-sak-4d93",
	"LEAK-gcp-private-key-9e18",
	"LEAK-aws-rotated-sak-77ab",
	"LEAK-bad-line-value-3301",
	"LEAK-bad-key-value-4402",
	"LEAK-dup-value-5503",
	"LEAK-nested-value-6604",
	"LEAK-broken-yaml-value-7705",
	"LEAK-not-base64-value-8806!",
	"LEAK-partial-value-9907",
	"LEAK-manifest-secret-1008",
}

var credFiles = map[string]string{
	"harvester.kubeconfig": "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: LEAK-harvester-kubeconfig-7f3a\n",
	"nutanix.env":          "username=LEAK-nutanix-user-1b0c\npassword=LEAK-nutanix-pass-91c2\n",
	"proxmox.yaml":         "token: LEAK-proxmox-token-55d1\n",
	"azure.yaml":           "tenantID: LEAK-azure-tenant-3c9e\nclientID: LEAK-azure-client-8a44\nclientSecret: LEAK-azure-secret-0e47\nsubscriptionID: LEAK-azure-sub-2f61\n",
	"aws.env":              "accessKeyID=LEAK-aws-akid-6b02\nsecretAccessKey=LEAK-aws-sak-4d93\n",
	"gcp-key.json":         `{"type": "service_account", "private_key": "LEAK-gcp-private-key-9e18"}` + "\n",
	"aws-rotated.yaml":     "accessKeyID: LEAK-aws-akid-6b02\nsecretAccessKey: LEAK-aws-rotated-sak-77ab\n",
	"bad-line.env":         "accessKeyID=x\nLEAK-bad-line-value-3301\n",
	"bad-key.env":          "accessKeyID=x\nsecret LEAK-bad-key-value-4402=y\n",
	"dup.env":              "accessKeyID=LEAK-dup-value-5503\naccessKeyID=LEAK-dup-value-5503\n",
	"nested.yaml":          "accessKeyID: x\nsecretAccessKey:\n  v: LEAK-nested-value-6604\n",
	"broken.yaml":          "accessKeyID: x\nsecretAccessKey: \"LEAK-broken-yaml-value-7705\n  [x\n",
	"bad-base64.yaml":      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  accessKeyID: LEAK-not-base64-value-8806!\n",
	"partial.env":          "accessKeyID=LEAK-partial-value-9907\n",
	"in-manifests.yaml": `apiVersion: butler.butlerlabs.dev/v1alpha1
kind: ProviderConfig
metadata:
  name: checked
  namespace: butler-system
spec:
  provider: aws
  credentialsRef:
    name: checked-credentials
  aws:
    region: us-east-1
---
apiVersion: v1
kind: Secret
metadata:
  name: checked-credentials
  namespace: butler-system
stringData:
  accessKeyID: LEAK-manifest-secret-1008
`,
}

// TestNoCommandShowsACredential runs every provider command, the ways they succeed and the
// ways they fail, with known credential values, and finds none of them in stdout, stderr,
// or the files written (other than the Secrets themselves).
func TestNoCommandShowsACredential(t *testing.T) {
	tmp := t.TempDir()
	manifests := filepath.Join(tmp, "payments")
	copyDir(t, filepath.Join("..", "..", "..", "examples", "payments"), manifests)
	creds := filepath.Join(tmp, "creds")
	if err := os.Mkdir(creds, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range credFiles {
		if err := os.WriteFile(filepath.Join(creds, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// One file others may read, for the warning path.
	if err := os.Chmod(filepath.Join(creds, "aws.env"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := func(name string) string { return filepath.Join(creds, name) }
	// Working on manifests, credentials go to files outside the tree (--credentials-out).
	outDir := t.TempDir()
	outs := 0
	out := func() string { outs++; return filepath.Join(outDir, fmt.Sprintf("creds-%d.yaml", outs)) }
	m := []string{"--manifests", manifests, "--as", "olivia@example.com"}

	type run struct {
		args  []string
		stdin string
	}
	var runs []run
	add := func(stdin string, args ...string) { runs = append(runs, run{append(args, m...), stdin}) }
	creates := [][]string{
		{"harvester-x", "--provider", "harvester", "--network-name", "default/vlan40", "--credentials-from-file", "kubeconfig=" + c("harvester.kubeconfig")},
		{"nutanix-x", "--provider", "nutanix", "--endpoint", "https://prism.example.com", "--cluster-uuid", "c", "--subnet-uuid", "s", "--credentials-env-file", c("nutanix.env")},
		{"proxmox-x", "--provider", "proxmox", "--endpoint", "https://pve.example.com:8006", "--node", "pve", "--storage", "local", "--credentials-file", c("proxmox.yaml")},
		{"azure-x", "--provider", "azure", "--team", "payments", "--subscription-id", "s", "--resource-group", "rg", "--credentials-file", c("azure.yaml")},
		{"aws-x", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", c("aws.env")},
		{"gcp-x", "--provider", "gcp", "--project-id", "p", "--region", "r", "--credentials-from-file", "serviceAccountKey=" + c("gcp-key.json")},
	}
	for _, cr := range creates {
		for _, o := range []string{"yaml", "json", "name", "table"} {
			add("", append(append([]string{"provider", "create"}, cr...), "--dry-run", "-o", o)...)
		}
	}
	for _, cr := range creates {
		add("", append(append([]string{"provider", "create"}, cr...), "--credentials-out", out())...)
	}
	add("accessKeyID=LEAK-aws-akid-6b02\nsecretAccessKey=LEAK-aws-sak-4d93\n", "provider", "create", "aws-stdin", "--provider", "aws", "--region", "us-east-1", "--credentials-stdin", "--credentials-out", out(), "-o", "yaml")
	for _, bad := range []string{"bad-line.env", "bad-key.env", "dup.env", "partial.env"} {
		add("", "provider", "create", "aws-bad", "--provider", "aws", "--region", "us-east-1", "--credentials-env-file", c(bad))
	}
	for _, bad := range []string{"nested.yaml", "broken.yaml", "bad-base64.yaml"} {
		add("", "provider", "create", "aws-bad", "--provider", "aws", "--region", "us-east-1", "--credentials-file", c(bad))
	}
	add("", "provider", "create", "aws-y", "--provider", "aws", "--region", "us-east-1", "--credentials-secret", "aws-x-credentials", "--credentials-env-file", c("aws.env"), "--credentials-out", out())
	add("", "provider", "create", "harvester-y", "--provider", "harvester", "--network-name", "default/vlan40", "--credentials-secret", "aws-x-credentials")
	for _, o := range []string{"table", "wide", "json", "yaml", "name"} {
		add("", "provider", "list", "-o", o)
	}
	for _, name := range []string{"harvester-x", "nutanix-x", "proxmox-x", "aws-x", "gcp-x"} {
		for _, o := range []string{"table", "json", "yaml"} {
			add("", "provider", "get", name, "-o", o)
		}
	}
	add("", "provider", "get", "azure-x", "--team", "payments")
	for _, o := range []string{"table", "json", "yaml"} {
		add("", "provider", "validate", "-f", manifests, "-f", c("in-manifests.yaml"), "-o", o)
	}
	for _, o := range []string{"yaml", "json", "name"} {
		add("", "provider", "rotate-credentials", "aws-x", "--credentials-file", c("aws-rotated.yaml"), "--dry-run", "-o", o)
	}
	add("", "provider", "rotate-credentials", "aws-x", "--credentials-env-file", c("partial.env"))
	add("", "provider", "rotate-credentials", "aws-x", "--credentials-file", c("bad-base64.yaml"))
	add("", "provider", "rotate-credentials", "aws-x", "--credentials-file", c("aws-rotated.yaml"), "--credentials-out", out())
	add("", "provider", "rotate-credentials", "aws-x", "--credentials-file", c("aws-rotated.yaml"), "--credentials-out", out(), "-o", "json")
	add("", "provider", "delete", "harvester-prod", "--yes")
	for _, name := range []string{"aws-x", "nutanix-x", "proxmox-x"} {
		add("", "provider", "delete", name, "--yes", "--delete-credentials")
	}
	add("", "provider", "delete", "gcp-x", "--yes")

	var output strings.Builder
	for _, r := range runs {
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(r.stdin)
		f := &factory.Factory{
			IOStreams: ios,
			Options:   &factory.GlobalOptions{},
			Now:       func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) },
			NewStore: func(_ context.Context, f *factory.Factory) (store.Store, error) {
				return offline.Load(f.Options.Manifests, f.IOStreams.In, f.Options.As, f.Options.AsGroups)
			},
		}
		code := root.Run(f, butleradm.NewCmd(f), r.args)
		fmt.Fprintf(&output, "$ %s (exit %d)\n%s%s", strings.Join(r.args, " "), code, out, errOut)
	}
	text := output.String()

	// The runs did what they are for: created, warned, failed, rotated, deleted.
	for _, want := range []string{
		"the credentials are in " + filepath.Join(outDir, "creds-1.yaml") + " (mode 0600), not in the manifests",
		"providerconfig.butler.butlerlabs.dev/azure-x created",
		"warning: credentials file " + c("aws.env") + " is group- or world-readable",
		`credentials for provider "aws" are missing key "secretAccessKey"`,
		"want KEY=VALUE",
		"data values must be base64-encoded",
		"secret/aws-x-credentials credentials written to",
		"providerconfig.butler.butlerlabs.dev/aws-x deleted",
		"cannot delete ProviderConfig \"harvester-prod\"",
		`stringData: credentials for provider "aws" are missing key "secretAccessKey"`,
		"<redacted>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no run printed %q", want)
		}
	}

	// The manifests hold no credential in any form; the files outside hold them encoded.
	secretFiles := 0
	for _, dir := range []string{manifests, outDir} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if dir == outDir {
				secretFiles++
				for _, v := range leaks {
					if strings.Contains(string(b), v) {
						t.Errorf("%s holds %q unencoded", path, v)
					}
				}
				return nil
			}
			checkNoLeak(t, path, string(b))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if secretFiles == 0 {
		t.Error("no credentials file was written")
	}
	checkNoLeak(t, "the output", text)
	if t.Failed() {
		t.Logf("output:\n%s", text)
	}
}

func checkNoLeak(t *testing.T, where, text string) {
	t.Helper()
	for _, v := range leaks {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(text, form) {
				t.Errorf("%s shows %q", where, form)
			}
		}
	}
	// A value is never quoted partly either.
	if strings.Contains(text, "LEAK-") {
		t.Errorf("%s shows part of a value: %q", where, excerpt(text, "LEAK-"))
	}
}

func excerpt(text, sub string) string {
	i := strings.Index(text, sub)
	start, end := max(0, i-60), min(len(text), i+60)
	return text[start:end]
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
