// Package providerutil is what the provider commands share: reading credentials without
// ever echoing them, finding a ProviderConfig and the namespace it belongs in, who may
// change it offline, checking manifests, and printing objects with secret values redacted.
package providerutil

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Redacted stands for a secret value wherever one would be shown.
const Redacted = "<redacted>"

// MaxCredentialsSize is the most a Secret holds (1 MiB); larger input is refused unread.
const MaxCredentialsSize = 1 << 20

// Credentials are the key/value pairs of a provider's credentials Secret. They never
// print: every fmt verb and JSON give <redacted>, so a stray %v cannot leak them.
type Credentials struct {
	data map[string][]byte
	// Source names where they were read from ("creds.yaml", "standard input"), for messages.
	Source string
}

// Keys are the key names, sorted.
func (c *Credentials) Keys() []string {
	keys := make([]string, 0, len(c.data))
	for k := range c.data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Data is a copy of the values, for the store to write.
func (c *Credentials) Data() map[string][]byte {
	out := make(map[string][]byte, len(c.data))
	for k, v := range c.data {
		out[k] = bytes.Clone(v)
	}
	return out
}

// Format implements fmt.Formatter: whatever the verb, the values stay hidden.
func (c *Credentials) Format(f fmt.State, _ rune) { io.WriteString(f, Redacted) }

// MarshalJSON implements json.Marshaler the same way.
func (c *Credentials) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(Redacted)), nil }

// CredentialFlags are the ways to pass credentials. There is deliberately no flag that
// takes a value itself: values on a command line end up in shell history and ps.
type CredentialFlags struct {
	File      string
	EnvFile   string
	Stdin     bool
	FromFiles []string
	Out       string // --credentials-out: where the Secret goes when working on manifests
}

// AddFlags adds the flags.
func (c *CredentialFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.File, "credentials-file", "", "Credentials as a YAML or JSON map of KEY: VALUE (or a Secret manifest); keep it mode 0600")
	fs.StringVar(&c.EnvFile, "credentials-env-file", "", "Credentials as KEY=VALUE lines, read as kubectl create secret --from-env-file reads them (no quotes, no export); keep it mode 0600")
	fs.BoolVar(&c.Stdin, "credentials-stdin", false, "Read the credentials from standard input (YAML/JSON map or KEY=VALUE lines)")
	fs.StringArrayVar(&c.FromFiles, "credentials-from-file", nil, "One credential KEY=FILE, the value being the file's content, e.g. kubeconfig=harvester.yaml (repeatable)")
	fs.StringVar(&c.Out, OutFlag, "", "With --manifests: write the credentials Secret to this file (mode 0600, outside the manifests) to seal or encrypt; the manifests get no plain Secret")
}

// Given reports whether any credentials flag was used.
func (c *CredentialFlags) Given() bool {
	return c.File != "" || c.EnvFile != "" || c.Stdin || len(c.FromFiles) > 0
}

// Check rejects more than one map source (--credentials-from-file adds to any of them).
func (c *CredentialFlags) Check() error {
	n := 0
	for _, set := range []bool{c.File != "", c.EnvFile != "", c.Stdin} {
		if set {
			n++
		}
	}
	if n > 1 {
		return cmdutil.UsageError("pass only one of --credentials-file, --credentials-env-file and --credentials-stdin")
	}
	return nil
}

// Read reads the credentials; warn receives a warning for a credentials file that others
// may read. Errors name files, lines and key names, never a value.
func (c *CredentialFlags) Read(stdin io.Reader, warn func(string)) (*Credentials, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	creds := &Credentials{data: map[string][]byte{}}
	var sources []string
	switch {
	case c.File != "":
		b, err := readFile(c.File, warn)
		if err != nil {
			return nil, err
		}
		if creds.data, err = parseMap(c.File, b); err != nil {
			return nil, err
		}
		sources = append(sources, c.File)
	case c.EnvFile != "":
		b, err := readFile(c.EnvFile, warn)
		if err != nil {
			return nil, err
		}
		if creds.data, err = parseEnv(c.EnvFile, b); err != nil {
			return nil, err
		}
		sources = append(sources, c.EnvFile)
	case c.Stdin:
		if stdin == nil {
			return nil, cmdutil.UsageError("--credentials-stdin: there is no standard input to read")
		}
		b, err := fileio.ReadAll(stdin, MaxCredentialsSize)
		if errors.Is(err, fileio.ErrTooLarge) {
			return nil, cmdutil.UsageError("standard input: credentials larger than 1 MiB, the most a Secret holds")
		}
		if err != nil {
			return nil, cmdutil.UsageError("--credentials-stdin: %v", err)
		}
		const name = "standard input"
		if looksLikeEnv(b) {
			creds.data, err = parseEnv(name, b)
		} else {
			creds.data, err = parseMap(name, b)
		}
		if err != nil {
			return nil, err
		}
		sources = append(sources, name)
	}
	for _, kf := range c.FromFiles {
		key, path, ok := strings.Cut(kf, "=")
		if !ok || key == "" || path == "" {
			return nil, cmdutil.UsageError("--credentials-from-file %q: want KEY=FILE, e.g. kubeconfig=harvester.yaml", kf)
		}
		if !validKey(key) {
			return nil, cmdutil.UsageError("--credentials-from-file: %q is not a valid Secret key (letters, digits, '-', '_' and '.')", key)
		}
		if !knownKey(key) {
			return nil, cmdutil.UsageError("--credentials-from-file: %q is not a key any provider reads (%s)", key, strings.Join(knownKeys, ", "))
		}
		if _, dup := creds.data[key]; dup {
			return nil, cmdutil.UsageError("--credentials-from-file: key %q is given twice", key)
		}
		b, err := readFile(path, warn)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, cmdutil.UsageError("%s: credentials key %q would be empty: the file is empty", path, key)
		}
		creds.data[key] = b
		sources = append(sources, path)
	}
	if len(creds.data) == 0 {
		return nil, cmdutil.UsageError("%s: no credentials found", strings.Join(sources, ", "))
	}
	creds.Source = strings.Join(sources, ", ")
	return creds, nil
}

// readFile reads a credentials file: a regular file only (a FIFO or a device is refused,
// not waited on or read forever), at most MaxCredentialsSize bytes counted as they are
// read. It warns when group or others may read the file.
func readFile(path string, warn func(string)) ([]byte, error) {
	b, err := fileio.ReadFile(path, MaxCredentialsSize)
	switch {
	case errors.Is(err, fileio.ErrTooLarge):
		return nil, cmdutil.UsageError("%s: credentials larger than 1 MiB, the most a Secret holds", path)
	case err != nil:
		return nil, cmdutil.UsageError("credentials: %v", err)
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o044 != 0 && warn != nil {
		perm := fi.Mode().Perm()
		warn(fmt.Sprintf("warning: credentials file %s is group- or world-readable (mode %04o); run chmod 600 %s\n", path, perm, path))
	}
	return b, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// parseMap reads a YAML or JSON map of string values, or a Secret manifest (data
// base64-encoded, stringData plain). yaml's own messages are not shown, since some quote
// the text they stumbled on; only the line is.
func parseMap(name string, b []byte) (map[string][]byte, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, cmdutil.UsageError("%s: no credentials found", name)
		}
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			return nil, cmdutil.UsageError("%s:%s: not a valid YAML or JSON map of credentials", name, m[1])
		}
		return nil, cmdutil.UsageError("%s: not a valid YAML or JSON map of credentials", name)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, cmdutil.UsageError("%s: holds more than one YAML document; credentials are one map", name)
	}
	if len(doc.Content) == 0 {
		return nil, cmdutil.UsageError("%s: no credentials found", name)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, cmdutil.UsageError("%s:%d: not a map of KEY: VALUE (for KEY=VALUE lines use --credentials-env-file)", name, root.Line)
	}
	if isSecretManifest(root) {
		return secretData(name, root)
	}
	return stringMap(name, root, false)
}

func isSecretManifest(m *yaml.Node) bool {
	var api, kind string
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "apiVersion":
			api = m.Content[i+1].Value
		case "kind":
			kind = m.Content[i+1].Value
		}
	}
	return api == "v1" && kind == "Secret"
}

// secretData reads data and stringData of a Secret manifest; stringData wins, as on the
// server.
func secretData(name string, m *yaml.Node) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value != "data" && k.Value != "stringData" {
			continue
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		if v.Kind != yaml.MappingNode {
			return nil, cmdutil.UsageError("%s:%d: %s must be a map", name, v.Line, k.Value)
		}
		vals, err := stringMap(name, v, k.Value == "data")
		if err != nil {
			return nil, err
		}
		for key, val := range vals {
			out[key] = val
		}
	}
	if len(out) == 0 {
		return nil, cmdutil.UsageError("%s: the Secret has no data or stringData", name)
	}
	return out, nil
}

// stringMap reads a mapping of scalar values; b64 decodes them (a Secret's data).
func stringMap(name string, m *yaml.Node, b64 bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || !validKey(k.Value) {
			return nil, cmdutil.UsageError("%s:%d: the key is not a valid Secret key (letters, digits, '-', '_' and '.')", name, k.Line)
		}
		if !knownKey(k.Value) {
			return nil, errUnknownKey(name, k.Line)
		}
		key := k.Value
		if _, dup := out[key]; dup {
			return nil, cmdutil.UsageError("%s:%d: key %q is given twice", name, k.Line, key)
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			return nil, cmdutil.UsageError("%s:%d: key %q: the value must be a string (write a structured value such as a JSON key as a block scalar `%s: |`, or pass --credentials-from-file %s=FILE)", name, v.Line, key, key, key)
		}
		if v.Tag == "!!null" || v.Value == "" {
			return nil, cmdutil.UsageError("%s:%d: key %q has an empty value", name, v.Line, key)
		}
		val := []byte(v.Value)
		if b64 {
			dec, err := base64.StdEncoding.DecodeString(v.Value)
			if err != nil {
				return nil, cmdutil.UsageError("%s:%d: key %q: data values must be base64-encoded", name, v.Line, key)
			}
			if len(dec) == 0 {
				return nil, cmdutil.UsageError("%s:%d: key %q has an empty value", name, v.Line, key)
			}
			val = dec
		}
		out[key] = val
	}
	return out, nil
}
