// Package schema is what the toolkit knows of the kinds it decodes into Go types: their
// table (kinds.go), the conversion of a document's YAML into those types (or into JSON
// values for other kinds) and of the types back into YAML nodes, and validation against
// their CRD schemas (the embedded config/crd) and the API server's metadata rules, as the
// server would refuse them. It takes plain values (a runtime.Object, a yamldoc line index)
// and gives findings as field errors; pkg/manifest words them for the file they came from.
package schema
