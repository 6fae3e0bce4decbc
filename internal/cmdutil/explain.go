package cmdutil

import (
	"errors"
	"strings"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
	"github.com/butlerdotdev/butler-toolkit/pkg/policy"
)

// Explain turns an error of a store or lookup into what the user reads: the advice naming
// the flags that give what was missing, and the exit code (CodeOf: a code the error
// already carries wins). Every other error is
// returned as it is. The result still wraps err, so errors.Is and errors.As see through it.
//
// The stores word their errors in their own terms ("the manifests came from stdin"); the
// flags are the command layer's, so they are added here, in one place for every command.
func Explain(err error) error {
	var m *storeerr.MissingError
	var u *storeerr.UnansweredError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &u):
		// The whole message: what the HTTP client put around it ("Get \\"https://...\\": ")
		// says nothing the message does not.
		msg := u.Error()
		if u.Phase == storeerr.PhaseRequest {
			msg += " (--request-timeout)"
		}
		return &ExitError{Code: CodeOf(err), Err: &explained{msg: msg, err: err}}
	case errors.As(err, &m):
		// The command's own context around the store's message stays.
		msg := strings.Replace(err.Error(), m.Msg, advise(m), 1)
		return &ExitError{Code: CodeOf(err), Err: &explained{msg: msg, err: err}}
	case errors.Is(err, policy.ErrNoKubernetesVersion):
		msg := strings.Replace(err.Error(), policy.ErrNoKubernetesVersion.Error(),
			"no Kubernetes version: pass --kubernetes-version, or set clusterDefaults.kubernetesVersion on the team or the environment", 1)
		return &ExitError{Code: CodeOf(err), Err: &explained{msg: msg, err: err}}
	case len(strictRefusals(err)) > 0:
		return &ExitError{Code: CodeOf(err), Err: &explained{msg: adviseStrict(err), err: err}}
	}
	return err
}

// strictAdvice follows each document strict mode refused: how it is turned on and off.
const strictAdvice = " (--strict, BUTLER_STRICT or strict: true in the config file list every such document; --strict=false skips them)"

// strictRefusals are the messages of the documents in err that strict mode alone refused
// (manifest.DecodeError.Strict).
func strictRefusals(err error) map[string]bool {
	found := map[string]bool{}
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *manifest.DecodeError:
			if e.Strict {
				found[e.Error()] = true
			}
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return found
}

// adviseStrict is err's message with strictAdvice after each line that ends with a
// document strict mode refused; the other problems, one a line, stay as they are.
func adviseStrict(err error) string {
	refused := strictRefusals(err)
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		for m := range refused {
			if strings.HasSuffix(l, m) {
				lines[i] += strictAdvice
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// advise is a MissingError's message with the advice for what it lacks.
func advise(m *storeerr.MissingError) string {
	switch m.Need {
	case storeerr.NeedIdentity:
		return m.Msg + ": pass --as EMAIL (and --as-group GROUP), or set as: in the config file"
	case storeerr.NeedTeam:
		return "--team is required"
	case storeerr.NeedEnvironment:
		return "--environment is required"
	case storeerr.NeedProvider:
		return m.Msg + ": pass --provider NAME"
	case storeerr.NeedWritableSource:
		return m.Msg + "; pass --manifests DIR or FILE"
	case storeerr.NeedDirectory:
		return m.Msg + "; pass --manifests DIR"
	case storeerr.NeedKubeconfig:
		return m.Msg + ": pass --kubeconfig FILE or set KUBECONFIG to reach a Butler management cluster, or pass --manifests PATH to work on manifests"
	case storeerr.NeedServer:
		return m.Msg + ": this needs a live management cluster; drop --manifests and pass --kubeconfig or --context"
	case storeerr.NeedImpersonatedUser:
		return "--as-group needs --as: the API server impersonates groups only together with a user"
	}
	return m.Msg
}

// explained is an error with the advice in its message, wrapping the original.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }
