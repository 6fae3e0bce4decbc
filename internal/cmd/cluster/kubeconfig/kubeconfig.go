// Package kubeconfig is `butlerctl cluster kubeconfig`: the admin kubeconfig of a tenant
// cluster, from its Secret on the management cluster.
package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/cluster/shared"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// Keys are the Secret keys tried, in order (the controller writes admin.conf; older
// Secrets have value).
var Keys = []string{"admin.conf", "value"}

// FileMode is the mode of a kubeconfig written with --file: it holds credentials.
const FileMode os.FileMode = 0o600

// Store is what cluster kubeconfig reads: the team and the cluster, and the server that
// holds the Secret.
type Store interface {
	store.Reader
	store.Served
}

var _ Store = store.Store(nil)

// Options are what cluster kubeconfig runs with: its flags and argument and, from
// Complete, its dependencies.
type Options struct {
	// ClusterOptions are NAME, --team and the dependencies, from Complete.
	shared.ClusterOptions[Store]

	File string

	Merge       bool
	ContextName string
	SetContext  bool
	Force       bool
}

// Spec: for people the kubeconfig as the Secret holds it; the structured formats print it
// parsed, as a computed view (-o jsonpath='{.clusters[0].cluster.server}'; docs/output.md).
var Spec = output.Spec{}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "kubeconfig NAME --team TEAM [--file PATH] [--merge [--context-name N] [--set-context] [--force]]",
		Short: "Print or save the admin kubeconfig of a tenant cluster",
		Long: `Print the admin kubeconfig of a tenant cluster, or write it to a file with --file (mode
0600, replacing what is there). It comes from the Secret the cluster's status names
(status.kubeconfigSecretRef), else <name>-admin-kubeconfig, in the cluster's tenant
namespace (status.tenantNamespace); key admin.conf, else value.

The kubeconfig holds credentials: it is written where you say and nowhere else, never into
a message or a log. Reading the Secret is up to the server's RBAC (exit 4 when refused). A
cluster without a tenant namespace yet (still provisioning), a missing Secret or a Secret
without either key is exit 3.

--merge adds the cluster to your kubeconfig instead: the first file of KUBECONFIG, else
~/.kube/config (or the file --file names), as one cluster, one user and one context all
named --context-name (default TEAM-NAME). The rest of the file stays byte for byte, comments
included; the file is replaced atomically (a temporary file beside it, synced, renamed over
it), keeping its mode (a new file is 0600). Entries of that name that belong to another
cluster (another server or CA) are refused unless --force; the same cluster's entries are
refreshed. --set-context makes it the current context. Only "merged context N into FILE" is
printed, never the credentials.

It needs a live management cluster: the Secret is not in the manifests (--manifests is a
usage error).`,
		Example: `  butlerctl cluster kubeconfig bob-checkout --team payments > bob-checkout.kubeconfig
  butlerctl cluster kubeconfig bob-checkout --team payments --file ~/.kube/bob-checkout
  butlerctl cluster kubeconfig bob-checkout --team payments --merge --set-context`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().StringVar(&o.File, "file", "", "Write the kubeconfig to this file (mode 0600) instead of stdout")
	o.TeamFlag(cmd)
	cmd.Flags().BoolVar(&o.Merge, "merge", false, "Merge into your kubeconfig (KUBECONFIG's first file, ~/.kube/config, or --file)")
	cmd.Flags().StringVar(&o.ContextName, "context-name", "", "With --merge: the name of the context, cluster and user (default TEAM-NAME)")
	cmd.Flags().BoolVar(&o.SetContext, "set-context", false, "With --merge: make it the current context")
	cmd.Flags().BoolVar(&o.Force, "force", false, "With --merge: replace entries of that name that belong to another cluster")
	return cmd
}

// Complete checks the flags before anything is read.
func (o *Options) Complete(_ *factory.Factory, cmd *cobra.Command, _ []string) error {
	if cmdutil.IsSet(cmd.Flags(), "file") && o.File == "" {
		return cmdutil.UsageError("--file needs a PATH")
	}
	return o.validateMerge(cmd)
}

func run(ctx context.Context, o *Options) error {
	if o.Offline {
		return cmdutil.UsageError("cluster kubeconfig needs a live management cluster: the admin kubeconfig is a Secret there, not in the manifests")
	}
	s, _, c, err := o.Cluster(ctx)
	if err != nil {
		return err
	}
	cs, err := s.Server()
	if err != nil {
		return err
	}
	ns, name := SecretRef(c)
	if ns == "" {
		msg := fmt.Sprintf("TenantCluster %s/%s has no tenant namespace yet", c.Namespace, c.Name)
		if c.Status.Phase != "" {
			msg += fmt.Sprintf(" (phase %s)", c.Status.Phase)
		}
		return cmdutil.NotFoundError("%s", msg)
	}
	_, value, err := cs.SecretValue(ctx, ns, name, Keys...)
	switch {
	case apierrors.IsNotFound(err):
		return cmdutil.NotFoundError("the admin kubeconfig of TenantCluster %s/%s is not there: Secret %s/%s not found", c.Namespace, c.Name, ns, name)
	case errors.Is(err, store.ErrNoSecretKey):
		return cmdutil.NotFoundError("the admin kubeconfig of TenantCluster %s/%s is not there: Secret %s/%s has no key admin.conf or value", c.Namespace, c.Name, ns, name)
	case err != nil:
		return err
	}
	if o.Merge {
		return merge(o, c, value)
	}
	if o.File == "" {
		return printKubeconfig(o, value)
	}
	if err := writeFile(o.File, value); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Wrote the admin kubeconfig of TenantCluster %s/%s to %s\n", c.Namespace, c.Name, o.File)
	return nil
}

// printKubeconfig writes the kubeconfig to stdout: as it is for people, parsed for programs.
func printKubeconfig(o *Options, value []byte) error {
	d := output.Doc{One: true, Text: func(w io.Writer) error {
		_, err := w.Write(value)
		return err
	}}
	if o.Print.Structured() {
		var view map[string]any
		// Not the parser's error: it may quote the credentials.
		if yaml.Unmarshal(value, &view) != nil {
			return errors.New("the admin kubeconfig in the Secret is not YAML")
		}
		d.View = view
	}
	return o.Printer.Print(d)
}

// SecretRef is where a cluster's admin kubeconfig is: the namespace (empty while the
// cluster has no tenant namespace) and the Secret's name.
func SecretRef(c *v1alpha1.TenantCluster) (namespace, name string) {
	name = c.Name + "-admin-kubeconfig"
	if r := c.Status.KubeconfigSecretRef; r != nil && r.Name != "" {
		name = r.Name
	}
	return c.Status.TenantNamespace, name
}

// writeFile writes data to path with FileMode, also when the file exists with a wider
// mode, under the file's kubeconfig lock; through fileio, so only a regular file (or a
// new one) is written, never a device or FIFO, whose mode stays as it is.
func writeFile(path string, data []byte) error {
	unlock, err := fileio.Lock(context.Background(), []string{path}, LockTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	fh, err := fileio.Open(path, FileMode, 0)
	if err != nil {
		return err
	}
	fh.Mode = FileMode
	return fileio.Commit([]fileio.Change{{File: fh, Data: data}})
}

// validateMerge checks that the merge flags come with --merge, and -o without it.
func (o *Options) validateMerge(cmd *cobra.Command) error {
	if !o.Merge {
		for _, n := range []string{"context-name", "set-context", "force"} {
			if cmdutil.IsSet(cmd.Flags(), n) {
				return cmdutil.UsageError("--%s goes with --merge", n)
			}
		}
		return nil
	}
	if o.Print.Structured() {
		return cmdutil.UsageError("--merge prints no kubeconfig: -o does not apply")
	}
	if cmdutil.IsSet(cmd.Flags(), "context-name") && strings.TrimSpace(o.ContextName) == "" {
		return cmdutil.UsageError("--context-name needs a name")
	}
	return nil
}

// merge merges the admin kubeconfig into the user's kubeconfig and says so, without the
// credentials.
func merge(o *Options, c *v1alpha1.TenantCluster, value []byte) error {
	name := strings.TrimSpace(o.ContextName)
	if name == "" {
		name = o.Team + "-" + c.Name
	}
	path := MergeTarget(o.File)
	changed, err := MergeInto(path, value, Merge{Name: name, SetCurrent: o.SetContext, Force: o.Force})
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("merged context %q into %s", name, path)
	if !changed {
		msg = fmt.Sprintf("context %q in %s is up to date", name, path)
	}
	if o.SetContext {
		msg += " (current context)"
	}
	fmt.Fprintln(o.IO.Out, msg)
	return nil
}
