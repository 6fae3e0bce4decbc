package providerutil

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCredentialsNeverPrint(t *testing.T) {
	c := NewCredentials("f", map[string][]byte{"password": []byte("hunter2")})
	for _, s := range []string{
		fmt.Sprintf("%v %s %q %+v %#v %x", c, c, c, c, c, c),
		fmt.Sprint(c), fmt.Sprintln(c),
		fmt.Sprintf("%v", []*Credentials{c}),
		fmt.Sprintf("%+v", struct{ C *Credentials }{c}),
	} {
		if strings.Contains(s, "hunter2") || !strings.Contains(s, Redacted) {
			t.Errorf("printed %q", s)
		}
	}
	b, err := json.Marshal(map[string]any{"c": c})
	if err != nil || strings.Contains(string(b), "hunter2") {
		t.Errorf("json %s %v", b, err)
	}
	if got := c.Keys(); !reflect.DeepEqual(got, []string{"password"}) {
		t.Errorf("keys %v", got)
	}
	d := c.Data()
	d["password"][0] = 'X'
	if string(c.Data()["password"]) != "hunter2" {
		t.Error("Data is not a copy")
	}
}

func TestParseEnv(t *testing.T) {
	in := "# comment\r\n\r\nexport a=1\r\nb = \"two words\"\nc='x=y'\nd=\"unbalanced\n"
	got, err := parseEnv("f", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "two words", "c": "x=y", "d": `"unbalanced`}
	if len(got) != len(want) {
		t.Fatalf("got %d keys", len(got))
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for text, msg := range map[string]string{
		"a=1\nsecretvalue\n":   "f:2: want KEY=VALUE",
		"a=1\n=secretvalue\n":  "f:2: want KEY=VALUE",
		"a b=secretvalue\n":    "f:1: the key is not a valid Secret key",
		"a=1\na=secretvalue\n": `f:2: key "a" is given twice`,
		"a=\n":                 `f:1: key "a" has an empty value`,
		"a=''\n":               `f:1: key "a" has an empty value`,
	} {
		_, err := parseEnv("f", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), msg) || strings.Contains(err.Error(), "secretvalue") {
			t.Errorf("%q: %v, want %q", text, err, msg)
		}
	}
}

func TestParseMap(t *testing.T) {
	got, err := parseMap("f", []byte("a: 1\nb: true\nc: |\n  line1\n  line2\nd: &x v\ne: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "true", "c": "line1\nline2\n", "d": "v", "e": "v"}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// A Secret manifest: data decoded, stringData wins, as on the server.
	got, err = parseMap("f", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  a: b2xk\n  b: Yg==\nstringData:\n  a: new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got["a"]) != "new" || string(got["b"]) != "b" {
		t.Errorf("secret manifest: %q", got)
	}
	for text, msg := range map[string]string{
		"":                          "f: no credentials found",
		"secretvalue\n":             "f:1: not a map of KEY: VALUE",
		"a: 1\n---\nb: secretvalue": "f: holds more than one YAML document",
		"a: [secretvalue]\n":        `f:1: key "a": the value must be a string`,
		"a: ~\n":                    `f:1: key "a" has an empty value`,
		"a: 1\na: secretvalue\n":    `f:2: key "a" is given twice`,
		"a: 'secretvalue\n":         "f:2: not a valid YAML or JSON map of credentials",
		"{a: secretvalue\n":         "f:",
		"apiVersion: v1\nkind: Secret\ndata:\n  a: secretvalue!\n": `f:4: key "a": data values must be base64-encoded`,
		"apiVersion: v1\nkind: Secret\ndata: secretvalue\n":        "f:3: data must be a map",
		"apiVersion: v1\nkind: Secret\n":                           "f: the Secret has no data or stringData",
		"? [secretvalue]\n: x\n":                                   "f:1: the key is not a valid Secret key",
	} {
		_, err := parseMap("f", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), msg) || strings.Contains(err.Error(), "secretvalue") {
			t.Errorf("%q: %v, want %q", text, err, msg)
		}
	}
}

func TestReadFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kube := write("kubeconfig", "apiVersion: v1\n", 0o600)
	env := write("env", "a=1\n", 0o640)
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }

	c, err := (&CredentialFlags{EnvFile: env, FromFiles: []string{"kubeconfig=" + kube}}).Read(nil, warn)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Keys(), []string{"a", "kubeconfig"}) || string(c.Data()["kubeconfig"]) != "apiVersion: v1\n" {
		t.Errorf("got %v", c.Keys())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "mode 0640") {
		t.Errorf("warnings %q", warnings)
	}
	if c.Source != env+", "+kube {
		t.Errorf("source %q", c.Source)
	}

	c, err = (&CredentialFlags{Stdin: true}).Read(strings.NewReader("export x=1\n"), warn)
	if err != nil || string(c.Data()["x"]) != "1" {
		t.Errorf("stdin env: %v %v", c, err)
	}
	c, err = (&CredentialFlags{Stdin: true}).Read(strings.NewReader("x: a=b\n"), warn)
	if err != nil || string(c.Data()["x"]) != "a=b" {
		t.Errorf("stdin yaml: %v", err)
	}

	for _, tc := range []struct {
		flags CredentialFlags
		msg   string
	}{
		{CredentialFlags{File: env, EnvFile: env}, "pass only one of"},
		{CredentialFlags{FromFiles: []string{"kubeconfig"}}, `want KEY=FILE`},
		{CredentialFlags{FromFiles: []string{"bad key=" + kube}}, `"bad key" is not a valid Secret key`},
		{CredentialFlags{EnvFile: env, FromFiles: []string{"a=" + kube}}, `key "a" is given twice`},
		{CredentialFlags{FromFiles: []string{"k=" + write("empty", "", 0o600)}}, `credentials key "k" would be empty`},
		{CredentialFlags{File: dir}, "is a directory"},
		{CredentialFlags{File: write("comments", "# nothing\n", 0o600)}, "no credentials found"},
		{CredentialFlags{File: write("big", strings.Repeat("a", MaxCredentialsSize+1), 0o600)}, "larger than 1 MiB"},
	} {
		_, err := tc.flags.Read(nil, warn)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %q", tc.flags, err, tc.msg)
		}
	}
}
