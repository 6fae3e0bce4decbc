package livediff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// externalArg is what kubectl keeps of KUBECTL_EXTERNAL_DIFF's words after the program:
// letters, digits, "-" and "=" (a flag, never a path or a shell word).
var externalArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`)

// Command is the diff program and its arguments for the directories from and to, as
// kubectl diff builds it: without external, diff -u -N from to; with it, its first word
// (split on single spaces) is the program, from and to come next, then the words after
// the first that externalArg accepts.
func Command(external, from, to string) (string, []string) {
	if external == "" {
		return "diff", []string{"-u", "-N", from, to}
	}
	words := strings.Split(external, " ")
	args := []string{from, to}
	for _, w := range words[1:] {
		if externalArg.MatchString(w) {
			args = append(args, w)
		}
	}
	return words[0], args
}

// Dirs are the two directories a diff program compares: LIVE holds the live objects,
// MERGED what applying the manifests would make them, one file per object named
// group.version.kind.namespace.name as kubectl names them.
type Dirs struct {
	Live, Merged string
}

// WriteDirs writes each change's live and merged object (those it has) into two new
// temporary directories; Remove removes them.
func WriteDirs(changes []Change) (d Dirs, err error) {
	if d.Live, err = os.MkdirTemp("", "LIVE-"); err != nil {
		return d, err
	}
	if d.Merged, err = os.MkdirTemp("", "MERGED-"); err != nil {
		d.Remove()
		return d, err
	}
	for _, c := range changes {
		name := FileName(c)
		if err := writeYAML(filepath.Join(d.Live, name), c.Live); err != nil {
			d.Remove()
			return d, err
		}
		if err := writeYAML(filepath.Join(d.Merged, name), c.Merged); err != nil {
			d.Remove()
			return d, err
		}
	}
	return d, nil
}

// Remove removes both directories.
func (d Dirs) Remove() {
	for _, p := range []string{d.Live, d.Merged} {
		if p != "" {
			_ = os.RemoveAll(p)
		}
	}
}

// FileName is the name of c's file in both directories, kubectl's: group., then
// version.kind.namespace.name.
func FileName(c Change) string {
	group := ""
	if c.GVK.Group != "" {
		group = c.GVK.Group + "."
	}
	return fmt.Sprintf("%s%s.%s.%s.%s", group, c.GVK.Version, c.GVK.Kind, c.Namespace, c.Name)
}

// writeYAML writes u as YAML, which quotes control characters ("\e[2J"): text of the
// manifests or the server reaches the terminal through the diff program inert.
func writeYAML(path string, u *unstructured.Unstructured) error {
	if u == nil {
		return nil // diff -N takes a missing file as empty
	}
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// Run runs the diff program over d, its output to out and errOut, ended with ctx. It
// reports whether the program found differences (exit 1, diff's convention, which
// KUBECTL_EXTERNAL_DIFF's program is expected to follow); any other failure is an error.
func Run(ctx context.Context, external string, d Dirs, out, errOut io.Writer) (bool, error) {
	prog, args := Command(external, d.Live, d.Merged)
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return true, nil
	}
	return false, fmt.Errorf("failed to run %q: %w", prog, err)
}
