// Package storeerr is the vocabulary of the errors that the stores (internal/store/...)
// and the lookups (internal/lookup) return when the trouble is not an API status: what a
// request lacks, input that cannot be read, a refusal by admission, a server that does not
// answer. They are worded in the stores' terms, never as command-line advice: the command
// layer (cmdutil.Explain) names the flags to pass and picks the exit code.
//
// Objects that are missing, exist already, changed meanwhile or may not be touched are
// apimachinery status errors (NotFound, AlreadyExists, Conflict, Forbidden), offline and
// live alike; this package is for the rest. It imports neither layer, so both can use it.
package storeerr

import (
	"errors"
	"fmt"
	"time"

	"github.com/butlerdotdev/butler-toolkit/internal/redact"
)

// Need is what a request lacks for a store or lookup to go on.
type Need string

// What a MissingError can lack.
const (
	// NeedIdentity: offline there is no server to say who is asking.
	NeedIdentity Need = "identity"
	// NeedTeam: no team was named.
	NeedTeam Need = "team"
	// NeedEnvironment: no environment was named.
	NeedEnvironment Need = "environment"
	// NeedProvider: no ProviderConfig was named and none, or several, can be chosen.
	NeedProvider Need = "provider"
	// NeedWritableSource: the objects to change came from stdin, which cannot be written.
	NeedWritableSource Need = "writable source"
	// NeedDirectory: the write needs a manifests directory, not a file.
	NeedDirectory Need = "directory"
	// NeedKubeconfig: there is no kubeconfig (nor a pod's service account) to reach a
	// cluster with.
	NeedKubeconfig Need = "kubeconfig"
	// NeedImpersonatedUser: groups are to be impersonated without a user, which the API
	// server does not do.
	NeedImpersonatedUser Need = "impersonated user"
	// NeedServer: what was asked only a live cluster does (server-side dry run, a watch,
	// a Secret's value), and the store works on manifests.
	NeedServer Need = "server"
)

// MissingError is a request that does not give a store or lookup what it needs. Msg says
// what is missing in the stores' words; the command layer adds how to give it.
type MissingError struct {
	Need Need
	Msg  string
}

func (e *MissingError) Error() string { return e.Msg }

// Missing returns a MissingError for need with a formatted message.
func Missing(need Need, format string, a ...any) error {
	return &MissingError{Need: need, Msg: fmt.Sprintf(format, a...)}
}

// IsMissing reports whether err is (or wraps) a MissingError for need.
func IsMissing(err error, need Need) bool {
	var m *MissingError
	return errors.As(err, &m) && m.Need == need
}

// Sentinels for errors.Is.
var (
	// ErrBadInput is wrapped by errors about input a store cannot read: manifests that do
	// not load, a kubeconfig that does not parse.
	ErrBadInput = errors.New("bad input")
	// ErrDenied is wrapped by refusals that come as another status than Forbidden: an
	// admission webhook or a ValidatingAdmissionPolicy may answer 400 or 422.
	ErrDenied = errors.New("denied")
	// ErrFileExists is a new object's file already on disk (offline writes never
	// overwrite one).
	ErrFileExists = errors.New("the file already exists")
)

// marked is an error that keeps its message and also matches a sentinel.
type marked struct {
	err  error
	mark error
}

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.mark} }

// BadInput marks err as ErrBadInput, keeping its message and what it wraps.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, mark: ErrBadInput}
}

// Denied marks err as ErrDenied, keeping its message and what it wraps (the server's
// StatusError stays reachable with errors.As).
func Denied(err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, mark: ErrDenied}
}

// Phase is what a request was waiting for when its deadline passed.
type Phase string

// The phases of an UnansweredError.
const (
	// PhaseRequest: the whole request, under the overall request timeout.
	PhaseRequest Phase = "request"
	// PhaseTLSHandshake: the TLS handshake, under the transport's own limit.
	PhaseTLSHandshake Phase = "TLS handshake"
)

// UnansweredError is an API server that did not answer within a deadline.
type UnansweredError struct {
	// Host is the server's URL, as in the kubeconfig (Error redacts its credentials).
	Host string
	// After is the deadline that passed.
	After time.Duration
	Phase Phase
}

func (e *UnansweredError) Error() string {
	if e.Phase == PhaseTLSHandshake {
		return fmt.Sprintf("the API server at %s did not complete the TLS handshake within %s", redact.URL(e.Host), e.After)
	}
	return fmt.Sprintf("the API server at %s did not answer within %s", redact.URL(e.Host), e.After)
}

// UnansweredError has no Timeout method on purpose: client-go retries a watch whose error
// says it timed out, ten times, and a server that did not answer once is not asked again.
