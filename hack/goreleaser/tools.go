//go:build tools

// Package tools pins goreleaser in a module of its own, so its (large) dependency tree
// never reaches the project's go.mod. `make goreleaser` builds it into a cache folder
// outside the work tree (hack/goreleaser.sh).
package tools

import (
	_ "github.com/goreleaser/goreleaser/v2"
)
