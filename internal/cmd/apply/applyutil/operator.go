package applyutil

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/policy/policyutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// OperatorStore is what the operator preflight reads: the objects and who asks, which
// store it is (offline the documents' authorities apply where live RBAC decides), and the
// key names of credentials Secrets (never their values).
type OperatorStore interface {
	store.Reader
	store.Kinded
	SecretKeys(ctx context.Context, namespace, name string) ([]string, error)
}

// OpJudged is one operator object with the preflight's answer, as Judged is for a cluster.
type OpJudged struct {
	Object
	Current  store.Object // nil: a create
	Result   store.Object
	Refusal  error
	Warnings []string
}

// Create reports whether the object does not exist yet.
func (j *OpJudged) Create() bool { return j.Current == nil }

// JudgeOperator judges each object in order as the command that creates or changes its
// kind judges it (team create and the Team edits: teamedit.Admit; policy create and
// update: policyutil.Authorize and Admit; provider create: providerutil's checks), a
// create when none of its name exists, else an update with the file's fields merged over
// it. Each is judged with the objects before it as they will be (a policy may name a team
// created earlier in the batch). Bad input and read errors end it; refusals are in the
// answers.
func JudgeOperator(ctx context.Context, s OperatorStore, objs []Object) ([]OpJudged, error) {
	b := newBatch(s)
	out := make([]OpJudged, 0, len(objs))
	seen := map[string]string{}
	for _, o := range objs {
		var jd OpJudged
		var err error
		switch obj := o.Operator.(type) {
		case *v1alpha1.Team:
			jd, err = judgeTeam(ctx, b, o, obj)
		case *v1alpha1.ClusterCreationPolicy:
			jd, err = judgePolicy(ctx, b, o, obj)
		case *v1alpha1.ProviderConfig:
			jd, err = judgeProvider(ctx, b, o, obj)
		default:
			err = fmt.Errorf("internal error: apply of a %T", o.Operator)
		}
		if err != nil {
			return nil, err
		}
		key := o.Doc.Kind + " " + jd.Result.GetNamespace() + "/" + jd.Result.GetName()
		if prev, dup := seen[key]; dup {
			return nil, storeerr.BadInput(fmt.Errorf("%s: %s %s is also at %s: apply each object once", o.Where(), o.Doc.Kind, inert.Text(o.Operator.GetName()), prev))
		}
		seen[key] = o.Where()
		if jd.Refusal == nil {
			b.put(jd.Result)
		}
		out = append(out, jd)
	}
	return out, nil
}

// refusal sorts an error of a shared check: a denial (exit 4) is the object's refusal,
// anything else ends the preflight.
func refusal(jd *OpJudged, err error) error {
	if err != nil && cmdutil.CodeOf(err) == cmdutil.ExitDenied && jd.Refusal == nil {
		jd.Refusal = err
		return nil
	}
	return err
}

func judgeTeam(ctx context.Context, s *batch, o Object, t *v1alpha1.Team) (OpJudged, error) {
	jd := OpJudged{Object: o}
	cur, err := s.GetTeam(ctx, t.Name)
	switch {
	case apierrors.IsNotFound(err):
		jd.Result = t.DeepCopy()
		_, err = teamedit.Admit(ctx, s, policy.Create, nil, t.DeepCopy())
	case err != nil:
		return jd, err
	default:
		merged, err := store.MergeAppliedObject(cur, t)
		if err != nil {
			return jd, fmt.Errorf("%s: team %s: %w", o.Where(), inert.Text(t.Name), err)
		}
		jd.Current, jd.Result = cur, merged
		_, err = teamedit.Admit(ctx, s, policy.Update, cur, merged)
		return jd, refusal(&jd, err)
	}
	return jd, refusal(&jd, err)
}

func judgePolicy(ctx context.Context, s *batch, o Object, p *v1alpha1.ClusterCreationPolicy) (OpJudged, error) {
	jd := OpJudged{Object: o, Result: p.DeepCopy()}
	op, verb := policy.Create, "create"
	cur, err := s.GetClusterCreationPolicy(ctx, p.Name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return jd, err
	default:
		merged, err := store.MergeAppliedObject(cur, p)
		if err != nil {
			return jd, fmt.Errorf("%s: clustercreationpolicy %s: %w", o.Where(), inert.Text(p.Name), err)
		}
		jd.Current, jd.Result, op, verb = cur, merged, policy.Update, "update"
	}
	if err := refusal(&jd, policyutil.Authorize(ctx, s, verb, p.Name)); err != nil {
		return jd, err
	}
	if jd.Refusal != nil {
		return jd, nil
	}
	return jd, refusal(&jd, policyutil.Admit(ctx, s, op, jd.Result.(*v1alpha1.ClusterCreationPolicy)))
}

// problems is providerutil.Problems as bad input (exit 2), each naming file, line, object
// and field.
func problems(doc manifest.Object) error {
	probs := providerutil.Problems(doc)
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = p
	}
	return storeerr.BadInput(errors.Join(errs...))
}
