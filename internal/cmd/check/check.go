// Package check is `butlerctl check` (also `butleradm check`): judge a tree of manifests,
// and a change to it, as the server would, offline, for CI (docs/ci-on-manifests.md).
package check

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/root"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what check prints: its report (docs/output.md).
var Spec = output.Spec{View: true}

// Report formats of --format, for the human output (-o table, the default).
const (
	FormatText   = "text"
	FormatGitHub = "github"
	FormatJUnit  = "junit"
)

// gitTimeout bounds the git commands that read --base.
const gitTimeout = time.Minute

// Options are the flags of check.
type Options struct {
	Manifests        []string
	Base             string
	BaseManifests    []string
	Format           string
	WarningsAsErrors bool
	Strict           bool
	StrictSource     string // where --strict came from, to name it as the user can type it
	Author           policy.Identity
	Print            *output.Flags
}

// NewCmd returns the command.
func NewCmd(f *factory.Factory) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "check [--manifests PATH]... [--base REF | --base-manifests PATH] [--as AUTHOR]",
		Short: "Check manifests, and a change to them, against the server's rules (for CI)",
		Long: `Judge a tree of Butler manifests as the server would, offline: every document decodes
strictly; every Team, ProviderConfig and ClusterCreationPolicy passes its own admission
rules; every TenantCluster passes the rules that do not depend on who asks, and every
aggregate cap holds (environment and team clusters, clusters per member, total nodes, CPU,
memory, storage, ProviderConfig limits); references resolve; no cluster carries the
migration annotation. The manifests are --manifests, or the current directory without it.
A directory with a kustomization.yaml is built as kubectl kustomize builds it; Flux
Kustomizations and Argo CD Applications of the repository are entry points, and each
management cluster they reconcile into is judged apart. Kustomize, Flux, Argo CD, sealed
secrets and Kubernetes kinds are recognised and counted, not judged; a document of an
unknown API group is a warning, an error with --strict.

With --base REF (a commit of the git repository the manifests are in, read without
checking it out; run from inside the repository) or --base-manifests PATH, it also judges
the change: every added, changed and deleted object as the server would judge that request
from the author (--as, --as-group), reading who the author is from the base.

Findings print grouped by file (--format text), as GitHub workflow annotations (--format
github) or as JUnit XML (--format junit); -o json or -o yaml print the report
(docs/output.md). Exit 0 when nothing would be refused (warnings allowed unless
--warnings-as-errors), 4 when something would be, 2 when the manifests cannot be read.`,
		Example: `  butlerctl check --manifests examples/payments
  butlerctl check --manifests clusters/ --base origin/main --as "$AUTHOR_EMAIL" --format github
  butlerctl check --manifests head/ --base-manifests base/ --as bob@example.com -o json`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(cmd, f); err != nil {
				return err
			}
			return run(cmd.Context(), f, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Base, "base", "", "Git revision of the base tree: also judge the change from it, as the author's requests")
	fl.StringArrayVar(&o.BaseManifests, "base-manifests", nil, "The base tree as manifests on disk (repeatable): also judge the change from it")
	fl.StringVar(&o.Format, "format", FormatText, "Report format with the default output: text, github (workflow annotations) or junit (XML)")
	fl.BoolVar(&o.WarningsAsErrors, "warnings-as-errors", false, "Exit 4 on warnings too")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]cobra.Completion{FormatText, FormatGitHub, FormatJUnit}, cobra.ShellCompDirectiveNoFileComp))
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// complete reads the global flags and checks the combinations; usage errors exit 2.
func (o *Options) complete(cmd *cobra.Command, f *factory.Factory) error {
	if err := o.Print.Validate(cmd); err != nil {
		return err
	}
	switch o.Format {
	case FormatText, FormatGitHub, FormatJUnit:
	default:
		return cmdutil.UsageError("--format: %q is not one of text, github, junit", o.Format)
	}
	if o.Format != FormatText && o.Print.Structured() {
		return cmdutil.UsageError("--format %s is a report of its own: it does not go with -o %s", o.Format, o.Print)
	}
	if o.Base != "" && len(o.BaseManifests) > 0 {
		return cmdutil.UsageError("--base and --base-manifests both name the base: give one")
	}
	o.Manifests = f.Options.Manifests
	if len(o.Manifests) == 0 {
		o.Manifests = []string{"."}
	}
	o.Strict = f.Options.Strict
	o.StrictSource = cmdutil.FlagSource(cmd.Flags(), root.StrictFlag)
	o.Author = policy.Identity{Username: f.Options.As, Groups: f.Options.AsGroups}
	if (o.Base != "" || len(o.BaseManifests) > 0) && o.Author.Username == "" {
		return cmdutil.UsageError("a change is judged as its author's requests: give --as AUTHOR (an e-mail) with --base or --base-manifests")
	}
	return nil
}

func run(ctx context.Context, f *factory.Factory, o *Options) error {
	report, err := judge(ctx, f.IOStreams.In, o)
	if err != nil {
		return err
	}
	if err := printReport(f, o, report); err != nil {
		return err
	}
	switch {
	case report.Unreadable:
		return &cmdutil.SilentError{Code: cmdutil.ExitUsage}
	case report.Errors > 0, o.WarningsAsErrors && report.Warnings > 0:
		return &cmdutil.SilentError{Code: cmdutil.ExitDenied}
	}
	return nil
}
