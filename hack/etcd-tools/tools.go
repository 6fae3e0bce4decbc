//go:build tools

// Package tools pins etcd (its main package is the server module's root) so that
// `go mod tidy` keeps its dependencies in this module.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
)
