// Package parity holds no code, only its test: the webhook (internal/webhook, served by
// the test control plane) and the commands' preflight (the checks of teamedit and
// providerutil the CLIs run before sending) refuse the same requests with the same words.
// It lives in the command layer because it calls the commands' checks, which nothing
// outside the command layer may import.
package parity
