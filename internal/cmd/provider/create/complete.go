package create

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/inert"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// build makes the ProviderConfig from the flags or the file (-f, the one thing read
// before run). Bad flags are usage errors (exit 2); problems with the ProviderConfig
// itself are reported by run, all at once.
func (o *Options) build(cmd *cobra.Command) error {
	if err := o.Creds.Check(); err != nil {
		return err
	}
	if o.File != "" {
		return o.readFile(cmd)
	}
	if err := o.checkFlags(cmd); err != nil {
		return err
	}
	scope, err := o.scope(cmd)
	if err != nil {
		return err
	}
	pc := &v1alpha1.ProviderConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindProviderConfig},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec: v1alpha1.ProviderConfigSpec{
			Provider:       o.Provider,
			CredentialsRef: v1alpha1.SecretReference{Name: o.SecretName},
		},
	}
	if scope != "" {
		sc := &v1alpha1.ProviderScope{Type: scope}
		if scope == v1alpha1.ScopeTeam && o.Team != "" {
			sc.TeamRef = &v1alpha1.LocalObjectReference{Name: o.Team}
		}
		pc.Spec.Scope = sc
	}
	if err := o.apply(&pc.Spec); err != nil {
		return err
	}
	o.pc = pc
	return nil
}

// checkFlags checks the name, the provider type, that every setting typed goes with it,
// and the Secret's name.
func (o *Options) checkFlags(cmd *cobra.Command) error {
	if o.Name == "" {
		return cmdutil.UsageError("%s requires a NAME, or -f FILE\nSee '%s --help'.", cmd.CommandPath(), cmd.CommandPath())
	}
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return cmdutil.UsageError("invalid ProviderConfig name %q: %s", o.Name, strings.Join(errs, "; "))
	}
	if o.Provider == "" {
		return cmdutil.UsageError("--provider is required: one of %s", strings.Join(v1alpha1.ProviderTypes, ", "))
	}
	byFlag := map[string]*setting{}
	for _, st := range o.settings {
		byFlag[st.flag] = st
	}
	var wrong error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if st, ok := byFlag[fl.Name]; ok && wrong == nil && !st.appliesTo(o.Provider) && providerutil.OnCommandLine(cmd, fl.Name) {
			wrong = cmdutil.UsageError("--%s applies to --provider %s, not %s", fl.Name, strings.Join(st.providers, ", "), o.Provider)
		}
	})
	if wrong != nil {
		return wrong
	}
	if o.SecretName == "" && (o.Provider != v1alpha1.ProviderLocal || o.Creds.Given()) { // local needs none
		o.SecretName = o.Name + "-credentials"
	}
	if errs := validation.IsDNS1123Subdomain(o.SecretName); o.SecretName != "" && len(errs) > 0 {
		return cmdutil.UsageError("invalid Secret name %q: %s", o.SecretName, strings.Join(errs, "; "))
	}
	return nil
}

// scope is the provider's scope: --team on the command line makes it team-scoped; a team
// from the config file or BUTLER_TEAM counts only with --scope team.
func (o *Options) scope(cmd *cobra.Command) (string, error) {
	teamTyped := o.Team != "" && providerutil.OnCommandLine(cmd, "team")
	if o.Scope == v1alpha1.ScopePlatform && teamTyped {
		return "", cmdutil.UsageError("--team names the team of a team-scoped provider; it cannot go with --scope platform")
	}
	if o.Scope == "" && teamTyped {
		return v1alpha1.ScopeTeam, nil
	}
	return o.Scope, nil
}

// apply writes the given settings into the spec. The chosen provider's section is always
// there, so that a missing setting is reported by its field ("spec.aws.region: Required
// value: ...").
func (o *Options) apply(s *v1alpha1.ProviderConfigSpec) error {
	switch o.Provider {
	case v1alpha1.ProviderHarvester:
		s.Harvester = &v1alpha1.HarvesterConfig{}
	case v1alpha1.ProviderNutanix:
		s.Nutanix = &v1alpha1.NutanixConfig{}
	case v1alpha1.ProviderProxmox:
		s.Proxmox = &v1alpha1.ProxmoxConfig{}
	case v1alpha1.ProviderAzure:
		s.Azure = &v1alpha1.AzureConfig{}
	case v1alpha1.ProviderAWS:
		s.AWS = &v1alpha1.AWSConfig{}
	case v1alpha1.ProviderGCP:
		s.GCP = &v1alpha1.GCPConfig{}
	}
	for _, st := range o.settings {
		if !st.given || !st.appliesTo(o.Provider) {
			continue
		}
		if err := st.set(s); err != nil {
			return err
		}
	}
	if n := s.Network; n != nil && n.Mode == "" && len(n.PoolRefs) > 0 {
		n.Mode = v1alpha1.NetworkModeIPAM
	}
	return nil
}

// readFile reads the ProviderConfig of -f: exactly one, decoded strictly.
func (o *Options) readFile(cmd *cobra.Command) error {
	names := append([]string{}, ownFlags...)
	for _, st := range o.settings {
		names = append(names, st.flag)
	}
	for _, name := range names {
		if providerutil.OnCommandLine(cmd, name) {
			return cmdutil.UsageError("--%s cannot be combined with -f: the file describes the ProviderConfig", name)
		}
	}
	if o.File == manifest.Stdin && o.Creds.Stdin {
		return cmdutil.UsageError("-f - and --credentials-stdin cannot both read standard input")
	}
	objs, probs := cmdutil.ReadManifests([]string{o.File}, o.IO.In)
	if len(probs) > 0 {
		return report(o.IO.ErrOut, o.File, probs)
	}
	if len(objs) != 1 {
		return cmdutil.UsageError("%s holds %d objects: create -f takes one ProviderConfig", o.File, len(objs))
	}
	obj := objs[0]
	pc, ok := obj.Obj.(*v1alpha1.ProviderConfig)
	if !ok {
		return cmdutil.UsageError("%s holds a %s, not a ProviderConfig (credentials go in --credentials-file)", o.File, obj.Kind)
	}
	switch {
	case o.Name != "" && pc.Name == "":
		pc.Name, obj.Name = o.Name, o.Name
	case o.Name != "" && pc.Name != o.Name:
		return cmdutil.UsageError("NAME %q and the file's metadata.name %q differ", o.Name, pc.Name)
	}
	if pc.Spec.CredentialsRef.Name == "" && o.Creds.Given() && pc.Name != "" {
		pc.Spec.CredentialsRef.Name = pc.Name + "-credentials"
	}
	pc.APIVersion, pc.Kind = v1alpha1.APIVersion, v1alpha1.KindProviderConfig
	o.pc, o.obj = pc, &obj
	return nil
}

// report prints the problems of a file, one a line, and fails with exit 2.
func report(errOut io.Writer, file string, probs []*manifest.DecodeError) error {
	providerutil.SortProblems(probs)
	for _, p := range probs {
		fmt.Fprintf(errOut, "%s\n", inert.Lines(p.Error()))
	}
	noun := "problem"
	if len(probs) > 1 {
		noun = "problems"
	}
	return cmdutil.UsageError("%s: %d %s: nothing was created", file, len(probs), noun)
}
