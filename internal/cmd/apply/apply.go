// Package apply is `butlerctl apply -f` (TenantClusters) and `butleradm apply -f` (Teams,
// ClusterCreationPolicies, ProviderConfigs): objects from files, each judged by the full
// preflight as a create or an update, then server-side applied, or, on manifests, written
// into the tree.
package apply

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/apply/applyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
)

// Spec is what apply prints: the objects as applied; people get kubectl's line for each.
var Spec = output.Spec{Objects: true, Name: true}

// Store is what apply reads and writes: the teams, clusters, caller and what the rules
// read (store.Reader), the applies, and the store's kind for where a write went.
type Store interface {
	store.Reader
	store.ClusterApplier
	store.ObjectApplier
	store.Kinded
	// SecretKeys is the key names of a credentials Secret (butleradm's ProviderConfigs).
	SecretKeys(ctx context.Context, namespace, name string) ([]string, error)
}

var _ Store = store.Store(nil)

// DefaultConcurrency is how many objects are sent at once live, by default: enough that
// the server, not the round trip, is the bound; more only queues in the API server (on the
// test control plane 2 at once did as well as 16, and 16 did worse under load).
// MaxConcurrency bounds --concurrency.
const (
	DefaultConcurrency = 4
	MaxConcurrency     = 64
)

// Options are what apply runs with: its flags and, from Complete, its dependencies.
type Options struct {
	factory.Deps[Store]
	applyutil.ReadOptions
	// Binary is which binary's apply this is: the kinds it takes.
	Binary applyutil.Binary
	// Offline is true on manifests; ManifestsStdin when they come from stdin.
	Offline, ManifestsStdin bool

	FieldManager   string
	ForceConflicts bool
	Concurrency    int
}

// NewCmd returns apply for the binary b; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, b applyutil.Binary, runF func(*Options) error) *cobra.Command {
	o := &Options{Binary: b}
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR|- [-R] [-l SELECTOR] [--dry-run=client|server]",
		Short: short(b),
		Long: `Apply Butler objects from files, a directory or stdin, as kubectl apply --server-side does.

Every object is judged first, as the other commands judge it: a create when no object of its
namespace and name exists, else an update of it with the fields of the file merged over it,
with the caller's role and every admission rule the server applies. The preflight is all or
nothing: when it refuses any object, nothing is applied, every refusal is printed with the
server's message, and the exit status is 4.

Live, each object is then sent as a server-side apply under --field-manager. A field another
manager owns is a conflict, reported with the managers and fields, exit 1: --force-conflicts
takes the fields over. On manifests (--manifests DIR) the objects are written into the tree
instead: an object that exists is edited in place, keeping comments; a new one goes into a
new file, named in the output; all files or none.`,
		Example: example(b),
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	cmdutil.Details(cmd, details(b))
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	fl := cmd.Flags()
	fl.StringArrayVarP(&o.Files, "filename", "f", nil, "A file, a directory or - for stdin holding the objects (repeatable)")
	fl.BoolVarP(&o.Recursive, "recursive", "R", false, "Read the directories of -f recursively")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Apply only the objects whose labels match this selector (e.g. env=dev,tier!=db)")
	factory.AddDryRun(cmd, f)
	fl.StringVar(&o.FieldManager, "field-manager", b.Name, "The name the server records as the manager of the fields applied")
	fl.BoolVar(&o.ForceConflicts, "force-conflicts", false, "Take over the fields other managers own instead of a conflict")
	o.Concurrency = DefaultConcurrency
	if b.Name == applyutil.Developer.Name {
		// Operator objects go one at a time, in order: a policy may name a team the batch creates.
		fl.IntVar(&o.Concurrency, "concurrency", DefaultConcurrency, fmt.Sprintf("Live: how many objects are sent at once (1 to %d)", MaxConcurrency))
	}
	return cmd
}

// details is the help's second part: where objects go and what the dry runs do.
func details(b applyutil.Binary) string {
	where := `An object without a namespace goes into its team's
(spec.teamRef); one in another namespace is refused.`
	if b.Name == applyutil.Operator.Name {
		where = `Teams and ClusterCreationPolicies have no
namespace; a ProviderConfig goes into its home namespace (butler-system, or its team's when
team-scoped), and one in another is refused. Each kind is judged as its command judges it:
a Team as team create and the team edits (limits by platform admins only), a policy as
policy create and update, a ProviderConfig as provider create. Credentials are never
applied from files: a ProviderConfig whose credentials Secret does not exist is refused
(provider create and provider rotate-credentials write credentials), and Secrets in the
files are refused. The objects are sent one at a time, in their order.`
	}
	return `A directory gives its .yaml, .yml and .json files; -R also those of its subdirectories.
-l keeps the objects whose labels match. ` + where + `

--dry-run=client prints what would be applied (on manifests: written, and to which file)
and sends and writes nothing; --dry-run=server sends each object with the server's dry run,
so RBAC, webhooks and the schema have their say, and nothing is stored.`
}

func short(b applyutil.Binary) string {
	return "Apply " + b.What + " from files, each checked by the server's rules first"
}

func example(b applyutil.Binary) string {
	if b.Name == applyutil.Operator.Name {
		return `  butleradm apply -f teams/payments.yaml
  butleradm apply -f platform/ --dry-run=server -o yaml
  butleradm apply -R -f platform/ -l tier=prod -o name
  butleradm apply -f policies.yaml --manifests examples/payments --as olivia@example.com`
	}
	return fmt.Sprintf(`  %[1]s apply -f clusters/
  %[1]s apply -f web.yaml --dry-run=server -o yaml
  %[1]s apply -R -f gitops/ -l env=dev -o name
  %[1]s apply -f web.yaml --manifests examples/payments --as carol@example.com`, b.Name)
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, _ *cobra.Command, _ []string) error {
	o.Namespace = f.Options.Namespace
	o.Offline = f.Offline()
	for _, m := range f.Options.Manifests {
		o.ManifestsStdin = o.ManifestsStdin || m == "-"
	}
	return nil
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if len(o.Files) == 0 {
		return cmdutil.UsageError("-f is required: a file, a directory or - for stdin")
	}
	stdin := 0
	for _, f := range o.Files {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 || (stdin == 1 && o.ManifestsStdin) {
		return cmdutil.UsageError("stdin can be read once: pass - to one of -f and --manifests")
	}
	if o.DryRun.Server() && o.Offline {
		return cmdutil.ErrDryRunServerOffline()
	}
	if o.Concurrency < 1 || o.Concurrency > MaxConcurrency {
		return cmdutil.UsageError("--concurrency must be from 1 to %d, got %d", MaxConcurrency, o.Concurrency)
	}
	if o.FieldManager == "" {
		return cmdutil.UsageError("--field-manager must not be empty")
	}
	return nil
}

func run(ctx context.Context, o *Options) error {
	objs, err := applyutil.Read(o.ReadOptions, o.Binary, o.IO.In)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No objects to apply.")
		return nil
	}
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	if o.Binary.Name == applyutil.Operator.Name {
		return runOperator(ctx, o, s, objs)
	}
	judged, err := applyutil.Judge(ctx, s, o.IO.ErrOut, objs)
	if err != nil {
		return err
	}
	applyutil.Warn(o.IO.ErrOut, judged)
	if err := applyutil.Refused(judged); err != nil {
		return err
	}
	p := applyutil.NewProgress(o.IO.ErrOut, o.IO.IsStderrTTY(), len(judged))
	mode := applyutil.Mode{
		ApplyOptions: store.ApplyOptions{FieldManager: o.FieldManager, Force: o.ForceConflicts, DryRun: o.DryRun.On(),
			Concurrency: o.Concurrency, Done: p.Add},
		Client: o.DryRun.Client() && s.Kind() == store.Live,
	}
	outs, err := applyutil.Send(ctx, s, judged, mode)
	p.Done()
	if err != nil {
		return err
	}
	if err := o.Printer.Print(applyutil.Doc(outs, o.DryRun.Suffix(), s.Kind() == store.Manifests)); err != nil {
		return err
	}
	return applyutil.Failed(outs)
}

// runOperator is butleradm's apply: the operator preflight, then the objects sent one at a
// time in their order.
func runOperator(ctx context.Context, o *Options, s Store, objs []applyutil.Object) error {
	judged, err := applyutil.JudgeOperator(ctx, s, objs)
	if err != nil {
		return err
	}
	applyutil.OpWarn(o.IO.ErrOut, judged)
	if err := applyutil.OpRefused(judged); err != nil {
		return err
	}
	mode := applyutil.Mode{
		ApplyOptions: store.ApplyOptions{FieldManager: o.FieldManager, Force: o.ForceConflicts, DryRun: o.DryRun.On(), Concurrency: 1},
		Client:       o.DryRun.Client() && s.Kind() == store.Live,
	}
	outs, err := applyutil.OpSend(ctx, s, judged, mode)
	if err != nil {
		return err
	}
	if err := o.Printer.Print(applyutil.OpDoc(judged, outs, o.DryRun.Suffix(), s.Kind() == store.Manifests)); err != nil {
		return err
	}
	return applyutil.OpFailed(outs)
}
