package create

import (
	"bytes"
	"regexp"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/teamedit"
	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// envFlags are the ready-made environments of team create: names from --environments,
// each with the defaults of the --env-* flags, or whole from --environments-file.
type envFlags struct {
	Names                []string
	File                 string
	MaxClusters          int32
	MaxClustersPerMember int32
	ClusterDefaults      []string

	specs []v1alpha1.EnvironmentSpec
}

// maxEnvFile bounds the read of --environments-file.
const maxEnvFile = 1 << 20

// The environment name pattern of the Team CRD (spec.environments[].name).
var envName = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)

func (e *envFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringSliceVar(&e.Names, "environments", nil, "Ready-made environments, a comma list such as dev,staging, each with the --env-* defaults")
	fl.StringVar(&e.File, "environments-file", "", "Ready-made environments from a YAML file: a list of spec.environments entries (name, description, limits, access, clusterDefaults)")
	fl.Int32Var(&e.MaxClusters, "env-max-clusters", 0, "With --environments: limits.maxClusters of each (0 = no cap)")
	fl.Int32Var(&e.MaxClustersPerMember, "env-max-clusters-per-member", 0, "With --environments: limits.maxClustersPerMember of each (0 = no cap)")
	fl.StringArrayVar(&e.ClusterDefaults, "env-cluster-default", nil, "With --environments: clusterDefaults KEY=VALUE of each (repeatable)")
}

// parse builds the environments; bad input is a usage error naming the flag or the file.
func (e *envFlags) parse(fs *pflag.FlagSet) error {
	envSet := cmdutil.IsSet(fs, "env-max-clusters") || cmdutil.IsSet(fs, "env-max-clusters-per-member") || len(e.ClusterDefaults) > 0
	switch {
	case e.File != "" && len(e.Names) > 0:
		return cmdutil.UsageError("pass --environments or --environments-file, not both")
	case envSet && len(e.Names) == 0:
		return cmdutil.UsageError("the --env-* flags go with --environments")
	case e.File != "":
		return e.readFile()
	}
	if len(e.Names) == 0 {
		return nil
	}
	var p teamedit.EnvPatch
	for _, c := range []struct {
		name string
		v    int32
		dst  **int32
	}{{"env-max-clusters", e.MaxClusters, &p.MaxClusters}, {"env-max-clusters-per-member", e.MaxClustersPerMember, &p.MaxClustersPerMember}} {
		if !cmdutil.IsSet(fs, c.name) {
			continue
		}
		if c.v < 0 {
			return cmdutil.UsageError("--%s must be 0 or more (0 = no cap), got %d", c.name, c.v)
		}
		v := c.v
		*c.dst = &v
	}
	var err error
	if p.Defaults, err = teamedit.ParseClusterDefaults(e.ClusterDefaults, false); err != nil {
		return err
	}
	for _, n := range e.Names {
		env := v1alpha1.EnvironmentSpec{Name: n}
		p.ApplyTo(&env)
		e.specs = append(e.specs, env)
	}
	return e.checkNames("--environments")
}

func (e *envFlags) readFile() error {
	b, err := fileio.ReadFile(e.File, maxEnvFile)
	if err != nil {
		return cmdutil.UsageError("--environments-file: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return cmdutil.UsageError("--environments-file %s: no environments", e.File)
	}
	if err := yaml.UnmarshalStrict(b, &e.specs); err != nil {
		return cmdutil.UsageError("--environments-file %s: want a YAML list of environments (name, description, limits, access, clusterDefaults): %v", e.File, err)
	}
	return e.checkNames("--environments-file " + e.File)
}

func (e *envFlags) checkNames(source string) error {
	seen := map[string]bool{}
	for i, env := range e.specs {
		switch {
		case !envName.MatchString(env.Name) || len(env.Name) > 63:
			return cmdutil.UsageError("%s: environments[%d].name: %q is not an environment name (letters, digits, -, _ and ., at most 63)", source, i, env.Name)
		case seen[env.Name]:
			return cmdutil.UsageError("%s: environments[%d].name: %q is given twice", source, i, env.Name)
		}
		seen[env.Name] = true
	}
	return nil
}
