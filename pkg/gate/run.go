package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// judge loads head (and base) as their controllers apply them and runs the check on each
// target. Head's decode errors are the report; a base that cannot be read is an error
// (ErrBadInput).
func (g *run) judge(ctx context.Context) (*check.Report, error) {
	if g.Base.Revision != "" && len(g.Base.Paths) > 0 {
		return nil, badInput(errors.New("a base is a revision or paths, not both"))
	}
	paths := g.Head.Paths
	var pending *pendingRepo
	if g.Base.Revision != "" {
		// git's base tree is extracted while head loads: it needs nothing from head.
		pending = g.startRepo(ctx, g.Base.Revision, paths)
		defer pending.discard() // unless loadBase took it
	}
	headOpts, sums := g.headOptions(ctx)
	if pending != nil && pending.tmp != "" {
		headOpts.Manifest.Scratch = []string{pending.tmp}
	}
	headOpts.CRDs = g.baseCRDs(pending)
	headOpts.Manifest.ReadFile = g.kept.headRead
	head, err := gitops.Load(paths, g.Head.Stdin, headOpts)
	if err != nil {
		if fs, ok := check.DecodeFindings(err); ok {
			return check.Unreadable(fs), nil
		}
		return nil, badInput(err)
	}
	if r := g.unknown(head); r != nil {
		return r, nil
	}
	base, names, closeBase, err := g.loadBase(ctx, head, sums, pending)
	if err != nil {
		return nil, err
	}
	// What reading the base left behind (git's base tree) goes while the change is judged:
	// nothing reads it once the base is loaded.
	removed := make(chan struct{})
	go func() {
		defer close(removed)
		closeBase()
	}()
	defer func() { <-removed }()
	var live []manifest.Object
	if g.Live != nil {
		lctx, cancel := context.WithTimeout(ctx, liveTimeout)
		live, err = g.Live.Objects(lctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("reading the platform (--context): %w", err)
		}
	}
	var parts []check.Part
	for _, t := range head.Targets {
		var r *check.Report
		if base == nil {
			addLive(live, t.Set)
			if r = check.State(t.Set, g.judgeOptions()); r.Unreadable {
				return r, nil // a cluster kept as a record read again differs: as head's decode errors
			}
		} else {
			bt := baseTarget(base, t.Name)
			addLive(live, bt, t.Set)
			r = check.Change(bt, t.Set, g.judgeOptions())
		}
		r.Add(check.PlaintextCredentials(t.Set)...)
		parts = append(parts, check.Part{Target: t.Name, Report: r})
	}
	r := check.Combine(parts)
	r.Add(g.loaderFindings(head)...)
	r.Recognised, r.NotRendered = nonEmpty(head.Recognised), nonEmpty(head.NotRendered)
	if names != nil {
		for i := range r.Findings {
			r.Findings[i].File = names(r.Findings[i].File)
		}
		for i := range r.Objects {
			r.Objects[i].File = names(r.Objects[i].File)
		}
		r.Add() // sorted again by the new names
	}
	treeNotes(r, head, names)
	return r, nil
}

// treeNotes adds to the report what the loader says of the tree as a whole: the tool
// folders and paths left out, that no Flux source was identified as this repository, and
// the Helm charts it holds.
func treeNotes(r *check.Report, head *gitops.Tree, names func(string) string) {
	if n := leftOutNote(head.LeftOut, names); n != "" {
		r.Notes = append(r.Notes, n)
	}
	if n := excludedNote(head.Raw.Excluded, head.Raw.ExcludePatterns); n != "" {
		r.Notes = append(r.Notes, n)
	}
	if head.SourceNote != "" {
		r.Notes = append(r.Notes, head.SourceNote)
	}
	r.Notes = append(r.Notes, head.RemoteNotes...)
	if head.RepoNote != "" {
		r.Notes = append(r.Notes, head.RepoNote)
	}
	for _, g := range head.Generated {
		r.Notes = append(r.Notes, g.String())
	}
	r.Charts = head.Charts
}

// leftOutNote names the tool folders the walk did not enter (manifest.ToolDirs), so that
// nothing is left out without a word; "" when there are none.
func leftOutNote(dirs []string, names func(string) string) string {
	if len(dirs) == 0 {
		return ""
	}
	shown := make([]string, len(dirs))
	for i, d := range dirs {
		if names != nil {
			d = names(d)
		}
		shown[i] = filepath.ToSlash(d)
	}
	return fmt.Sprintf("tool folders left out, not read (%s; name one with --manifests to read it): %s",
		strings.Join(manifest.ToolDirs, ", "), strings.Join(shown, ", "))
}

// headOptions are how head is read, and for a change from base paths the digests head's
// files record for the base to compare with.
func (g *run) headOptions(ctx context.Context) (gitops.Options, *digests) {
	opts := gitops.Options{Root: g.repoRoot(ctx), Sources: g.Sources, Remotes: g.remotes}
	opts.Manifest.Exclude, opts.Manifest.IgnoreFile = g.Exclude, g.headIgnore(ctx)
	// A change compares head's clusters with the base's and replays every one of them
	// whole: held whole, each is decoded once.
	opts.Manifest.ReadsEveryCluster = g.change()
	var sums *digests
	if len(g.Base.Paths) > 0 && !g.noReuse {
		sums = newDigests() // the base's files are compared with head's by these
		opts.Manifest.Reuse = sums.record
	}
	return opts, sums
}

func nonEmpty(m map[string]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	return m
}

// baseTarget is the base's objects for a target of head; a target the change adds starts
// empty.
func baseTarget(base *gitops.Tree, name string) *manifest.Set {
	for _, t := range base.Targets {
		if t.Name == name {
			return t.Set
		}
	}
	return &manifest.Set{}
}

// repoRoot is the root of the git repository of Request.Repo, where Flux's paths start
// when the manifests are a directory below it; "" outside a repository.
func (g *run) repoRoot(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, g.GitTimeout)
	defer cancel()
	out, err := git(ctx, g.Repo, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// loadBase reads the base of a change (a revision from git, or paths), reusing head's
// objects for the files the change leaves as they are; nil without a base. names renames
// the base's files for findings (git's temporary tree to the repository's paths), nil when
// they need none; closeBase removes what reading it left behind.
func (g *run) loadBase(ctx context.Context, head *gitops.Tree, sums *digests, pending *pendingRepo) (base *gitops.Tree, names func(string) string, closeBase func(), err error) {
	closeBase = func() {}
	rev := g.Base.Revision
	switch {
	case rev != "":
		repo, err := pending.take()
		if err != nil {
			return nil, nil, closeBase, badInput(fmt.Errorf("--base %s: %w", rev, err))
		}
		reuse, err := repo.reuse(head.Raw)
		if err != nil {
			repo.close()
			return nil, nil, closeBase, badInput(fmt.Errorf("--base %s: %w", rev, err))
		}
		opts := gitops.Options{Root: repo.baseRoot, Sources: g.Sources, Remotes: g.remotes, Manifest: manifest.Options{Reuse: reuse, Exclude: g.Exclude, ReadFile: g.kept.baseRead}}
		if base, err = gitops.Load(repo.basePaths, nil, opts); err == nil {
			err = holdBelow(base, repo.tmp)
		}
		if err != nil {
			repo.close()
			return nil, nil, closeBase, badInput(fmt.Errorf("--base %s: the base does not read: %w", rev, err))
		}
		return base, repo.name, repo.close, nil
	case len(g.Base.Paths) > 0:
		var reuse func(string, []byte) (manifest.FileObjects, bool)
		if !g.noReuse {
			reuse = dirReuse(g.Head.Paths, g.Base.Paths, head.Raw, sums, manifest.DefaultMaxFileBytes)
		}
		opts := gitops.Options{Sources: g.Sources, Remotes: g.remotes, Manifest: manifest.Options{Reuse: reuse, Exclude: g.Exclude, ReadFile: g.kept.baseRead}}
		if base, err = gitops.Load(g.Base.Paths, g.Base.Stdin, opts); err != nil {
			return nil, nil, closeBase, badInput(fmt.Errorf("the base manifests do not read: %w", err))
		}
	}
	return base, nil, closeBase, nil
}

// holdBelow holds whole the clusters of a tree's sets whose documents lie below dir, which
// is removed while the change is judged (manifest.Set.Hold).
func holdBelow(t *gitops.Tree, dir string) error {
	sets := []*manifest.Set{t.Raw}
	for _, tg := range t.Targets {
		if tg.Set != t.Raw {
			sets = append(sets, tg.Set)
		}
	}
	for _, s := range sets {
		if err := s.Hold(dir); err != nil {
			return err
		}
	}
	return nil
}

// pendingRepo is a Revision base's tree being extracted (openRepo) on its own goroutine,
// into tmp.
type pendingRepo struct {
	done   chan struct{}
	cancel context.CancelFunc
	tmp    string
	repo   *repo
	err    error
	taken  bool
}

// startRepo makes the directory the base tree is extracted into before head loads, so
// that head's walk can leave it out (manifest.Options.Scratch): the temporary directory
// may be below the manifests.
func (g *run) startRepo(ctx context.Context, rev string, paths []string) *pendingRepo {
	ctx, cancel := context.WithTimeout(ctx, g.GitTimeout)
	p := &pendingRepo{done: make(chan struct{}), cancel: cancel}
	tmp, err := os.MkdirTemp("", "butler-base-")
	if err != nil {
		p.err = err
		close(p.done)
		return p
	}
	p.tmp = tmp
	go func() {
		defer close(p.done)
		if p.repo, p.err = openRepo(ctx, g.Repo, rev, tmp, paths); p.err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	return p
}

// baseCRDs are the files of the base whose CRDs decide what head's unknown fields are
// tolerated (gitops.Options.CRDs): a change must not declare the fields it is judged by.
// nil for a state check, which has only the tree's own.
func (g *run) baseCRDs(pending *pendingRepo) func() []string {
	switch {
	case pending != nil:
		return func() []string {
			<-pending.done
			if pending.err != nil {
				return nil // the base's error is reported once head has loaded
			}
			files, _ := manifest.Walk(pending.repo.basePaths, manifest.Options{Exclude: g.Exclude})
			return g.kept.files(files)
		}
	case len(g.Base.Paths) > 0:
		return func() []string {
			files, _ := manifest.Walk(g.Base.Paths, manifest.Options{Exclude: g.Exclude})
			return g.kept.files(files)
		}
	}
	return nil
}

// take waits for the extraction; the caller closes the repo.
func (p *pendingRepo) take() (*repo, error) {
	<-p.done
	p.cancel()
	p.taken = true
	return p.repo, p.err
}

// discard stops and removes an extraction nobody took (head did not read).
func (p *pendingRepo) discard() {
	if p.taken {
		return
	}
	p.cancel()
	<-p.done
	if p.repo != nil {
		p.repo.close()
	}
}

// change reports whether the run is a change check (a base is given).
func (g *run) change() bool {
	return len(g.Base.Paths) > 0 || g.Base.Revision != ""
}
