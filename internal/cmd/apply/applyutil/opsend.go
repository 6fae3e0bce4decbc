package applyutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
)

// OpOutcome is what became of one operator object, as Outcome is for a cluster.
type OpOutcome struct {
	Verb     string
	Object   store.Object
	Location string
	Err      error
}

// OpResourceName is kind.group/name, as kubectl's -o name prints it.
func OpResourceName(o Object) string {
	return strings.ToLower(o.Doc.Kind) + ".butler.butlerlabs.dev/" + o.Operator.GetName()
}

// OpRefused is Refused for operator objects: every refusal with the server's message and
// that nothing was applied, exit 4.
func OpRefused(judged []OpJudged) error {
	var errs []error
	for i := range judged {
		if jd := &judged[i]; jd.Refusal != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %w", OpResourceName(jd.Object), jd.Where(), jd.Refusal))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	errs = append(errs, fmt.Errorf("nothing was applied: the preflight refused %d of %d object(s)", len(errs), len(judged)))
	return storeerr.Denied(errors.Join(errs...))
}

// OpWarn prints the preflight's warnings, each once per object.
func OpWarn(w io.Writer, judged []OpJudged) {
	for i := range judged {
		for _, msg := range judged[i].Warnings {
			fmt.Fprintf(w, "Warning: %s: %s\n", OpResourceName(judged[i].Object), inert.Text(msg))
		}
	}
}

// OpSend applies the judged objects through s, as Send does clusters.
func OpSend(ctx context.Context, s store.ObjectApplier, judged []OpJudged, m Mode) ([]OpOutcome, error) {
	out := make([]OpOutcome, len(judged))
	if m.Client {
		for i := range judged {
			jd := &judged[i]
			out[i] = OpOutcome{Verb: opVerb(jd, jd.Result), Object: jd.Result}
		}
		return out, nil
	}
	objs := make([]store.Object, len(judged))
	for i := range judged {
		objs[i] = judged[i].Operator
	}
	applied, err := s.ApplyObjects(ctx, objs, m.ApplyOptions)
	if err != nil {
		return nil, err
	}
	for i, a := range applied {
		jd := &judged[i]
		if a.Err != nil {
			err := fmt.Errorf("%s (%s): %w", OpResourceName(jd.Object), jd.Where(), a.Err)
			if apierrors.IsConflict(a.Err) {
				err = fmt.Errorf("%w\n%s", err, conflictAdvice)
			}
			out[i] = OpOutcome{Err: err}
			continue
		}
		out[i] = OpOutcome{Verb: opVerb(jd, a.Object), Object: a.Object, Location: a.Location}
	}
	return out, nil
}

// opVerb is kubectl's word for what an apply did, comparing what an apply can change.
func opVerb(jd *OpJudged, now store.Object) string {
	switch {
	case jd.Create():
		return "created"
	case sameObject(jd.Current, now):
		return "unchanged"
	}
	return "configured"
}

// sameObject compares labels, annotations and spec: the server's bookkeeping does not count.
func sameObject(a, b store.Object) bool {
	return equality.Semantic.DeepEqual(emptyNil(a.GetLabels()), emptyNil(b.GetLabels())) &&
		equality.Semantic.DeepEqual(emptyNil(a.GetAnnotations()), emptyNil(b.GetAnnotations())) &&
		equality.Semantic.DeepEqual(specOf(a), specOf(b))
}

// specOf is the object's spec as JSON, nil when it cannot be marshalled (never for Butler's types).
func specOf(o store.Object) any {
	raw, err := json.Marshal(o)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m["spec"]
}

// OpFailed is the outcomes' errors joined, nil when every object went through.
func OpFailed(outs []OpOutcome) error {
	var errs []error
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errors.Join(errs...)
}

// OpDoc is Doc for operator objects.
func OpDoc(judged []OpJudged, outs []OpOutcome, suffix string, offline bool) output.Doc {
	var ok []int
	for i, o := range outs {
		if o.Err == nil {
			ok = append(ok, i)
		}
	}
	d := output.Doc{One: len(outs) == 1 && len(ok) == 1}
	for _, i := range ok {
		d.Items = append(d.Items, output.Item{Object: outs[i].Object})
	}
	d.Text = func(w io.Writer) error {
		for _, i := range ok {
			o := outs[i]
			line := OpResourceName(judged[i].Object) + " " + o.Verb + suffix
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
