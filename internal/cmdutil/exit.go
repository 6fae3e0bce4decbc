// Package cmdutil holds what every command shares: the factory of dependencies, global
// options, exit codes and error kinds.
package cmdutil

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
)

// Exit codes, documented in the README and stable for scripts.
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2 // usage errors and bad input (flags, manifests)
	ExitNotFound = 3
	ExitDenied   = 4 // refused by policy or permissions
	// ExitInternal is a bug in the tools (a recovered panic): EX_SOFTWARE of sysexits.h,
	// so a crash never reads as bad input.
	ExitInternal = 70
)

// ExitError carries the exit code an error should end the process with.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError is an error in how the command was called or in its input (exit 2).
func UsageError(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// NotFoundError reports a missing object (exit 3).
func NotFoundError(format string, a ...any) error {
	return &ExitError{Code: ExitNotFound, Err: fmt.Errorf(format, a...)}
}

// DeniedError reports a refusal by policy or permissions (exit 4).
func DeniedError(err error) error { return &ExitError{Code: ExitDenied, Err: err} }

// WithCode wraps err with an exit code.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// SilentError ends the process with a code after the command already printed what to say.
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// CodeOf returns the exit code for err: the code it carries, else that of a store's error
// (storeerr), else that of an API status (CodeOfAPI).
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var s *SilentError
	if errors.As(err, &s) {
		return s.Code
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	var m *storeerr.MissingError
	switch {
	case errors.As(err, &m), errors.Is(err, storeerr.ErrBadInput), errors.Is(err, storeerr.ErrFileExists):
		return ExitUsage
	case errors.Is(err, storeerr.ErrDenied):
		return ExitDenied
	}
	return CodeOfAPI(err)
}

// CodeOfAPI maps API errors, from a server or from the offline store, to exit codes:
// not found 3, forbidden or webhook denial 4, invalid 2.
func CodeOfAPI(err error) int {
	switch {
	case apierrors.IsNotFound(err):
		return ExitNotFound
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return ExitDenied
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return ExitUsage
	}
	return ExitFailure
}

// CancelledError is a prompt the user declined: exit 1, and the root prints the message
// alone, without "Error:", since nothing went wrong.
type CancelledError struct{ Msg string }

func (e *CancelledError) Error() string { return e.Msg }

// Cancelled returns a CancelledError.
func Cancelled(format string, a ...any) error {
	return &CancelledError{Msg: fmt.Sprintf(format, a...)}
}

// HintedError is an error with lines for people printed after it: what the refusal means
// in figures and what to do next. The message itself is unchanged (a server's refusal
// stays byte for byte); commands add hints only when HintsEnabled and the output is for
// people, so scripts see the message alone.
type HintedError struct {
	Err  error
	Hint []string
}

func (e *HintedError) Error() string { return e.Err.Error() }
func (e *HintedError) Unwrap() error { return e.Err }

// WithHint adds hint lines to err; none leaves err as it is.
func WithHint(err error, hint []string) error {
	if err == nil || len(hint) == 0 {
		return err
	}
	return &HintedError{Err: err, Hint: hint}
}
