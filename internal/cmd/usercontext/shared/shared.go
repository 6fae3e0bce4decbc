// Package shared is what the context commands share: the config keys a context is made
// of, its view, and where the current one comes from.
package shared

import (
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
)

// Keys are the config keys a context is made of: the names of the flags they default.
var Keys = []string{"team", "environment"}

// View is what context use and show print for programs.
type View struct {
	Team        string `json:"team,omitempty"`
	Environment string `json:"environment,omitempty"`
	// Source is where each came from: "config file PATH", or "BUTLER_TEAM" for the
	// environment variable.
	TeamSource        string `json:"teamSource,omitempty"`
	EnvironmentSource string `json:"environmentSource,omitempty"`
}

// Name is the prompt-friendly form: team/environment, team alone, or "".
func (v View) Name() string {
	if v.Team != "" && v.Environment != "" {
		return v.Team + "/" + v.Environment
	}
	return v.Team
}

// Current is the default context: BUTLER_TEAM and BUTLER_ENVIRONMENT (read with getenv)
// over the config file's keys, and the config file's path.
func Current(configFlag string, getenv func(string) string) (View, string, error) {
	path, err := cmdutil.WritableConfigPath(configFlag)
	if err != nil {
		return View{}, "", err
	}
	keys, err := cmdutil.ReadConfigKeys(path)
	if err != nil {
		return View{}, "", err
	}
	var v View
	for _, k := range Keys {
		val, src := strings.TrimSpace(keys[k]), "config file "+path
		if e := getenv("BUTLER_" + strings.ToUpper(k)); e != "" {
			val, src = e, "BUTLER_"+strings.ToUpper(k)
		}
		if k == "team" {
			v.Team, v.TeamSource = val, src
		} else if val != "" {
			v.Environment, v.EnvironmentSource = val, src
		}
	}
	if v.Team == "" {
		v.TeamSource = ""
	}
	return v, path, nil
}
