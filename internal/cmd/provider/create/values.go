package create

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// setting is one row of the settings table: a flag, the provider types it applies to (nil:
// every provider, the spec's network and limits), its usage, and the setter that writes its
// value into the ProviderConfig's spec. A setter runs only when the flag was given, on the
// command line or by the configuration: whether it was is recorded by the flag's own value
// (given), not read from pflag's Changed, which the configuration also sets.
type setting struct {
	flag      string
	providers []string
	usage     string
	add       func(fs *pflag.FlagSet, usage string)
	set       func(s *v1alpha1.ProviderConfigSpec) error
	given     bool
}

// appliesTo reports whether the setting goes with provider type p.
func (st *setting) appliesTo(p string) bool {
	if st.providers == nil {
		return true
	}
	for _, x := range st.providers {
		if x == p {
			return true
		}
	}
	return false
}

// register adds the flag; provider-specific usage starts with the providers it applies to.
// Repeatable flags count as given when they hold values; the others record a Set.
func (st *setting) register(fs *pflag.FlagSet) {
	usage := st.usage
	if st.providers != nil {
		usage = strings.Join(st.providers, ", ") + ": " + usage
	}
	st.add(fs, usage)
	fl := fs.Lookup(st.flag)
	switch v := fl.Value.(type) {
	case pflag.SliceValue:
		st.given = true // its setter looks at the values themselves
	case interface{ IsBoolFlag() bool }:
		fl.Value = &recordedBool{recorded{Value: fl.Value, given: &st.given}, v.IsBoolFlag()}
	default:
		fl.Value = &recorded{Value: fl.Value, given: &st.given}
	}
}

// recorded notes that a flag's value was set, by the command line or the configuration.
type recorded struct {
	pflag.Value
	given *bool
}

func (r *recorded) Set(s string) error { *r.given = true; return r.Value.Set(s) }

// recordedBool keeps --insecure working without a value.
type recordedBool struct {
	recorded
	isBool bool
}

func (r *recordedBool) IsBoolFlag() bool { return r.isBool }

type spec = v1alpha1.ProviderConfigSpec

// The constructors of rows, one per flag type; each row holds its own value.

func str(flag string, providers []string, usage string, set func(*spec, string)) *setting {
	var v string
	return &setting{flag: flag, providers: providers, usage: usage,
		add: func(fs *pflag.FlagSet, u string) { fs.StringVar(&v, flag, "", u) },
		set: func(s *spec) error { set(s, v); return nil }}
}

func strs(flag string, providers []string, usage string, set func(*spec, []string)) *setting {
	var v []string
	return &setting{flag: flag, providers: providers, usage: usage,
		add: func(fs *pflag.FlagSet, u string) { fs.StringArrayVar(&v, flag, nil, u) },
		set: func(s *spec) error {
			if len(v) > 0 {
				set(s, v)
			}
			return nil
		}}
}

func i32(flag string, providers []string, usage string, set func(*spec, *int32)) *setting {
	var v int32
	return &setting{flag: flag, providers: providers, usage: usage,
		add: func(fs *pflag.FlagSet, u string) { fs.Int32Var(&v, flag, 0, u) },
		set: func(s *spec) error { x := v; set(s, &x); return nil }}
}

func boolean(flag string, providers []string, usage string, set func(*spec, *bool)) *setting {
	var v bool
	return &setting{flag: flag, providers: providers, usage: usage,
		add: func(fs *pflag.FlagSet, u string) { fs.BoolVar(&v, flag, false, u) },
		set: func(s *spec) error { x := v; set(s, &x); return nil }}
}

// pools is the --pool row: NAME[:PRIORITY] values, parsed when set into the spec.
func pools(flag, usage string) *setting {
	var v []string
	return &setting{flag: flag, usage: usage,
		add: func(fs *pflag.FlagSet, u string) { fs.StringArrayVar(&v, flag, nil, u) },
		set: func(s *spec) error {
			if len(v) == 0 {
				return nil
			}
			refs, err := parsePools(v)
			network(s).PoolRefs = refs
			return err
		}}
}
