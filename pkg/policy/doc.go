// Package policy decides what Butler's server would decide: effective roles, cluster
// defaults with their sources, quota usage, and every admission rule with the server's
// exact message (docs/rules.md). It is pure: callers hand it the objects, it reads no
// cluster and no file, and it imports nothing of the CLI, so the CLIs, CI pipelines and an
// admission webhook all get the same answer.
package policy
