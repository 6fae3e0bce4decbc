package applyutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Outcome is what became of one object: created, configured or unchanged, the cluster as
// the store answered (or, on a client dry run, as it would be), where it went, or its error.
type Outcome struct {
	Verb     string
	Object   *v1alpha1.TenantCluster
	Location string
	Err      error
}

// Mode is how the objects are sent.
type Mode struct {
	store.ApplyOptions
	// Client: nothing is sent (--dry-run=client live): the outcomes are the preflight's.
	Client bool
}

// Send applies the judged objects through s and says what became of each. The store's
// own error (offline: the one write failed, nothing written) ends it.
func Send(ctx context.Context, s store.ClusterApplier, judged []Judged, m Mode) ([]Outcome, error) {
	out := make([]Outcome, len(judged))
	if m.Client {
		for i := range judged {
			jd := &judged[i]
			out[i] = Outcome{Verb: verb(jd, jd.Result), Object: jd.Result}
		}
		return out, nil
	}
	clusters := make([]*v1alpha1.TenantCluster, len(judged))
	for i := range judged {
		clusters[i] = judged[i].Cluster
	}
	applied, err := s.ApplyClusters(ctx, clusters, m.ApplyOptions)
	if err != nil {
		return nil, err
	}
	for i, a := range applied {
		jd := &judged[i]
		if a.Err != nil {
			out[i] = Outcome{Err: objectError(jd, a.Err)}
			continue
		}
		out[i] = Outcome{Verb: verb(jd, a.Object), Object: a.Object, Location: a.Location}
	}
	return out, nil
}

// verb is kubectl's word for what an apply did to the object.
func verb(jd *Judged, now *v1alpha1.TenantCluster) string {
	switch {
	case jd.Create():
		return "created"
	case same(jd.Current, now):
		return "unchanged"
	}
	return "configured"
}

// same compares what an apply can change: labels, annotations and spec. The server's
// bookkeeping (resourceVersion, managedFields: a new manager changes them) does not count.
func same(a, b *v1alpha1.TenantCluster) bool {
	return equality.Semantic.DeepEqual(a.Spec, b.Spec) &&
		equality.Semantic.DeepEqual(emptyNil(a.Labels), emptyNil(b.Labels)) &&
		equality.Semantic.DeepEqual(emptyNil(a.Annotations), emptyNil(b.Annotations))
}

func emptyNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// conflictAdvice follows a conflict, as kubectl follows it with the ways out.
const conflictAdvice = `the fields above have other managers. Either
  - re-run with --force-conflicts to take them over (the other managers lose them), or
  - remove them from the manifest to leave them to their managers, or
  - set them to the value they have to share them.`

// objectError names the object and, for a conflict, says what to do about it.
func objectError(jd *Judged, err error) error {
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%s (%s): %w\n%s", ResourceName(jd.Cluster.Name), jd.Where(), err, conflictAdvice)
	}
	return fmt.Errorf("%s (%s): %w", ResourceName(jd.Cluster.Name), jd.Where(), err)
}

// Failed is the outcomes' errors joined, nil when every object went through.
func Failed(outs []Outcome) error {
	var errs []error
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errors.Join(errs...)
}

// Doc is the outcomes for the printer: -o name and the structured formats print the
// objects that went through; people get kubectl's line for each (where it went offline),
// with suffix (" (dry run)", " (server dry run)").
func Doc(outs []Outcome, suffix string, offline bool) output.Doc {
	var ok []Outcome
	for _, o := range outs {
		if o.Err == nil {
			ok = append(ok, o)
		}
	}
	d := output.Doc{One: len(outs) == 1 && len(ok) == 1}
	for _, o := range ok {
		d.Items = append(d.Items, output.Item{Object: o.Object})
	}
	d.Text = func(w io.Writer) error {
		for _, o := range ok {
			line := ResourceName(o.Object.Name) + " " + o.Verb + suffix
			if offline && o.Location != "" && o.Verb != "unchanged" {
				line += " (" + o.Location + ")"
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
		return nil
	}
	return d
}

// Progress counts answered objects on w, a terminal, in place; Done ends the line.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	n, of int
}

// NewProgress is a counter for of objects; nil (no progress) when w is no terminal or
// there are few.
func NewProgress(w io.Writer, tty bool, of int) *Progress {
	if !tty || of < 20 {
		return nil
	}
	return &Progress{w: w, of: of}
}

// Add counts one answered object.
func (p *Progress) Add() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.n%max(p.of/100, 1) == 0 || p.n == p.of {
		fmt.Fprintf(p.w, "\rapplying: %d/%d", p.n, p.of)
	}
}

// Done clears the counter's line.
func (p *Progress) Done() {
	if p != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
