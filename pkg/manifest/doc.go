// Package manifest reads and writes Butler manifests on disk.
//
// Reading is strict: every document must carry apiVersion and kind, and the kinds the
// toolkit knows (Team, TenantCluster, ProviderConfig, User, IdentityProvider, TenantAddon,
// ClusterCreationPolicy, NetworkPool, IPAllocation, Steward's TenantControlPlane) are decoded into their Go types refusing unknown fields,
// duplicate fields and wrong types. Other kinds are kept as unstructured objects without
// checks. Errors are *DecodeError values (joined with errors.Join when there are several)
// that name the file, the line, the document, the object and the field.
//
// Decode checks structure and types only. Validate checks what the CRD schemas (the ones
// generated into config/crd, which match the live API) would refuse: minimums, patterns,
// enums, required fields, unique list keys. Load does both, and validates an object whose
// fields did not all decode too (leaving out what it says of those fields), so that one
// run reports every problem of an object. Known kinds are decoded from the YAML node tree
// straight into their Go types, in one pass.
//
// Writing edits files in place: only the documents that change are touched, and within a
// document only the lines of the changed values, so comments, key order, blank lines and
// the other documents stay byte for byte. When an edit cannot be expressed as such a
// local change (flow style, anchors, reordered lists), the affected block, or in the last
// resort the document, is re-rendered; every result is parsed back and checked before
// anything is written.
//
// The work is done below this package, which keeps the API: pkg/manifest/edit writes,
// pkg/manifest/schema converts and validates the known kinds, pkg/manifest/yamldoc splits
// and parses a file's documents for both.
package manifest
