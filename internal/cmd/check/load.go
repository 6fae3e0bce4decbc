package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/memlimit"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/check"
	"github.com/butlerdotdev/butler-toolkit/pkg/gitops"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// RuleUnknownKind and RuleNotApplied are the loader's findings that are not decode errors.
const (
	RuleUnknownKind = "unknown-kind"
	RuleNotApplied  = "not-applied"
	RuleNotJudged   = "field-not-judged"
	// RuleNotKubernetes is a document that is YAML but not a Kubernetes object.
	RuleNotKubernetes = "not-kubernetes"
	// RuleNotRendered is what the tree holds and the check does not render: a Flux
	// Kustomization of another source, a Helm chart.
	RuleNotRendered = "not-rendered"
)

// judge loads head (and base) as their controllers apply them and runs the check on each
// target. Head's decode errors are the report; a base that cannot be read is an error
// (exit 2).
func judge(ctx context.Context, stdin io.Reader, o *Options) (*check.Report, error) {
	paths := o.Manifests
	var pending *pendingRepo
	if o.Base != "" {
		// git's base tree is extracted while head loads: it needs nothing from head.
		pending = startRepo(ctx, o.Base, paths)
		defer pending.discard() // unless loadBase took it
	}
	headOpts, sums := o.headOptions(ctx)
	if pending != nil && pending.tmp != "" {
		headOpts.Manifest.Scratch = []string{pending.tmp}
	}
	headOpts.CRDs = o.baseCRDs(pending)
	head, err := gitops.Load(paths, stdin, headOpts)
	if err != nil {
		if fs, ok := check.DecodeFindings(err); ok {
			return check.Unreadable(fs), nil
		}
		return nil, storeerr.BadInput(err)
	}
	if r := o.unknown(head); r != nil {
		return r, nil
	}
	base, names, closeBase, err := o.loadBase(ctx, stdin, head, sums, pending)
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
	if o.Live != nil {
		if live, err = o.Live(ctx); err != nil {
			return nil, fmt.Errorf("reading the platform (--context): %w", err)
		}
	}
	var parts []check.Part
	for _, t := range head.Targets {
		var r *check.Report
		if base == nil {
			addLive(live, t.Set)
			if r = check.State(t.Set, o.judgeOptions()); r.Unreadable {
				return r, nil // a lean Load's record read again differs: as head's decode errors
			}
		} else {
			bt := baseTarget(base, t.Name)
			addLive(live, bt, t.Set)
			r = check.Change(bt, t.Set, o.judgeOptions())
		}
		r.Add(check.PlaintextCredentials(t.Set)...)
		parts = append(parts, check.Part{Target: t.Name, Report: r})
	}
	r := check.Combine(parts)
	r.Add(o.loaderFindings(head)...)
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

// headOptions are how head is read, and for a change from --base-manifests the digests
// head's files record for the base to compare with.
func (o *Options) headOptions(ctx context.Context) (gitops.Options, *digests) {
	opts := gitops.Options{Root: repoRoot(ctx), Sources: o.Sources}
	opts.Manifest.Exclude, opts.Manifest.IgnoreFile = o.Exclude, o.headIgnore(ctx)
	// A state check judges one cluster at a time: the loader keeps records of a plain
	// tree's clusters and each is read again when judged, so that memory does not grow
	// with whole objects. A change compares whole clusters of both trees.
	opts.Manifest.Lean = o.Base == "" && len(o.BaseManifests) == 0
	if opts.Manifest.Lean {
		// What it keeps is then small, and the collector's headroom and freed pages would
		// be most of its memory (internal/memlimit).
		memlimit.Follow(32<<20, 8<<20, 1.5)
	}
	var sums *digests
	if len(o.BaseManifests) > 0 && !o.noReuse {
		sums = newDigests() // the base's files are compared with head's by these
		opts.Manifest.Reuse = sums.record
	}
	return opts, sums
}

// loaderFindings are what the loader saw and did not judge: documents of unknown groups,
// fields the repository's CRDs declare that the tools do not know, and files no entry
// point applies.
func (o *Options) loaderFindings(head *gitops.Tree) []check.Finding {
	var extra []check.Finding
	for _, u := range head.Unknown {
		extra = append(extra, o.unknownFinding(u, check.SeverityWarning))
	}
	for _, src := range head.NotObjects {
		extra = append(extra, o.notObjectFinding(src, check.SeverityWarning))
	}
	for _, obj := range head.Raw.Objects {
		for _, nj := range obj.NotJudged {
			extra = append(extra, check.Finding{File: nj.File, Line: nj.Line, Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name,
				Field: nj.Field, Message: nj.Field + ": declared by the repository's CustomResourceDefinition but not known to these tools yet: not judged",
				Rule: RuleNotJudged, Severity: check.SeverityWarning})
		}
	}
	extra = append(extra, o.notRenderedFindings(head)...)
	for _, u := range head.Unreached {
		extra = append(extra, check.Finding{File: u.Source.File, Line: u.Source.Line, Kind: u.Kind, Namespace: u.Namespace, Name: u.Name,
			Message: "no Flux Kustomization or Argo CD Application of the repository applies this file: not judged", Rule: RuleNotApplied, Severity: check.SeverityWarning})
	}
	return extra
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

// unknown is the report of documents of unknown API groups under --strict: each an error,
// as a document that does not decode, and nothing else judged.
func (o *Options) unknown(t *gitops.Tree) *check.Report {
	if !o.Strict || len(t.Unknown)+len(t.NotObjects) == 0 {
		return nil
	}
	var fs []check.Finding
	for _, u := range t.Unknown {
		fs = append(fs, o.unknownFinding(u, check.SeverityError))
	}
	for _, src := range t.NotObjects {
		fs = append(fs, o.notObjectFinding(src, check.SeverityError))
	}
	return check.Unreadable(fs)
}

// notObjectFinding words a document that is not a Kubernetes object (a tool's
// configuration beside the manifests): not judged, and how to leave its file out.
func (o *Options) notObjectFinding(src manifest.Source, sev check.Severity) check.Finding {
	msg := "not a Kubernetes object (no apiVersion, kind or metadata): not judged; --exclude or .butlerignore leaves its file out"
	if sev == check.SeverityError {
		msg += o.strictWhy()
	} else {
		msg += " (--strict makes it an error)"
	}
	return check.Finding{File: src.File, Line: src.Line, Message: msg, Rule: RuleNotKubernetes, Severity: sev}
}

// strictWhy says why a document not judged is an error, naming the strictness setting as
// the user can type it.
func (o *Options) strictWhy() string {
	switch o.StrictSource {
	case cmdutil.SourceEnv:
		return " (an error because BUTLER_STRICT is set; BUTLER_STRICT=false makes it a warning)"
	case cmdutil.SourceConfig:
		return " (an error because the config file sets strict: true; --strict=false makes it a warning)"
	}
	return " (an error under --strict; without it, a warning)"
}

// unknownFinding words a document of an unknown group, naming the strictness setting as
// the user can type it.
func (o *Options) unknownFinding(u manifest.Object, sev check.Severity) check.Finding {
	msg := fmt.Sprintf("%s %s is of an API group the check does not know: it is not judged", u.APIVersion, u.Kind)
	if sev == check.SeverityError {
		msg += o.strictWhy()
	} else {
		msg += " (--strict makes it an error)"
	}
	return check.Finding{File: u.Source.File, Line: u.Line("apiVersion"), Kind: u.Kind, Namespace: u.Namespace, Name: u.Name,
		Field: "apiVersion", Type: "NotSupported", Message: msg, Rule: RuleUnknownKind, Severity: sev}
}

// repoRoot is the root of the git repository the working directory is in, where Flux's
// paths start when --manifests names a directory below it; "" outside a repository.
func repoRoot(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	out, err := git(ctx, "", nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// loadBase reads the base of a change (--base from git, or --base-manifests), reusing
// head's objects for the files the change leaves as they are; nil without a base. names
// renames the base's files for findings (git's temporary tree to the repository's paths),
// nil when they need none; closeBase removes what reading it left behind.
func (o *Options) loadBase(ctx context.Context, stdin io.Reader, head *gitops.Tree, sums *digests, pending *pendingRepo) (base *gitops.Tree, names func(string) string, closeBase func(), err error) {
	closeBase = func() {}
	switch {
	case o.Base != "":
		repo, err := pending.take()
		if err != nil {
			return nil, nil, closeBase, storeerr.BadInput(fmt.Errorf("--base %s: %w", o.Base, err))
		}
		reuse, err := repo.reuse(head.Raw)
		if err != nil {
			repo.close()
			return nil, nil, closeBase, storeerr.BadInput(fmt.Errorf("--base %s: %w", o.Base, err))
		}
		opts := gitops.Options{Root: repo.baseRoot, Sources: o.Sources, Manifest: manifest.Options{Reuse: reuse, Exclude: o.Exclude}}
		if base, err = gitops.Load(repo.basePaths, nil, opts); err != nil {
			repo.close()
			return nil, nil, closeBase, storeerr.BadInput(fmt.Errorf("--base %s: the base does not read: %w", o.Base, err))
		}
		return base, repo.name, repo.close, nil
	case len(o.BaseManifests) > 0:
		var reuse func(string, []byte) ([]manifest.Object, bool)
		if !o.noReuse {
			reuse = dirReuse(o.Manifests, o.BaseManifests, head.Raw, sums, manifest.DefaultMaxFileBytes)
		}
		if base, err = gitops.Load(o.BaseManifests, stdin, gitops.Options{Sources: o.Sources, Manifest: manifest.Options{Reuse: reuse, Exclude: o.Exclude}}); err != nil {
			return nil, nil, closeBase, storeerr.BadInput(fmt.Errorf("the base manifests do not read: %w", err))
		}
	}
	return base, nil, closeBase, nil
}

// pendingRepo is --base's tree being extracted (openRepo) on its own goroutine, into tmp.
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
func startRepo(ctx context.Context, rev string, paths []string) *pendingRepo {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
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
		if p.repo, p.err = openRepo(ctx, rev, tmp, paths); p.err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	return p
}

// baseCRDs are the files of the base whose CRDs decide what head's unknown fields are
// tolerated (gitops.Options.CRDs): a change must not declare the fields it is judged by.
// nil for a state check, which has only the tree's own.
func (o *Options) baseCRDs(pending *pendingRepo) func() []string {
	switch {
	case pending != nil:
		return func() []string {
			<-pending.done
			if pending.err != nil {
				return nil // the base's error is reported once head has loaded
			}
			files, _ := manifest.Walk(pending.repo.basePaths, manifest.Options{Exclude: o.Exclude})
			return files
		}
	case len(o.BaseManifests) > 0:
		return func() []string {
			files, _ := manifest.Walk(o.BaseManifests, manifest.Options{Exclude: o.Exclude})
			return files
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
