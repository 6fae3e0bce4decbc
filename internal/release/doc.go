// Package release holds the checks of the release configuration (.goreleaser.yaml): its
// structure, always, and `goreleaser check` with the goreleaser that hack/goreleaser.sh
// builds. It has no code of its own.
package release
