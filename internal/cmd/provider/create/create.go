// Package create is `butleradm provider create`: build a ProviderConfig from flags or a
// file, check it and its credentials as the server would, then create the credentials
// Secret and the ProviderConfig, undoing the Secret when the ProviderConfig fails.
package create

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/provider/providerutil"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/output"
	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// Store is what provider create reads and writes: the provider's home, who asks and what
// exists (providerutil.Store), and the Secret and ProviderConfig (store.Providers).
type Store interface {
	providerutil.Store
	store.Providers
}

var _ Store = store.Store(nil)

// Options are the flags and arguments of provider create. The ProviderConfig's settings
// (network, limits, each provider's section) are rows of the settings table.
type Options struct {
	// Deps are the streams, the store and the printer, from Complete.
	factory.Deps[Store]

	// Manifests are --manifests, where a credentials file may not go.
	Manifests []string

	Name       string
	File       string
	Provider   string
	SecretName string
	Creds      providerutil.CredentialFlags

	Scope string
	Team  string

	settings []*setting

	pc *v1alpha1.ProviderConfig
	// obj is the ProviderConfig as read from -f, for problems with file and line.
	obj *manifest.Object
}

// ownFlags describe the ProviderConfig besides the settings table; with -f the file does.
var ownFlags = []string{"provider", "credentials-secret", "scope", "team"}

// NewCmd returns the command; runF, when not nil, runs instead of run.
func NewCmd(f *factory.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "create NAME --provider TYPE [SETTINGS] (--credentials-file FILE | --credentials-env-file FILE | --credentials-stdin)",
		Short: "Register an infrastructure provider with its credentials",
		Long: `Register an infrastructure provider: a ProviderConfig and the Secret holding its credentials.

The ProviderConfig comes from flags (--provider harvester, nutanix, proxmox, azure, aws or gcp
and the settings of that provider) or from a file (-f). It is checked first, every problem
at once, with the server's messages: the ProviderConfig webhook's rules (azure needs
--subscription-id and --resource-group, aws --region, gcp --project-id and --region; team
scope needs --team; ipam mode needs --pool and is refused for cloud providers) and the
document's schema rules (https endpoints, harvester networkName namespace/name, proxmox
nodes and VM id range, sizes and limits of at least 1). A problem exits 2.

Credentials are read from a file or standard input, never from a flag, and never printed:
  --credentials-file FILE        a YAML or JSON map KEY: VALUE, or a Secret manifest
  --credentials-env-file FILE    KEY=VALUE lines
  --credentials-stdin            either of the above on standard input
  --credentials-from-file K=FILE one key whose value is a file's content (repeatable),
                                 e.g. kubeconfig=harvester.yaml or serviceAccountKey=key.json
They must hold the keys the provider needs (harvester: kubeconfig; nutanix: username,
password; proxmox: username and password, or token; azure: tenantID, clientID, clientSecret,
subscriptionID; aws: accessKeyID, secretAccessKey; gcp: serviceAccountKey). A credentials file
that group or others may read is warned about.

The Secret (--credentials-secret, default NAME-credentials) and the ProviderConfig are created
in butler-system for platform scope, in the team's namespace for team scope; the
ProviderConfig's credentialsRef names the Secret. Nothing is created when a check fails, and
when the ProviderConfig cannot be created after the Secret was, the Secret is deleted again.
Without credentials flags the referenced Secret must already exist and hold the keys.

Working on manifests, only platform admins (and, for a team-scoped provider, the team's
admins) may create; the ProviderConfig goes to providers/NAME.yaml and the Secret to
secrets/NAME.yaml (mode 0600, data base64-encoded: seal or encrypt it before committing).
--dry-run checks everything and prints both, the Secret's values <redacted>.`,
		Example: `  butleradm provider create harvester-lab --provider harvester \
    --endpoint https://harvester.example.com:6443 --network-name default/vlan40 \
    --network-mode ipam --pool lab-pool:0 --credentials-from-file kubeconfig=harvester.kubeconfig
  butleradm provider create aws-us-east --provider aws --region us-east-1 \
    --max-clusters-per-team 10 --credentials-env-file aws.env
  butleradm provider create azure-platform-team --provider azure --scope team --team platform-team \
    --subscription-id 1234 --resource-group rg --credentials-file azure.yaml --dry-run
  butleradm provider create -f proxmox-elastic.yaml --credentials-stdin < proxmox.env`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.UsageError("unexpected argument %q\nSee '%s --help'.", args[1], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return factory.Run(cmd, args, f, o, runF, run)
		},
	}
	// -o json|yaml print the objects created (a List of the ProviderConfig and its Secret).
	o.Print = output.Register(cmd, &f.Options.Output, output.Spec{Objects: true, Name: true})
	o.addFlags(cmd.Flags())
	factory.AddDryRun(cmd, f)
	return cmd
}

// addFlags registers the command's own flags, the credentials flags and the settings table.
func (o *Options) addFlags(fl *pflag.FlagSet) {
	fl.StringVarP(&o.File, "filename", "f", "", "The ProviderConfig as a file (- for standard input) instead of flags")
	fl.StringVar(&o.Provider, "provider", "", "Provider type: harvester, nutanix, proxmox, azure, aws, gcp or local")
	fl.StringVar(&o.SecretName, "credentials-secret", "", "Name of the credentials Secret (default NAME-credentials)")
	o.Creds.AddFlags(fl)

	fl.StringVar(&o.Scope, "scope", "", "Who may use it: platform (every team, the default) or team (--team only)")
	cmdutil.TeamFlag(fl, &o.Team, cmdutil.TeamMeaning("The team of a team-scoped provider (given on the command line it implies --scope team; a default team from the config file counts only with --scope team)"))

	o.settings = settings()
	for _, st := range o.settings {
		st.register(fl)
	}
}

// Complete takes from the Factory what run needs and builds the ProviderConfig from the
// flags or -f FILE, the one thing read before run.
func (o *Options) Complete(f *factory.Factory, cmd *cobra.Command, _ []string) error {
	o.Manifests = f.Options.Manifests
	return o.build(cmd)
}
