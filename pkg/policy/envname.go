package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// SameEnvironment reports whether two environment names name one environment. Names are
// label values (ASCII only), and "dev" and "DEV" in one Team would let clusters labelled
// with one escape the caps of the other, so names compare ASCII case-insensitively. It is
// the one comparison of environment names in the toolkit (docs/environments-and-migration.md).
// Non-ASCII bytes compare exactly: Unicode case folding would make the Kelvin sign equal
// to "k".
func SameEnvironment(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// EnvironmentOf returns the environment of team that env names (SameEnvironment), or nil.
// The exact name wins, should a team (refused by DuplicateEnvironments) hold two.
func EnvironmentOf(team *v1alpha1.Team, env string) *v1alpha1.EnvironmentSpec {
	if team == nil || env == "" {
		return nil
	}
	if e := team.Environment(env); e != nil {
		return e
	}
	for i := range team.Spec.Environments {
		if SameEnvironment(team.Spec.Environments[i].Name, env) {
			return &team.Spec.Environments[i]
		}
	}
	return nil
}

// InEnvironment reports whether a cluster's environment label names env.
func InEnvironment(c *v1alpha1.TenantCluster, env string) bool {
	return SameEnvironment(c.Labels[v1alpha1.LabelEnvironment], env)
}

// DuplicateEnvironments reports environments of a Team whose names differ from an earlier
// one only in case: the CRD's list key is exact, so the server would store both.
func DuplicateEnvironments(team *v1alpha1.Team) field.ErrorList {
	var errs field.ErrorList
	envs := team.Spec.Environments
	for i := range envs {
		for j := 0; j < i; j++ {
			if envs[i].Name != envs[j].Name && SameEnvironment(envs[i].Name, envs[j].Name) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "environments").Index(i).Child("name"), envs[i].Name,
					fmt.Sprintf("the same environment as %q (environment names compare case-insensitively)", envs[j].Name)))
				break
			}
		}
	}
	return errs
}
