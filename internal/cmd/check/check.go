// Package check is `butlerctl check` (also `butleradm check`): judge a tree of manifests,
// and a change to it, as the server would, offline, for CI (docs/ci-on-manifests.md).
package check

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/checkreport"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/memlimit"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gate"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Spec is what check prints: its report (docs/output.md).
var Spec = output.Spec{View: true}

// Report formats of --format, for the human output (-o table, the default).
const (
	FormatText     = checkreport.Text
	FormatGitHub   = checkreport.GitHub
	FormatJUnit    = checkreport.JUnit
	FormatSARIF    = checkreport.SARIF
	FormatMarkdown = checkreport.Markdown
)

// Options are what check runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams (IO), the -o flags (Print) and the printer they choose
	// (Printer); check reads manifests, and the platform through Live: no store.
	factory.Deps[factory.NoStore]

	Manifests        []string
	Exclude          []string // --exclude: paths below a directory of Manifests left out
	Base             string
	BaseManifests    []string
	Format           string
	WarningsAsErrors bool
	Strict           bool
	StrictSource     string // where --strict came from, to name it as the user can type it
	Author           policy.Identity

	// Applier is who the server sees apply the change (--applier, --applier-group);
	// empty: the author, by hand. WholePlatform (--complete) declares the tree the whole
	// platform.
	Applier       policy.Identity
	WholePlatform bool
	AuthorMap     string
	FailOn        string
	// Sources are Flux GitRepositories (NAMESPACE/NAME) that are this repository (--source).
	Sources []string
	// Live reads the platform's objects (--context or --kubeconfig); nil offline.
	Live gate.Platform
}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "check [--manifests PATH]... [--base REF | --base-manifests PATH] [--as AUTHOR]",
		Short: "Check manifests, and a change to them, against the server's rules (for CI)",
		Long: `Judge a tree of Butler manifests as the server would, offline: every document decodes
strictly; every Team, ProviderConfig and ClusterCreationPolicy passes its own admission
rules; every TenantCluster passes the rules that do not depend on who asks, and every
aggregate cap holds (environment and team clusters, clusters per member, total nodes, CPU,
memory, storage, ProviderConfig limits); references resolve; no cluster carries the
migration annotation. The manifests are --manifests, or the current directory without it;
--exclude and a directory's .butlerignore (.gitignore's syntax) leave paths out, unread.
A directory with a kustomization.yaml is built as kubectl kustomize builds it; Flux
Kustomizations and Argo CD Applications of the repository are entry points, and each
management cluster they reconcile into is judged apart. Kustomize, Flux, Argo CD, sealed
secrets and Kubernetes kinds are recognised and counted, not judged; a document of an
unknown API group, and YAML that is not Kubernetes (a mapping with no apiVersion, kind or
metadata: .pre-commit-config.yaml, docker-compose.yml, Helm values), are counted and a
warning each, an error with --strict.

With --base REF (a commit of the git repository the manifests are in, read without
checking it out; run from inside the repository) or --base-manifests PATH, it also judges
the change, every added, changed and deleted object, as two identities: the server's rules
judge the applier (--applier, --applier-group: the GitOps controller's ServiceAccount; by
default the author, applying by hand) with the server's messages; the gate's own rules
(author-*) judge the author (--as, --as-group; --author-map maps CI logins to e-mails), with
roles read from the base only (docs/rules.md §13). A change never chooses how it is
judged: with --base, the author map, the config file and each .butlerignore, when they
are files of the repository, are read as the base holds them, and with either base,
fields are left unjudged only when the base's CustomResourceDefinitions declare them. A reference the
manifests do not resolve is "not judged", a warning, unless --complete declares them the
whole platform.

Findings print grouped by file (--format text), as GitHub workflow annotations (--format
github), as JUnit XML (--format junit), as SARIF 2.1.0 (--format sarif) or as a pull
request summary (--format markdown); -o json or -o yaml print the report (docs/output.md).
Exit 0 when nothing would be refused (warnings allowed unless --fail-on warning), 4 when
something would be, 2 when the manifests cannot be read.`,
		Example: `  butlerctl check --manifests examples/payments
  butlerctl check --manifests clusters/ --base origin/main --as "$AUTHOR_EMAIL" --format github
  butlerctl check --manifests clusters/ --base origin/main --as octocat --author-map authors.yaml \
    --applier system:serviceaccount:flux-system:kustomize-controller --format sarif
  butlerctl check --manifests head/ --base-manifests base/ --as bob@example.com -o json`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := configFromBase(cmd, f.Options, o.Base, f.IOStreams.ErrOut); err != nil {
				return err
			}
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Base, "base", "", "Git revision of the base tree: also judge the change from it, as the author's requests")
	fl.StringArrayVar(&o.BaseManifests, "base-manifests", nil, "The base tree as manifests on disk (repeatable): also judge the change from it")
	fl.StringVar(&o.Format, "format", FormatText, "Report format with the default output: text, github (workflow annotations), junit (XML), sarif (SARIF 2.1.0, for code scanning) or markdown (a pull request summary)")
	fl.StringVar(&o.FailOn, "fail-on", "error", "Exit 4 on findings of this severity or worse: error or warning")
	fl.BoolVar(&o.WarningsAsErrors, "warnings-as-errors", false, "Exit 4 on warnings too")
	fl.StringVar(&o.Applier.Username, "applier", "", "Who the server sees apply the change (the GitOps controller's ServiceAccount, system:serviceaccount:NS:NAME); default: the author, applying by hand")
	fl.StringArrayVar(&o.Applier.Groups, "applier-group", nil, "A group of the applier (repeatable)")
	fl.StringVar(&o.AuthorMap, "author-map", "", "YAML file mapping CI logins to the e-mails the Team objects use (login: e-mail); --as is looked up in it. With --base, a file of the repository is read as the base holds it")
	fl.BoolVar(&o.WholePlatform, "complete", false, "The manifests are the whole platform: a reference they do not resolve is an error, not \"not judged\"")
	fl.StringArrayVar(&o.Sources, "source", nil, "A Flux GitRepository that is this repository, NAMESPACE/NAME (repeatable), besides the one the bootstrap sync (flux-system) points at and those whose URL is a git remote's of the repository: Flux Kustomizations of other sources are not rendered")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]cobra.Completion{FormatText, FormatGitHub, FormatJUnit, FormatSARIF, FormatMarkdown}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]cobra.Completion{"error", "warning"}, cobra.ShellCompDirectiveNoFileComp))
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	return cmd
}

// Complete takes from the Factory what run needs: the streams and printer, the manifests
// (the current directory without --manifests), --strict, the author (--as, --as-group),
// and, with --context or --kubeconfig, how to read the platform. It reads nothing.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Manifests = f.Options.Manifests
	if len(o.Manifests) == 0 {
		o.Manifests = []string{"."}
	}
	o.Strict = f.Options.Strict
	o.Exclude = f.Options.Exclude
	o.Author = policy.Identity{Username: f.Options.As, Groups: f.Options.AsGroups}
	if f.Options.Context != "" || f.Options.Kubeconfig != "" {
		// The platform is read, so a reference neither it nor the tree resolves is missing.
		// Read as the caller of --context or --kubeconfig, never impersonating the author.
		opts := *f.Options
		opts.Manifests, opts.As, opts.AsGroups, opts.AsSource = nil, "", nil, ""
		o.Live = &platform{f: &factory.Factory{IOStreams: f.IOStreams, Options: &opts, Now: f.Now, NewStore: f.NewStore}}
		o.WholePlatform = true
	}
	o.WarningsAsErrors = o.WarningsAsErrors || o.FailOn == "warning"
	o.StrictSource = cmdutil.FlagSource(cmd.Flags(), factory.StrictFlag)
	return nil
}

// Validate checks the flags and their combinations before anything is read; usage errors
// exit 2.
func (o *Options) Validate() error {
	switch o.Format {
	case FormatText, FormatGitHub, FormatJUnit, FormatSARIF, FormatMarkdown:
	default:
		return cmdutil.UsageError("--format: %q is not one of text, github, junit, sarif, markdown", o.Format)
	}
	switch o.FailOn {
	case "error", "warning":
	default:
		return cmdutil.UsageError("--fail-on: %q is not one of error, warning", o.FailOn)
	}
	if o.Format != FormatText && o.Print.Structured() {
		return cmdutil.UsageError("--format %s is a report of its own: it does not go with -o %s", o.Format, o.Print)
	}
	if err := validSources(o.Sources); err != nil {
		return err
	}
	if o.Base != "" && len(o.BaseManifests) > 0 {
		return cmdutil.UsageError("--base and --base-manifests both name the base: give one")
	}
	if (o.Base != "" || len(o.BaseManifests) > 0) && o.Author.Username == "" {
		return cmdutil.UsageError("a change is judged as its author's requests: give --as AUTHOR (an e-mail) with --base or --base-manifests")
	}
	return nil
}

// mapAuthorFlag looks --as up in --author-map, and says so on stderr when it maps. Under
// --base, a map in the repository is the base's copy (gate.BaseCopy).
func (o *Options) mapAuthorFlag(ctx context.Context) error {
	if o.AuthorMap == "" {
		return nil
	}
	m, err := o.authorMap(ctx)
	if err != nil || m == nil {
		return err
	}
	if email, ok := mapAuthor(m, o.Author.Username); ok {
		fmt.Fprintf(o.IO.ErrOut, "%s\n", describeMapping(o.Author.Username, email))
		o.Author.Username = email
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	if err := o.mapAuthorFlag(ctx); err != nil {
		return err
	}
	if o.Base == "" && len(o.BaseManifests) == 0 {
		// A state check keeps small records of a plain tree's clusters (gate): the
		// collector's headroom and freed pages would then be most of its memory.
		memlimit.Follow(32<<20, 8<<20, 1.5)
	}
	report, err := judge(ctx, o.IO.In, o)
	if err != nil {
		return err
	}
	if err := printReport(o, report); err != nil {
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

// judge runs the check the flags ask for (gate.Run); an error of the input exits 2.
func judge(ctx context.Context, stdin io.Reader, o *Options) (*check.Report, error) {
	req := gate.Request{
		Head:    gate.Source{Paths: o.Manifests, Stdin: stdin},
		Base:    gate.Source{Revision: o.Base, Paths: o.BaseManifests, Stdin: stdin},
		Author:  o.Author,
		Applier: o.Applier,
		Live:    o.Live,
		Options: gate.Options{Exclude: o.Exclude, Sources: o.Sources, Strict: o.Strict, Complete: o.WholePlatform, Messages: o.IO.ErrOut},
	}
	switch o.StrictSource {
	case cmdutil.SourceEnv:
		req.StrictFrom = gate.StrictFromEnv
	case cmdutil.SourceConfig:
		req.StrictFrom = gate.StrictFromConfig
	}
	r, err := gate.Run(ctx, req)
	if errors.Is(err, gate.ErrBadInput) {
		return nil, storeerr.BadInput(err)
	}
	return r, err
}

// printReport prints the report: -o json|yaml its view, else the --format report.
func printReport(o *Options, r *check.Report) error {
	text := func(w io.Writer) error { return checkreport.Write(w, o.Format, r, o.IO.Width()) }
	return o.Printer.Print(output.Doc{One: true, Items: []output.Item{{View: r}}, Text: text})
}
