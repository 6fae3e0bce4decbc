//go:build tools

// Package tools pins the code generators in a module of their own, so their
// dependencies never reach the project's go.mod.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
