//go:build tools

// Package tools pins the lint gate's tools, staticcheck and deadcode, in a module of their
// own, so their dependencies never reach the project's go.mod. `make lint` builds them
// into a cache folder outside the work tree (hack/lint.sh).
package tools

import (
	_ "golang.org/x/tools/cmd/deadcode"
	_ "honnef.co/go/tools/cmd/staticcheck"
)
