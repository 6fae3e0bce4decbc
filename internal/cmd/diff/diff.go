// Package diff is `butlerctl diff` (also `butleradm diff`): the manifests against the live
// platform, as kubectl diff compares files with a cluster: what applying them would add
// and change, field by field, and the live objects they do not hold (drift).
package diff

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/livediff"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
)

// Spec is what diff prints: a unified diff by default, its list of changes with -o.
var Spec = output.Spec{}

// ExternalDiffEnv names the diff program in place of `diff -u -N`, as for kubectl diff.
const ExternalDiffEnv = "KUBECTL_EXTERNAL_DIFF"

// DefaultFieldManager is who the server's dry-run applies are sent as.
const DefaultFieldManager = "butlerctl"

// Options are what diff runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams (IO), the -o flags (Print) and the printer they choose
	// (Printer); diff reads manifests, and the platform through Connect: no store.
	factory.Deps[factory.NoStore]

	// Files are -f's files, directories or "-": compared as written.
	Files []string
	// Manifests are --manifests: the tree, rendered as its controllers apply it.
	Manifests []string
	Exclude   []string
	Namespace string
	// Target picks one management cluster of a tree with several (--target).
	Target       string
	FieldManager string
	// ExternalDiff is KUBECTL_EXTERNAL_DIFF: the program (and flags) to diff with.
	ExternalDiff string
	// Connect opens the live platform (--context, --kubeconfig) and returns how to talk
	// to it; never the manifests' store.
	Connect func(context.Context) (*rest.Config, func(), error)
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "diff (-f FILE|DIR|- | --manifests DIR) [--target NAME]",
		Short: "Show what applying the manifests would change on the live platform, and its drift",
		Long: `Compare Butler objects with the live platform (the cluster of --context or the current
kubeconfig context): -f FILE|DIR|- compares files as written; --manifests DIR compares the
tree as its controllers render it (kustomizations, Flux Kustomizations, Argo CD
Applications), one section per management cluster it targets (--target picks one).

Each object is sent to the server as a server-side apply with dryRun=All, as kubectl diff
--server-side does: nothing is stored, and the server's defaults, webhooks and validation
shape the result. The live object and that result are compared without the fields the
server sets for itself (managedFields, resourceVersion, uid, generation,
creationTimestamp, status). An object not live is added. With --manifests, a live object
of a kind the tree holds, in a namespace it holds it in (any, for a cluster-scoped kind),
that it does not hold is drift: created outside the repository (from the console, by
hand). Applying the tree does not delete it (a GitOps controller prunes only what it
applied), so it is not called deleted. -f compares its files' objects only.

Objects of other API groups (Kubernetes, Flux, Argo CD, sealed secrets) are not compared:
they are counted, and said on stderr.

The default output runs "diff -u -N" over two directories, LIVE and MERGED, one file per
object added or changed, then names each drifted object; KUBECTL_EXTERNAL_DIFF names
another program, split on spaces as kubectl splits it (its flags kept when they are
letters, digits, "-" and "=" only), run with the two directories after its flags.
-o json or yaml lists the changes: kind, name, namespace, change (added, changed or
drift) and the fields that differ.

Exit 0 when there are no differences, 1 when there are, and more than 1 on an error, as
kubectl diff.`,
		Example: `  butlerctl diff -f clusters/web.yaml
  butlerctl diff --manifests gitops/ --target mgmt-east -o json
  KUBECTL_EXTERNAL_DIFF="meld" butlerctl diff --manifests examples/payments`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitOf(factory.Run(cmd, args, f, o, runF, run))
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&o.Files, "filename", "f", nil, "A file, a directory (read recursively) or - for stdin, compared as written (repeatable)")
	fl.StringVar(&o.Target, "target", "", "With --manifests: the management cluster of the tree to compare (a Flux or Argo CD target); default: each, one section apiece")
	fl.StringVar(&o.FieldManager, "field-manager", DefaultFieldManager, "Who the server's dry-run applies are sent as")
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs: the streams and printer, the manifests,
// -n, KUBECTL_EXTERNAL_DIFF, and how to open the live platform (never the manifests' store:
// --manifests is what is compared). It reads nothing.
func (o *Options) Complete(f *factory.Factory, _ *cobra.Command, _ []string) error {
	o.Manifests, o.Exclude, o.Namespace = f.Options.Manifests, f.Options.Exclude, f.Options.Namespace
	o.ExternalDiff = os.Getenv(ExternalDiffEnv)
	opts := *f.Options
	opts.Manifests = nil
	lf := &factory.Factory{IOStreams: f.IOStreams, Options: &opts, Now: f.Now, NewStore: f.NewStore}
	o.Connect = func(ctx context.Context) (*rest.Config, func(), error) {
		closeIt := func() { _ = lf.Close() }
		s, err := lf.Store(ctx)
		if err != nil {
			closeIt()
			return nil, nil, err
		}
		srv, err := s.Server()
		if err != nil {
			closeIt()
			return nil, nil, err
		}
		return srv.Connection(), closeIt, nil
	}
	return nil
}

// Validate checks the flags before anything is read: one source of objects.
func (o *Options) Validate() error {
	switch {
	case len(o.Files) > 0 && len(o.Manifests) > 0:
		return cmdutil.UsageError("-f and --manifests both name what to compare: give one")
	case len(o.Files) == 0 && len(o.Manifests) == 0:
		return cmdutil.UsageError("nothing to compare: give -f FILE|DIR|- or --manifests DIR")
	case o.Target != "" && len(o.Manifests) == 0:
		return cmdutil.UsageError("--target picks a management cluster of a tree: it goes with --manifests")
	case o.FieldManager == "":
		return cmdutil.UsageError("--field-manager: empty")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	sections, err := o.load()
	if err != nil {
		return err
	}
	cfg, closeLive, err := o.Connect(ctx)
	if err != nil {
		return err
	}
	defer closeLive()
	d, err := livediff.New(cfg, o.FieldManager)
	if err != nil {
		return fmt.Errorf("reading the live platform: %w", err)
	}
	for i := range sections {
		s := &sections[i]
		// Drift is what a repository does not hold: a tree (--manifests) stands for one, a
		// few files (-f) do not, as kubectl diff shows no other objects without --prune.
		if s.changes, err = d.Compare(ctx, s.inputs, len(o.Manifests) > 0); err != nil {
			return err
		}
	}
	differ, err := o.print(ctx, sections)
	if err != nil {
		return err
	}
	if differ {
		return &cmdutil.SilentError{Code: cmdutil.ExitFailure}
	}
	return nil
}

// exitOf keeps exit 1 for differences, as kubectl diff: an error that would exit 1 exits 2
// (kubectl adds one to its errors' codes); the others keep theirs, all above 1.
func exitOf(err error) error {
	if err == nil {
		return nil
	}
	var silent *cmdutil.SilentError
	if errors.As(err, &silent) {
		return err
	}
	if cmdutil.CodeOf(err) == cmdutil.ExitFailure {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	return err
}
