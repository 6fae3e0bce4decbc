package edit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/iostreams"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// header opens the file the editor gets, as kubectl edit's does.
const header = `# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
`

// editor is the editor command from the environment.
type editor struct {
	argv []string
	set  bool // from $KUBE_EDITOR
}

// editorFromEnv is $KUBE_EDITOR, else $EDITOR, else vi, split at spaces ("code --wait").
func editorFromEnv() editor {
	if v := strings.Fields(os.Getenv("KUBE_EDITOR")); len(v) > 0 {
		return editor{argv: v, set: true}
	}
	if v := strings.Fields(os.Getenv("EDITOR")); len(v) > 0 {
		return editor{argv: v}
	}
	return editor{argv: []string{"vi"}}
}

// run runs the editor on file as a child of the command: on its streams, ended with the
// command's context (an interrupt, a deadline).
func (e editor) run(ios *iostreams.IOStreams) func(ctx context.Context, file string) error {
	return func(ctx context.Context, file string) error {
		cmd := exec.CommandContext(ctx, e.argv[0], append(e.argv[1:], file)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ios.In, ios.ErrOut, ios.ErrOut
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("editor %q: %w", strings.Join(e.argv, " "), err)
		}
		return nil
	}
}

// editable is the cluster as the editor shows it: what identifies it, its labels and
// annotations (which the edit must leave as they are), and its spec.
type editable struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec v1alpha1.TenantClusterSpec `json:"spec"`
}

func editableText(c *v1alpha1.TenantCluster) (string, error) {
	var e editable
	e.APIVersion, e.Kind = v1alpha1.GroupVersion.String(), v1alpha1.KindTenantCluster
	e.Metadata.Name, e.Metadata.Namespace = c.Name, c.Namespace
	e.Metadata.Labels, e.Metadata.Annotations = c.Labels, c.Annotations
	e.Spec = c.Spec
	j, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return "", err
	}
	// A quantity left out marshals as "0", which the edit would then write, and the CRD
	// refuses: what the document does not set stays out of the editor.
	if spec, ok := m["spec"].(map[string]any); ok {
		if w, ok := spec["workers"].(map[string]any); ok {
			mt, _ := w["machineTemplate"].(map[string]any)
			mt0 := c.Spec.Workers.MachineTemplate
			if mt0.Memory.IsZero() {
				delete(mt, "memory")
			}
			if mt0.DiskSize.IsZero() {
				delete(mt, "diskSize")
			}
			if len(mt) == 0 {
				delete(w, "machineTemplate")
			}
		}
	}
	b, err := yaml.Marshal(m)
	return string(b), err
}

// editInEditor is the edit with no flag: the cluster in the editor until the edit is
// written, cancelled (closed unchanged or empty), or saved again unchanged after an error
// (which then ends the command). The temporary file is removed in every case.
func editInEditor(ctx context.Context, j *judge) error {
	orig, err := editableText(j.cur)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "butler-edit-"+j.cur.Name+"-*.yaml")
	if err != nil {
		return err
	}
	file := f.Name()
	f.Close()
	defer os.Remove(file)
	text := header + orig
	var last error
	var lastBody string
	for {
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			return err
		}
		if err := j.o.Editor(ctx, file); err != nil {
			return err
		}
		b, err := fileio.ReadFile(file, manifest.DefaultMaxFileBytes)
		if err != nil {
			return err
		}
		edited := string(b)
		body := uncommented(edited)
		if strings.TrimSpace(body) == "" || body == uncommented(orig) {
			fmt.Fprintln(j.o.IO.ErrOut, "Edit cancelled, no changes made.")
			return nil
		}
		if last != nil && body == lastBody {
			fmt.Fprintln(j.o.IO.ErrOut, "Edit cancelled: saved again with the same error; nothing was written.")
			return last
		}
		spec, d, err := j.check(ctx, file, edited)
		if err == nil {
			return j.write(ctx, spec, d)
		}
		var refused *refusal
		if errors.As(err, &refused) {
			last = j.deny(refused.d)
		} else if last = err; !isBadInput(err) {
			return err // not the edit's fault (the store, the server): no point reopening
		}
		lastBody = body
		text = errorHeader(last) + withoutHeader(edited)
	}
}

// refusal is an edit the rules refuse.
type refusal struct{ d policy.Decision }

func (r *refusal) Error() string { return r.d.Err().Error() }

// isBadInput reports an error in what was typed: the editor reopens for it.
func isBadInput(err error) bool { return cmdutil.CodeOf(err) == cmdutil.ExitUsage }

// check reads the edited text (named file in its errors, at the line the parser stopped)
// as the one TenantCluster, checks that only its spec changed, and judges the spec.
func (j *judge) check(ctx context.Context, file, text string) (v1alpha1.TenantClusterSpec, policy.Decision, error) {
	var none v1alpha1.TenantClusterSpec
	objs, err := manifest.Decode(file, []byte(text))
	if err != nil {
		return none, policy.Decision{}, cmdutil.UsageError("%v", err)
	}
	if len(objs) != 1 {
		return none, policy.Decision{}, cmdutil.UsageError("%s: the edit must hold the one TenantCluster %q, found %d objects", file, j.cur.Name, len(objs))
	}
	c, ok := objs[0].Obj.(*v1alpha1.TenantCluster)
	if !ok {
		return none, policy.Decision{}, cmdutil.UsageError("%s: the edit holds a %s, not TenantCluster %q", file, objs[0].Kind, j.cur.Name)
	}
	if err := j.onlySpec(file, c); err != nil {
		return none, policy.Decision{}, err
	}
	d, err := j.decide(ctx, c.Spec)
	if err != nil {
		return none, policy.Decision{}, err
	}
	if !d.Allowed() {
		return none, d, &refusal{d: d}
	}
	return c.Spec, d, nil
}

// onlySpec refuses an edit of what cluster edit does not write: the name, the namespace,
// the labels and annotations.
func (j *judge) onlySpec(file string, c *v1alpha1.TenantCluster) error {
	var field string
	switch {
	case c.Name != j.cur.Name:
		field = "metadata.name"
	case c.Namespace != "" && c.Namespace != j.cur.Namespace:
		field = "metadata.namespace"
	case !equality.Semantic.DeepEqual(emptyNil(c.Labels), emptyNil(j.cur.Labels)):
		field = "metadata.labels"
	case !equality.Semantic.DeepEqual(emptyNil(c.Annotations), emptyNil(j.cur.Annotations)):
		field = "metadata.annotations"
	default:
		return nil
	}
	return cmdutil.UsageError("%s: tenantcluster %q: %s changed, and cluster edit changes the spec only", file, j.cur.Name, field)
}

func emptyNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// uncommented is text without its comment lines, for telling an edit from none.
func uncommented(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// withoutHeader is text without the comment lines it starts with (the header, an earlier
// error), so a reopened file carries one header.
func withoutHeader(text string) string {
	for strings.HasPrefix(text, "#") {
		_, rest, ok := strings.Cut(text, "\n")
		if !ok {
			return ""
		}
		text = rest
	}
	return text
}

// errorHeader is the header with err, each line a comment, as kubectl edit reopens a file.
func errorHeader(err error) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("# The edit could not be saved:\n")
	for _, l := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	b.WriteString("#\n")
	return b.String()
}
