// Package gate runs the check of a tree of manifests, and of a change to it, that
// `butlerctl check` runs: a Request (where head and base are read from, who authors and
// who applies the change, options) in, a report (pkg/check) out. Head and base are each
// read once: directories and files, standard input, or for the base a git revision of
// the repository head is in, extracted without checking it out; the live platform, when
// the caller gives one, completes both. What the command line adds is its flags, the
// report's formats and the exit codes.
package gate

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Source is where one side of a check is read from: Paths (files, directories read
// recursively, "-" for Stdin), or, for a base, Revision.
type Source struct {
	// Paths are files and directories of manifests, and manifest.Stdin ("-") for Stdin.
	Paths []string
	// Stdin is what "-" among Paths reads, once.
	Stdin io.Reader
	// Revision, for a base only, is a git revision (a commit, a branch, origin/main) of the
	// repository Request.Repo: the base is head's Paths as that revision holds them, read
	// without checking it out, its unchanged files not decoded again.
	Revision string
}

// Platform is the live platform, which the caller reads (pkg/ reaches no cluster): the
// objects the server holds that the judging needs (Teams, ProviderConfigs,
// ClusterCreationPolicies, TenantClusters, Users and IdentityProviders when readable),
// each with Source.File check.LiveFile. Objects is called once, with a deadline two
// minutes away at most.
type Platform interface {
	Objects(ctx context.Context) ([]manifest.Object, error)
}

// Where strictness was set, to say how to change it (Options.StrictFrom).
const (
	StrictFromFlag   = ""
	StrictFromEnv    = "env"
	StrictFromConfig = "config"
)

// Request is what a check runs on.
type Request struct {
	// Head is the tree judged; Base, when not empty, the tree it changes: the check is
	// then a change check of every added, changed and deleted object.
	Head, Base Source
	// Repo is the directory whose git repository Base.Revision is of, and whose root
	// Flux's and Argo CD's paths may start from; "" is the working directory. Relative
	// Paths are relative to the working directory, as always. The remotes a GitRepository
	// is matched against are those of the repository Head's first path is in (Repo's for
	// standard input alone).
	Repo string
	// Author is judged by the gate's own rules (their roles read from the base only);
	// Applier, who the server sees apply the change, by the server's (empty: the author).
	Author, Applier policy.Identity
	// Live, when not nil, is the platform: what the tree does not hold is read from it,
	// and the tree is then the whole platform (Options.Complete).
	Live Platform
	Options
}

// Options change how a check reads and judges.
type Options struct {
	// Exclude are patterns of .gitignore's syntax left out of every directory's walk.
	Exclude []string
	// Sources are Flux GitRepositories (NAMESPACE/NAME) that are this repository.
	Sources []string
	// Strict makes documents of unknown API groups, and YAML that is not Kubernetes,
	// errors that stop the check, as a document that does not decode; StrictFrom says
	// where it was set (StrictFrom...), for the message.
	Strict     bool
	StrictFrom string
	// Complete declares the tree the whole platform: a reference it does not resolve is an
	// error, not "not judged".
	Complete bool
	// Messages receives the notes a change check makes on which copy of a file that
	// decides how it is judged (a .butlerignore) it read; nil: none are written.
	Messages io.Writer
	// GitTimeout bounds the git commands: a Revision source's extraction as a whole, each
	// question asked of the repository, and the reading of its remotes (0: a minute).
	GitTimeout time.Duration

	// noReuse decodes every base file (tests: a change check that reuses head's decoding
	// must find what one that does not finds).
	noReuse bool
}

// defaultGitTimeout bounds each git command when Options.GitTimeout does not;
// liveTimeout bounds the reading of the live platform.
const (
	defaultGitTimeout = time.Minute
	liveTimeout       = 2 * time.Minute
)

// ErrBadInput marks an error of Run that is the input's: a base that does not read, a
// revision the repository does not hold, a tree that does not render. A tree whose
// documents do not decode is not an error: it is the report (Report.Unreadable).
var ErrBadInput = errors.New("bad input")

type inputError struct{ err error }

func (e *inputError) Error() string   { return e.err.Error() }
func (e *inputError) Unwrap() []error { return []error{e.err, ErrBadInput} }

func badInput(err error) error { return &inputError{err} }

// Run reads the request's sources and judges them: a state check of Head, or a change
// check from Base to Head. Child processes (git) end with ctx, and what a Revision source
// extracts is removed before Run returns.
func Run(ctx context.Context, req Request) (*check.Report, error) {
	g := &run{Request: req, kept: newKeptCRDs()}
	if g.GitTimeout <= 0 {
		g.GitTimeout = defaultGitTimeout
	}
	// The base is of the same repository: its GitRepositories are matched with head's remotes.
	g.remotes = remotesOf(ctx, req.Head.Paths, req.Repo, g.GitTimeout)
	if g.Messages == nil {
		g.Messages = io.Discard
	}
	if g.Live != nil {
		g.Complete = true
	}
	return g.judge(ctx)
}

// run is one Run: the request and what it read.
type run struct {
	Request
	kept *keptCRDs // the base's CRD files head's load read
	// remotes are the remotes of the git repository head is in (remotesOf).
	remotes func() ([]gitops.Remote, error)
}

func (g *run) judgeOptions() check.Options {
	return check.Options{Author: g.Author, Applier: g.Applier, Complete: g.Complete}
}
