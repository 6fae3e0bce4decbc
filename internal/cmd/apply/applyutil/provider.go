package applyutil

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// judgeProvider judges a ProviderConfig as provider create does: the server's rules on
// the document (bad input), its home namespace, who may write it, and its credentials
// Secret, which must exist with the keys its provider needs: apply never takes
// credentials from files.
func judgeProvider(ctx context.Context, s *batch, o Object, pc *v1alpha1.ProviderConfig) (OpJudged, error) {
	jd := OpJudged{Object: o}
	doc := o.Doc
	doc.Obj = pc
	if err := problems(doc); err != nil {
		return jd, err
	}
	home, team, err := providerutil.Home(ctx, s, pc)
	if err != nil {
		return jd, fmt.Errorf("%s: providerconfig %s: %w", o.Where(), inert.Text(pc.Name), err)
	}
	if err := placeProvider(o, pc, home, team); err != nil {
		return jd, err
	}
	verb := "create"
	jd.Result = pc.DeepCopy()
	cur, err := s.GetProviderConfig(ctx, pc.Namespace, pc.Name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return jd, err
	default:
		merged, err := store.MergeAppliedObject(cur, pc)
		if err != nil {
			return jd, fmt.Errorf("%s: providerconfig %s: %w", o.Where(), inert.Text(pc.Name), err)
		}
		if err := problems(manifest.Object{Obj: merged, Source: o.Source}); err != nil {
			return jd, err
		}
		jd.Current, jd.Result, verb = cur, merged, "update"
	}
	if err := refusal(&jd, providerutil.Authorize(ctx, s, pc, team, verb)); err != nil || jd.Refusal != nil {
		return jd, err
	}
	return jd, checkCredentials(ctx, s, &jd, jd.Result.(*v1alpha1.ProviderConfig))
}

// placeProvider puts pc in its home namespace as provider create does: a namespace the
// file gives must be that one, and a team-scoped provider's Secret must be the team's.
func placeProvider(o Object, pc *v1alpha1.ProviderConfig, home string, team *v1alpha1.Team) error {
	if pc.Namespace != "" && pc.Namespace != home {
		why := fmt.Sprintf("a platform-scoped ProviderConfig lives in %q", home)
		if team != nil {
			why = fmt.Sprintf("a ProviderConfig scoped to team %q lives in the team's namespace %q", team.Name, home)
		}
		return storeerr.BadInput(fmt.Errorf("%s: providerconfig %s: metadata.namespace: Invalid value: %q: %s", o.Where(), inert.Text(pc.Name), inert.Text(pc.Namespace), why))
	}
	pc.Namespace = home
	ref := &pc.Spec.CredentialsRef
	if ref.Namespace == "" && ref.Name != "" {
		ref.Namespace = home
	}
	if team != nil && ref.Namespace != home {
		return storeerr.BadInput(fmt.Errorf("%s: providerconfig %s: spec.credentialsRef.namespace: Invalid value: %q: the credentials of a team-scoped ProviderConfig must be in the team's namespace %q",
			o.Where(), inert.Text(pc.Name), inert.Text(ref.Namespace), home))
	}
	return nil
}

// checkCredentials refuses a ProviderConfig whose credentials Secret is missing or lacks
// the keys its provider needs, pointing at the commands that write credentials; only key
// names are read.
func checkCredentials(ctx context.Context, s OperatorStore, jd *OpJudged, pc *v1alpha1.ProviderConfig) error {
	if pc.Spec.Provider == v1alpha1.ProviderLocal && pc.Spec.CredentialsRef.Name == "" {
		return nil // the local provider needs no credentials
	}
	ns, name := providerutil.SecretRef(pc)
	keys, err := s.SecretKeys(ctx, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		jd.Refusal = cmdutil.DeniedError(fmt.Errorf("Secret %s/%s, the ProviderConfig's credentials, does not exist: apply does not take credentials from files; create the provider with butleradm provider create --credentials-file (or another --credentials-* flag), or give an existing one new credentials with butleradm provider rotate-credentials",
			ns, name))
		return nil
	case err != nil:
		return err
	}
	if err := policy.ValidateCredentials(pc.Spec.Provider, keys); err != nil {
		jd.Refusal = cmdutil.DeniedError(fmt.Errorf("Secret %s/%s: %v: replace its data with butleradm provider rotate-credentials", ns, name, err))
		return nil
	}
	if msg := policy.NutanixTrustBundleWarning(pc, ns, name, keys); msg != "" {
		jd.Warnings = append(jd.Warnings, msg)
	}
	return nil
}
