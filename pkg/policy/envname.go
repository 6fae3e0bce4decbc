package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// SameEnvironment reports whether two environment names differ at most in ASCII case. The
// server matches environment labels exactly, so "dev" and "DEV" are two environments there,
// each with its own caps; a Team holding both is therefore refused by the tools
// (DuplicateEnvironments), and commands use SameEnvironment only to suggest the name meant.
// Non-ASCII bytes compare exactly.
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

// EnvironmentOf returns the environment of team named exactly env, or nil: the server finds
// a cluster's environment by the exact label value.
func EnvironmentOf(team *v1alpha1.Team, env string) *v1alpha1.EnvironmentSpec {
	if team == nil || env == "" {
		return nil
	}
	return team.Environment(env)
}

// InEnvironment reports whether a cluster's environment label is env, exactly
// (case-sensitive), as the server counts an environment's clusters.
func InEnvironment(c *v1alpha1.TenantCluster, env string) bool {
	return c.Labels[v1alpha1.LabelEnvironment] == env
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
					fmt.Sprintf("differs from %q only in case: the server counts them as two environments, each with its own caps", envs[j].Name)))
				break
			}
		}
	}
	return errs
}
