package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// WritableConfigPath is the config file a command writes: the one ConfigPath finds, else
// where ConfigPath would look first ($XDG_CONFIG_HOME/butler/config.yaml, else
// ~/.config/butler/config.yaml).
func WritableConfigPath(flagValue string) (string, error) {
	if p := ConfigPath(flagValue); p != "" {
		return p, nil
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "butler", "config.yaml"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no config file and no home directory to make one in: pass --config")
	}
	return filepath.Join(home, ".config", "butler", "config.yaml"), nil
}

// ReadConfigKeys reads the top-level string keys of the config file; a missing file has
// none.
func ReadConfigKeys(path string) (map[string]string, error) {
	b, err := fileio.ReadFile(path, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, UsageError("reading config %s: %v", path, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, UsageError("reading config %s: %v", path, err)
	}
	out := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out, nil
}

// SetConfigKeys sets top-level keys of the config file to values (removing those whose
// value is empty) and keeps every other key, with its comments, quoting, anchors and
// aliases. It takes the file's lock (FILE.lock, as kubectl does) over the read and the
// write, writes through a symlink to its file, and replaces that file atomically, keeping
// its mode, owner and group (a new one is 0600, as it may name identities); see fileio.
// A key whose value is an anchor that other keys use is not changed: the file is refused,
// naming the anchor, as no edit could keep both meanings.
func SetConfigKeys(path string, keys []string, values map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := fileio.Lock(context.Background(), []string{path}, fileio.LockTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := fileio.Open(path, 0o600, MaxConfigBytes)
	if err != nil {
		return UsageError("config %s: %v", path, err)
	}
	var doc yaml.Node
	if f.Exists {
		if err := yaml.Unmarshal(f.Orig, &doc); err != nil {
			return UsageError("reading config %s: %v", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return UsageError("config %s is not a mapping of keys", path)
	}
	for _, k := range keys {
		if err := setKey(&doc, root, k, values[k]); err != nil {
			return UsageError("config %s: %v; nothing was written (edit the file by hand)", path, err)
		}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if len(root.Content) > 0 || root.HeadComment != "" {
		if err := enc.Encode(&doc); err != nil {
			return err
		}
	}
	var check yaml.Node
	if err := yaml.Unmarshal(out.Bytes(), &check); err != nil {
		return UsageError("config %s: the edited file would not parse (%v); nothing was written", path, err)
	}
	return fileio.Commit([]fileio.Change{{File: f, Data: out.Bytes()}})
}

// setKey sets (or, with value "", removes) key in mapping m of doc. The value replaced
// must not be an anchor used elsewhere: its aliases would be left dangling, or change.
func setKey(doc, m *yaml.Node, key, value string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		old := m.Content[i+1]
		if old.Anchor != "" && aliased(doc, old) {
			return fmt.Errorf("the value of %s is the anchor &%s, which other keys use (*%s)", key, old.Anchor, old.Anchor)
		}
		if value == "" {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
		} else {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: scalarStyle(old)}
		}
		return nil
	}
	if value != "" {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: key},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	}
	return nil
}

// scalarStyle keeps the quoting of the value replaced.
func scalarStyle(old *yaml.Node) yaml.Style {
	if old.Kind == yaml.ScalarNode {
		return old.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	}
	return 0
}

// aliased reports whether an alias anywhere in n refers to target.
func aliased(n, target *yaml.Node) bool {
	if n.Kind == yaml.AliasNode && n.Alias == target {
		return true
	}
	for _, c := range n.Content {
		if aliased(c, target) {
			return true
		}
	}
	return false
}
