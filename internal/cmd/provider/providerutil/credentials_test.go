package providerutil

import (
	"bytes"
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

// The env-file format is kubectl create secret --from-env-file's: values verbatim (quotes,
// inner and trailing blanks kept), leading blanks and a BOM dropped, CRLF read as LF.
// Errors name the line and never a value, nor a key that is not a credentials key: a
// wrapped line holding "=" is refused, not turned into a key.
func TestParseEnv(t *testing.T) {
	in := "\ufeff# comment\r\n\r\n  username=root@pam\r\npassword=\"two words\" \ntoken='x=y'\n"
	got, err := parseEnv("f", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"username": "root@pam", "password": `"two words" `, "token": "'x=y'"}
	if len(got) != len(want) {
		t.Fatalf("got %d keys", len(got))
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for text, msg := range map[string]string{
		"password=1\nsecretvalue\n":                 "f:2: want KEY=VALUE",
		"password=1\n=secretvalue\n":                "f:2: want KEY=VALUE",
		"pass word=secretvalue\n":                   "f:1: the key is not a valid Secret key",
		"1password=secretvalue\n":                   "f:1: the key is not a valid Secret key",
		"password=abc\nsecretvalue=more\n":          "f:2: not a key any provider reads (",
		"secretvalue: x\n":                          "f:1: want KEY=VALUE",
		"export password=secretvalue\n":             `f:1: "export" is not part of the format`,
		"password=1\npassword=secretvalue\n":        `f:2: key "password" is given twice`,
		"password=\n":                               `f:1: key "password" has an empty value`,
		"password=secretvalue\n\xffsecretvalue=1\n": "f:2: not valid UTF-8 text",
	} {
		_, err := parseEnv("f", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), msg) || strings.Contains(err.Error(), "secretvalue") {
			t.Errorf("%q: %v, want %q", text, err, msg)
		}
	}
}

func TestParseMap(t *testing.T) {
	got, err := parseMap("f", []byte("username: 1\npassword: true\nkubeconfig: |\n  line1\n  line2\ntoken: &x v\nclientID: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"username": "1", "password": "true", "kubeconfig": "line1\nline2\n", "token": "v", "clientID": "v"}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// A Secret manifest: data decoded, stringData wins, as on the server.
	got, err = parseMap("f", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  username: b2xk\n  password: Yg==\nstringData:\n  username: new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got["username"]) != "new" || string(got["password"]) != "b" {
		t.Errorf("secret manifest: %q", got)
	}
	for text, msg := range map[string]string{
		"":                                     "f: no credentials found",
		"secretvalue\n":                        "f:1: not a map of KEY: VALUE",
		"token: 1\n---\npassword: secretvalue": "f: holds more than one YAML document",
		"token: [secretvalue]\n":               `f:1: key "token": the value must be a string`,
		"token: ~\n":                           `f:1: key "token" has an empty value`,
		"token: 1\ntoken: secretvalue\n":       `f:2: key "token" is given twice`,
		"token: 'secretvalue\n":                "f:2: not a valid YAML or JSON map of credentials",
		"{token: secretvalue\n":                "f:",
		"token: 1\nsecretvalue: [x]\n":         "f:2: not a key any provider reads",
		"apiVersion: v1\nkind: Secret\ndata:\n  token: secretvalue!\n": `f:4: key "token": data values must be base64-encoded`,
		"apiVersion: v1\nkind: Secret\ndata: secretvalue\n":            "f:3: data must be a map",
		"apiVersion: v1\nkind: Secret\n":                               "f: the Secret has no data or stringData",
		"? [secretvalue]\n: x\n":                                       "f:1: the key is not a valid Secret key",
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
	env := write("env", "token=1\n", 0o640)
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }

	c, err := (&CredentialFlags{EnvFile: env, FromFiles: []string{"kubeconfig=" + kube}}).Read(nil, warn)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Keys(), []string{"kubeconfig", "token"}) || string(c.Data()["kubeconfig"]) != "apiVersion: v1\n" {
		t.Errorf("got %v", c.Keys())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "mode 0640") {
		t.Errorf("warnings %q", warnings)
	}
	if c.Source != env+", "+kube {
		t.Errorf("source %q", c.Source)
	}

	c, err = (&CredentialFlags{Stdin: true}).Read(strings.NewReader("token=1\n"), warn)
	if err != nil || string(c.Data()["token"]) != "1" {
		t.Errorf("stdin env: %v %v", c, err)
	}
	c, err = (&CredentialFlags{Stdin: true}).Read(strings.NewReader("token: a=b\n"), warn)
	if err != nil || string(c.Data()["token"]) != "a=b" {
		t.Errorf("stdin yaml: %v", err)
	}

	for _, tc := range []struct {
		flags CredentialFlags
		msg   string
	}{
		{CredentialFlags{File: env, EnvFile: env}, "pass only one of"},
		{CredentialFlags{FromFiles: []string{"kubeconfig"}}, `want KEY=FILE`},
		{CredentialFlags{FromFiles: []string{"bad key=" + kube}}, `"bad key" is not a valid Secret key`},
		{CredentialFlags{EnvFile: env, FromFiles: []string{"token=" + kube}}, `key "token" is given twice`},
		{CredentialFlags{FromFiles: []string{"extra=" + kube}}, `"extra" is not a key any provider reads`},
		{CredentialFlags{FromFiles: []string{"token=" + write("empty", "", 0o600)}}, `credentials key "token" would be empty`},
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

// NewCredentials wraps data, as reading them would.
func NewCredentials(source string, data map[string][]byte) *Credentials {
	c := &Credentials{data: map[string][]byte{}, Source: source}
	for k, v := range data {
		c.data[k] = bytes.Clone(v)
	}
	return c
}
