// Package doctor is `butleradm doctor` and `butlerctl doctor`: the management cluster
// checked as the tools need it (internal/doctor), each check with a verdict and, unless it
// passed, the next step. butleradm checks the whole installation; butlerctl what a
// developer can see.
package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/doctor"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/textwrap"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// Spec is what doctor prints: its report (doctor.Report); there is no API object.
var Spec = output.Spec{}

// Store is what doctor reads: what its checks read (doctor.Store).
type Store = doctor.Store

var _ Store = store.Store(nil)

// Options are what doctor runs with: its flags and, from Complete, its dependencies.
type Options struct {
	// Deps are the streams, the store, the clock and the printer, from Complete.
	factory.Deps[Store]
	// Checks are the doctor's options: the scope the binary sets, the clock (Deps'),
	// --stuck-after.
	Checks doctor.Options
}

// NewCmd returns the command for scope (doctor.Operator for butleradm); runF, when not
// nil, runs instead of run.
func NewCmd(f *factory.Factory, scope doctor.Scope, runF func(*Options) error) *cobra.Command {
	o := &Options{Checks: doctor.Options{Scope: scope}}
	cmd := &cobra.Command{
		Use:     "doctor",
		Short:   short(scope),
		Long:    long(scope),
		Example: example(scope),
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	o.Print = output.Register(cmd, &f.Options.Output, Spec)
	cmd.Flags().DurationVar(&o.Checks.StuckAfter, "stuck-after", doctor.DefaultStuckAfter, "How long a cluster may stay in a phase on its way to Ready or deletion before it counts as stuck")
	return cmd
}

func short(scope doctor.Scope) string {
	if scope == doctor.Operator {
		return "Check the management cluster: API, CRDs, webhooks, controller, Steward, providers, quotas, clusters"
	}
	return "Check what you can see of the management cluster: API, CRDs, identity, providers, your teams and clusters"
}

func long(scope doctor.Scope) string {
	common := `Each check prints a verdict (pass, warn, skip or fail) and, unless it passed, the next step.
The exit status is 0 when no check fails (warnings and skips do not), 1 otherwise. Every
request has a deadline (--request-timeout), and each check one of its own.

Checks: the API server answers, and its version; Butler's CRDs are installed, established,
serve the version the tools speak, and have the fields the tools know (newer or missing
fields are named); who the tools act as, and whether a platform admin; ProviderConfigs
validated and ready; teams over their quota; clusters Failed, or in a phase on the way to
Ready or deletion for longer than --stuck-after.`
	if scope == doctor.Operator {
		return common + `

butleradm also checks the installation: the ValidatingWebhookConfigurations that validate
Butler's objects, the controller's and this project's (failure policy, CA bundle, serving:
a Service with a ready endpoint, or a URL answering a TLS handshake); the butler-controller
Deployment in butler-system, ready (absent, it is a skip: nothing reconciles, so the status
checks say only what is recorded); Steward's CRD and Deployment.

A read the identity may not make is a skip naming what it could not read.`
	}
	return common + `

A read you may not make is a skip, with a pointer to butleradm doctor, which a platform admin
runs to check the installation itself (webhooks, controller, Steward).`
}

func example(scope doctor.Scope) string {
	bin := "butlerctl"
	if scope == doctor.Operator {
		bin = "butleradm"
	}
	return fmt.Sprintf("  %[1]s doctor\n  %[1]s doctor -o json\n  %[1]s doctor --context prod --request-timeout 10s", bin)
}

// Validate checks the flags before anything is read.
func (o *Options) Validate() error {
	if o.Checks.StuckAfter <= 0 {
		return cmdutil.UsageError("--stuck-after: %v is not a duration to wait", o.Checks.StuckAfter)
	}
	return nil
}

// Complete takes from the Factory what run needs; it reads nothing yet.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, args []string) error {
	o.Checks.Now = o.Now
	return nil
}

func run(ctx context.Context, o *Options) error {
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	r, err := doctor.Run(ctx, s, o.Checks)
	if err != nil {
		return err
	}
	width := o.IO.Width()
	if err := o.Printer.Print(output.Doc{
		One:  true,
		View: r,
		Text: func(w io.Writer) error { return describe(w, r, width) },
	}); err != nil {
		return err
	}
	if !r.Passed {
		return &cmdutil.SilentError{Code: cmdutil.ExitFailure}
	}
	return nil
}

// describe prints a check a line, "verdict  name: detail", wrapped to width under its
// text, then its next step. Every text is made inert here too: a report's checks quote the
// server, and describe prints whatever report it is given.
func describe(w io.Writer, r doctor.Report, width int) error {
	const indent = 6
	fails, warns := 0, 0
	for _, c := range r.Checks {
		switch c.Verdict {
		case doctor.Fail:
			fails++
		case doctor.Warn:
			warns++
		}
		pad := strings.Repeat(" ", indent)
		fmt.Fprintln(w, textwrap.Indent(inert.Text(c.Name)+": "+inert.Text(c.Detail), fmt.Sprintf("%-4s  ", c.Verdict), pad, width))
		if c.Next != "" {
			fmt.Fprintln(w, textwrap.Indent("next: "+inert.Text(c.Next), pad, pad, width))
		}
	}
	_, err := fmt.Fprintf(w, "\n%s: %d failed, %s\n", plural(len(r.Checks), "check"), fails, plural(warns, "warning"))
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
