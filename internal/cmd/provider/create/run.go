package create

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// run checks the ProviderConfig and the credentials, finds where they go and what exists,
// then creates the Secret and the ProviderConfig (or, with --dry-run, prints them).
func run(ctx context.Context, o *Options) (err error) {
	pc := o.pc
	// 1. The ProviderConfig, every problem at once, in the server's words.
	if o.obj != nil {
		if probs := providerutil.Problems(*o.obj); len(probs) > 0 {
			return report(o.IO.ErrOut, o.File, probs)
		}
	} else if probs := providerutil.Problems(manifest.Object{Obj: pc}); len(probs) > 0 {
		return cmdutil.UsageError("%s", providerutil.Aggregate(probs))
	}
	// 2. The credentials: read, then their key names checked; values are never shown.
	creds, err := o.credentials()
	if err != nil {
		return err
	}
	// 3. Where it goes, who asks, and what already exists.
	s, err := o.Store(ctx)
	if err != nil {
		return err
	}
	if err := prepare(ctx, s, pc); err != nil {
		return err
	}
	if err := checkSecret(ctx, o.IO.ErrOut, s, pc, creds != nil); err != nil {
		return err
	}
	warnTrustBundle(ctx, o.IO.ErrOut, s, pc, creds)
	var secret *corev1.Secret
	if creds != nil {
		secret = providerutil.NewSecret(pc, creds)
	}
	if o.DryRun.Client() {
		return o.printObjects(pc, secret, true)
	}
	if secret != nil && s.Kind() != store.Live {
		// On manifests the ProviderConfig alone goes into the tree (check refuses plain credentials there).
		if o.Creds.Out == "" {
			return providerutil.NeedOut()
		}
		var note string
		if note, err = providerutil.WriteOut(o.Creds.Out, o.Manifests, secret); err != nil {
			return err
		}
		secret = nil
		defer func() {
			if note != "" {
				fmt.Fprint(o.IO.ErrOut, note)
			}
		}()
		defer func() {
			if err != nil {
				_ = os.Remove(o.Creds.Out) // no credentials for a provider that was not created
				note = ""
			}
		}()
	}
	// 4. The Secret, then the ProviderConfig; the Secret goes again if the second fails.
	secRes, pcRes, err := create(ctx, o.IO.ErrOut, s, pc, secret)
	if err != nil {
		return err
	}
	if o.Print.Structured() {
		return o.printObjects(pc, secret, false)
	}
	p := o.Printer
	if secret != nil {
		if err := p.Done(providerutil.RedactedSecret(secret), providerutil.SecretResourceName(secret.Name)+" created", store.Where(secRes, s)); err != nil {
			return err
		}
	}
	return p.Done(providerutil.WithTypeMeta(*pc), providerutil.ResourceName(pc.Name)+" created", store.Where(pcRes, s))
}

// credentials reads the credentials flags, nil when none was given, and checks their keys.
func (o *Options) credentials() (*providerutil.Credentials, error) {
	if !o.Creds.Given() {
		return nil, nil
	}
	creds, err := o.Creds.Read(o.IO.In, func(msg string) { fmt.Fprint(o.IO.ErrOut, msg) })
	if err != nil {
		return nil, err
	}
	if err := policy.ValidateCredentials(o.pc.Spec.Provider, creds.Keys()); err != nil {
		return nil, cmdutil.UsageError("%s: %v", creds.Source, err)
	}
	return creds, nil
}

// prepare places pc in its home namespace, checks who asks may create it there and that
// it does not exist yet.
func prepare(ctx context.Context, s providerutil.Store, pc *v1alpha1.ProviderConfig) error {
	home, team, err := providerutil.Home(ctx, s, pc)
	if err != nil {
		return err
	}
	if err := placeIn(pc, home, team); err != nil {
		return err
	}
	if err := providerutil.Authorize(ctx, s, pc, team, "create"); err != nil {
		return err
	}
	if _, err := s.GetProviderConfig(ctx, pc.Namespace, pc.Name); err == nil {
		return apierrors.NewAlreadyExists(v1alpha1.Resource("providerconfigs"), pc.Name)
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// checkSecret checks the credentials Secret: new credentials need a free name; without
// them the Secret must exist with the keys (offline a note says it is missing).
func checkSecret(ctx context.Context, errOut io.Writer, s Store, pc *v1alpha1.ProviderConfig, newCreds bool) error {
	if pc.Spec.Provider == v1alpha1.ProviderLocal && pc.Spec.CredentialsRef.Name == "" && !newCreds {
		return nil // the local provider needs no credentials
	}
	secNS, secName := providerutil.SecretRef(pc)
	keys, err := s.SecretKeys(ctx, secNS, secName)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return err
	case newCreds && err == nil:
		return cmdutil.UsageError("Secret %s/%s already exists: pick another name with --credentials-secret, or leave out the --credentials-* flags to use it as it is (rotate-credentials replaces its data)", secNS, secName)
	case newCreds:
		return nil
	case err == nil:
		if err := policy.ValidateCredentials(pc.Spec.Provider, keys); err != nil {
			return cmdutil.UsageError("Secret %s/%s: %v", secNS, secName, err)
		}
	case s.Kind() == store.Live:
		return cmdutil.NotFoundError("Secret %s/%s, the ProviderConfig's credentials, not found: pass --credentials-file, --credentials-env-file, --credentials-stdin or --credentials-from-file to create it", secNS, secName)
	default:
		fmt.Fprintf(errOut, "note: Secret %s/%s is not in the manifests; the provider is not usable until it exists with keys %s\n",
			secNS, secName, keySets(pc.Spec.Provider))
	}
	return nil
}

// create writes the Secret (when there are new credentials), then the ProviderConfig,
// deleting the Secret again when the ProviderConfig cannot be created.
func create(ctx context.Context, errOut io.Writer, w store.Providers, pc *v1alpha1.ProviderConfig, secret *corev1.Secret) (secRes, pcRes store.Result, err error) {
	if secret != nil {
		if secRes, err = w.CreateSecret(ctx, secret); err != nil {
			return secRes, pcRes, err
		}
	}
	pcRes, err = w.CreateProviderConfig(ctx, pc)
	if err == nil || secret == nil {
		return secRes, pcRes, err
	}
	if _, derr := w.DeleteSecret(ctx, secret.Namespace, secret.Name); derr != nil {
		return secRes, pcRes, fmt.Errorf("%w; the Secret %s/%s created before it could not be deleted again (%v): delete it by hand", err, secret.Namespace, secret.Name, derr)
	}
	fmt.Fprintf(errOut, "Secret %s/%s deleted again: the ProviderConfig was not created\n", secret.Namespace, secret.Name)
	return secRes, pcRes, err
}

// placeIn puts pc in its home namespace (a namespace given in the file must be that one)
// and points a credentialsRef without a namespace there. A team-scoped provider's Secret
// must be in the team's namespace: a reference elsewhere would reach credentials that are
// not the team's.
func placeIn(pc *v1alpha1.ProviderConfig, home string, team *v1alpha1.Team) error {
	if pc.Namespace != "" && pc.Namespace != home {
		why := fmt.Sprintf("a platform-scoped ProviderConfig lives in %q", home)
		if team != nil {
			why = fmt.Sprintf("a ProviderConfig scoped to team %q lives in the team's namespace %q", team.Name, home)
		}
		return cmdutil.UsageError("metadata.namespace: Invalid value: %q: %s", pc.Namespace, why)
	}
	pc.Namespace = home
	ref := &pc.Spec.CredentialsRef
	if ref.Namespace == "" && ref.Name != "" { // a local provider may name none
		ref.Namespace = home
	}
	if team != nil && ref.Namespace != home {
		return cmdutil.UsageError("spec.credentialsRef.namespace: Invalid value: %q: the credentials of a team-scoped ProviderConfig must be in the team's namespace %q", ref.Namespace, home)
	}
	// What the server fills in is not sent.
	pc.ResourceVersion, pc.UID, pc.Generation = "", "", 0
	pc.CreationTimestamp = metav1.Time{}
	pc.ManagedFields = nil
	pc.Status = v1alpha1.ProviderConfigStatus{}
	return nil
}

// printObjects prints the ProviderConfig and the Secret, its values redacted: for people
// (a dry run) YAML documents; -o json|yaml the object, or a List of both; -o name names.
func (o *Options) printObjects(pc *v1alpha1.ProviderConfig, secret *corev1.Secret, dryRun bool) error {
	d := output.Doc{Items: []output.Item{{Object: providerutil.WithTypeMeta(*pc)}}, One: secret == nil}
	if secret != nil {
		d.Items = append(d.Items, output.Item{Object: providerutil.RedactedSecret(secret)})
	}
	d.Text = d.YAMLDocuments
	if err := o.Printer.Print(d); err != nil {
		return err
	}
	if dryRun && !o.Print.Is(output.Name) {
		fmt.Fprintf(o.IO.ErrOut, "dry run: nothing was created\n")
	}
	return nil
}

// keySets names the key sets a provider's credentials may have: "kubeconfig", or
// "username, password" or "token".
func keySets(provider string) string {
	var alts []string
	for _, set := range policy.RequiredCredentialKeys(provider) {
		alts = append(alts, strings.Join(set, ", "))
	}
	return strings.Join(alts, " or ")
}

// warnTrustBundle warns, on stderr, about a Nutanix provider that would trust Prism
// without its CA (policy.NutanixTrustBundleWarning); the key names come from the new
// credentials or the existing Secret, never its values.
func warnTrustBundle(ctx context.Context, errOut io.Writer, w store.Providers, pc *v1alpha1.ProviderConfig, creds *providerutil.Credentials) {
	if pc.Spec.Provider != v1alpha1.ProviderNutanix {
		return
	}
	ns, name := providerutil.SecretRef(pc)
	var keys []string
	if creds != nil {
		keys = creds.Keys()
	} else if k, err := w.SecretKeys(ctx, ns, name); err == nil {
		keys = k
	} else {
		return // no Secret to judge (a note says so already)
	}
	if msg := policy.NutanixTrustBundleWarning(pc, ns, name, keys); msg != "" {
		fmt.Fprintf(errOut, "Warning: %s\n", msg)
	}
}
