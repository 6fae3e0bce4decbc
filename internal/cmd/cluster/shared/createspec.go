package shared

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// CreateSpec is what cluster create and cluster run ask of a new cluster: the create flags,
// registered by AddCreateFlags and turned into typed values by Parse.
type CreateSpec struct {
	Team         string
	Environment  string
	Provider     string
	Workers      int32
	CPU          int32
	Memory       string
	Disk         string
	Version      string
	Addons       []string
	TTL          time.Duration
	GenerateName string
	Labels       []string

	explicit policy.Explicit
	extras   []addon
	options  map[string]*string // option type -> --image, --network, ... (options.go)
	labels   map[string]string
}

type addon struct{ name, version string }

// AddCreateFlags registers the flags of a new cluster on fs.
func AddCreateFlags(fs *pflag.FlagSet, cs *CreateSpec) {
	cmdutil.TeamFlag(fs, &cs.Team, cmdutil.TeamOwner)
	fs.StringVar(&cs.Environment, "environment", "", "Environment of the team to create the cluster in")
	fs.StringVar(&cs.Provider, "provider", "", "ProviderConfig name (default: the team's, or the only visible one)")
	fs.Int32Var(&cs.Workers, "workers", 0, "Worker nodes")
	fs.Int32Var(&cs.CPU, "cpu", 0, "CPU cores per worker")
	fs.StringVar(&cs.Memory, "memory", "", "Memory per worker, a quantity such as 16Gi")
	fs.StringVar(&cs.Disk, "disk", "", "Disk per worker, a quantity such as 100Gi")
	fs.StringVar(&cs.Version, "kubernetes-version", "", "Kubernetes version, vX.Y.Z")
	fs.StringArrayVar(&cs.Addons, "addon", nil, "Extra addon as NAME@VERSION (repeatable)")
	addOptionFlags(fs, cs)
	fs.DurationVar(&cs.TTL, "ttl", 0, "Time to live: the cluster carries its expiry (butler.butlerlabs.dev/expires-at), after which butleradm cluster reap deletes it")
	fs.StringVar(&cs.GenerateName, "generate-name", "", "Name the cluster PREFIX followed by 5 random characters, instead of NAME")
	fs.StringArrayVar(&cs.Labels, "label", nil, "Label KEY=VALUE on the cluster (repeatable)")
}

// Parse turns the flags into typed values; bad values are usage errors (exit 2). name is
// the NAME argument, "" when there is none (then --generate-name is needed).
func (cs *CreateSpec) Parse(fs *pflag.FlagSet, name string) error {
	if err := cs.parseName(name); err != nil {
		return err
	}
	if cs.Team == "" {
		return cmdutil.UsageError("--team is required")
	}
	if cmdutil.IsSet(fs, "workers") {
		if cs.Workers < 1 {
			return cmdutil.UsageError("--workers must be at least 1, got %d", cs.Workers)
		}
		cs.explicit.WorkerCount = &cs.Workers
	}
	if cmdutil.IsSet(fs, "cpu") {
		if cs.CPU < 1 {
			return cmdutil.UsageError("--cpu must be at least 1, got %d", cs.CPU)
		}
		cs.explicit.WorkerCPU = &cs.CPU
	}
	for _, q := range []struct {
		flag, value string
		dst         **resource.Quantity
	}{{"memory", cs.Memory, &cs.explicit.WorkerMemory}, {"disk", cs.Disk, &cs.explicit.WorkerDisk}} {
		if q.value == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil || v.Sign() <= 0 {
			return cmdutil.UsageError("--%s: %q is not a positive quantity such as 16Gi", q.flag, q.value)
		}
		*q.dst = &v
	}
	if cs.Version != "" {
		v, err := policy.NormalizeVersion(cs.Version)
		if err != nil {
			return cmdutil.UsageError("--kubernetes-version: %v", err)
		}
		cs.explicit.KubernetesVersion = v
	}
	if fs.Changed("ttl") && cs.TTL <= 0 {
		return cmdutil.UsageError("--ttl must be positive, got %s", cs.TTL)
	}
	cs.extras = nil
	for _, a := range cs.Addons {
		name, version, ok := strings.Cut(a, "@")
		if !ok || name == "" || version == "" {
			return cmdutil.UsageError("--addon %q: want NAME@VERSION, for example cert-manager@v1.16.0", a)
		}
		cs.extras = append(cs.extras, addon{name, version})
	}
	return cs.parseLabels()
}

// generatedSuffix is how many random characters --generate-name adds, as the API server's
// generateName does.
const generatedSuffix = 5

func (cs *CreateSpec) parseName(name string) error {
	switch {
	case name != "" && cs.GenerateName != "":
		return cmdutil.UsageError("pass a cluster NAME or --generate-name PREFIX, not both")
	case name == "" && cs.GenerateName == "":
		return cmdutil.UsageError("requires a cluster NAME or --generate-name PREFIX")
	case name != "":
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return cmdutil.UsageError("invalid cluster name %q: %s", name, strings.Join(errs, "; "))
		}
	default:
		if errs := validation.IsDNS1123Label(cs.GenerateName + strings.Repeat("x", generatedSuffix)); len(errs) > 0 {
			return cmdutil.UsageError("--generate-name %q: the prefix and %d random characters must make a valid cluster name: %s", cs.GenerateName, generatedSuffix, strings.Join(errs, "; "))
		}
	}
	return nil
}

// parseLabels checks --label: KEY=VALUE each, valid label syntax, and none of the labels
// the tools set themselves (team and environment: the admission rules read them).
func (cs *CreateSpec) parseLabels() error {
	cs.labels = map[string]string{}
	for _, l := range cs.Labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return cmdutil.UsageError("--label %q: want KEY=VALUE", l)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return cmdutil.UsageError("--label %q: invalid key: %s", l, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return cmdutil.UsageError("--label %q: invalid value: %s", l, strings.Join(errs, "; "))
		}
		if k == v1alpha1.LabelTeam || k == v1alpha1.LabelEnvironment {
			return cmdutil.UsageError("--label %q: %s is set from --team and --environment", l, k)
		}
		cs.labels[k] = v
	}
	return nil
}

// AddLabel adds a label the command computes (cluster run's CI labels); a --label of the
// same key wins.
func (cs *CreateSpec) AddLabel(k, v string) {
	if cs.labels == nil {
		cs.labels = map[string]string{}
	}
	if _, set := cs.labels[k]; !set {
		cs.labels[k] = v
	}
}

// Where is the team, or the environment of the team, for messages.
func Where(team, env string) string {
	if env == "" {
		return fmt.Sprintf("team %q", team)
	}
	return fmt.Sprintf("environment %q of team %q", env, team)
}
