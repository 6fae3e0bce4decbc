//go:build tools

// Package tools pins the Kubernetes commands built by hack/testbin.sh so that
// `go mod tidy` keeps their dependencies in this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
