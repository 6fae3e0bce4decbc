// Package crd embeds the CustomResourceDefinitions generated into this directory by
// controller-gen, so that manifests can be validated against them without a cluster.
package crd

import "embed"

// FS holds the generated CRD files (*.yaml).
//
//go:embed *.yaml
var FS embed.FS
