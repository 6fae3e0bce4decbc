package cmdutil

import (
	"bytes"
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
// value is empty) and
// keeps every other key, with its comments. The file is replaced atomically: a temporary
// file in the same directory, synced, renamed over it; it keeps its mode (a new one is
// 0600, as it may name identities).
func SetConfigKeys(path string, keys []string, values map[string]string) error {
	var doc yaml.Node
	mode := fs.FileMode(0o600)
	b, err := fileio.ReadFile(path, MaxConfigBytes)
	switch {
	case err == nil:
		if st, serr := os.Stat(path); serr == nil {
			mode = st.Mode().Perm()
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return UsageError("reading config %s: %v", path, err)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return UsageError("reading config %s: %v", path, err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return UsageError("config %s is not a mapping of keys", path)
	}
	for _, k := range keys {
		setKey(root, k, values[k])
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if len(root.Content) > 0 || root.HeadComment != "" {
		if err := enc.Encode(&doc); err != nil {
			return err
		}
	}
	return writeAtomic(path, out.Bytes(), mode)
}

func setKey(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		if value == "" {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
		} else {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
		}
		return
	}
	if value != "" {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: key},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	}
}

func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, mode)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
