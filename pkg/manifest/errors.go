package manifest

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// Stdin is the file name that stands for standard input.
const Stdin = "-"

// Source says where an object was read from.
type Source struct {
	// File is the path as given, or "-" for standard input.
	File string
	// Doc is the 0-based index of the YAML document in the file. Documents that are empty
	// or hold only comments count too, so the index matches what an editor shows.
	Doc int
	// Line is the 1-based line where the document (or list item) starts; 0 if unknown.
	Line int
	// Item is the 1-based position of the object in the items of a List document
	// (kind: List or TeamList, ...); 0 when the document is the object itself.
	Item int
}

// String renders the source as "file:line (document n)", n counting from 1.
func (s Source) String() string {
	var b strings.Builder
	b.WriteString(displayFile(s.File))
	if s.Line > 0 {
		b.WriteString(":" + strconv.Itoa(s.Line))
	}
	b.WriteString(" (" + docLabel(s.Doc, s.Item) + ")")
	return b.String()
}

func displayFile(f string) string {
	if f == Stdin {
		return "<stdin>"
	}
	return f
}

func docLabel(doc, item int) string {
	s := "document " + strconv.Itoa(doc+1)
	if item > 0 {
		s += ", item " + strconv.Itoa(item)
	}
	return s
}

// Object is one object read from a manifest.
type Object struct {
	Source     Source
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
	// Obj is a typed pointer for the kinds the toolkit knows (*v1alpha1.Team, ...,
	// *stewardv1alpha1.TenantControlPlane) and *unstructured.Unstructured otherwise.
	Obj runtime.Object

	// lines gives the line of the key of each field path (as field.Path renders it);
	// nil for an object built in memory.
	lines *lineIndex
	// NotJudged are the fields left out of Obj because the tools do not know them yet
	// (Options.Tolerate), where they are written.
	NotJudged []FieldOrigin
	// origins point fields of a rendered object at the patch that set them (Position).
	origins []FieldOrigin
	// explicit are the fields the document sets to a value Obj cannot show (an omitempty
	// field written as "", 0, false, [] or {}), for validation; nil for nearly every
	// object, and a pointer so that the others carry one word for it.
	explicit *explicitValues
}

// Line returns the line of a field path such as "spec.workers.replicas", or of its nearest
// ancestor that was in the file, or the object's own line.
func (o Object) Line(path string) int {
	for p := path; p != ""; p = parentPath(p) {
		if l, ok := o.lines.Get(p); ok {
			return l
		}
	}
	return o.Source.Line
}

// parentPath strips the last element of a field path: "a.b[0]" -> "a.b" -> "a".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// DecodeError is one problem with one document. Error() renders it as
//
//	file:line: Kind "namespace/name" (document n): field.path: message
//
// leaving out what is unknown: the line, the object (then "document n:"), the field.
type DecodeError struct {
	File string
	// Doc is the 0-based document index; it is shown counting from 1.
	Doc int
	// Item is the 1-based position in a List document, 0 otherwise.
	Item int
	// Line is the line of the field when known, else of the document; 0 if unknown.
	Line      int
	Kind      string
	Namespace string
	Name      string
	// Field is the path of the offending field, e.g. "spec.resourceLimits.maxClusters".
	Field string
	Msg   string
	// Strict is set on a document refused only because Options.Strict asked for every
	// document of another API group to be listed: without strict mode it is kept,
	// unchecked. The caller words how strict mode is turned off.
	Strict bool
	// NotObject is set on a document that is YAML (or JSON) but not a Kubernetes object:
	// a mapping with none of apiVersion, kind, metadata and spec (a tool's configuration,
	// Helm values). LoadWith and LoadFiles list it in Set.NotObjects instead of refusing
	// it; Decode, which reads one file named for its objects, returns it as an error.
	NotObject bool
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	inMemory := e.File == ""
	if !inMemory {
		b.WriteString(displayFile(e.File))
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	switch {
	case inMemory && e.Kind != "":
		// An object built in memory has no file or document to name.
		b.WriteString(e.Kind)
		if e.Name != "" {
			b.WriteString(" " + strconv.Quote(qualified(e.Namespace, e.Name)))
		}
		b.WriteString(": ")
	case e.Kind != "":
		b.WriteString(e.Kind)
		if e.Name != "" {
			b.WriteString(" " + strconv.Quote(qualified(e.Namespace, e.Name)))
		}
		b.WriteString(" (" + docLabel(e.Doc, e.Item) + "): ")
	case !inMemory:
		b.WriteString(docLabel(e.Doc, e.Item) + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errorAt builds a DecodeError for an object.
func (o *Object) errorAt(field string, line int, format string, args ...any) *DecodeError {
	if line == 0 {
		line = o.Line(field)
	}
	return &DecodeError{
		File: o.Source.File, Doc: o.Source.Doc, Item: o.Source.Item, Line: line,
		Kind: o.Kind, Namespace: o.Namespace, Name: o.Name,
		Field: field, Msg: fmt.Sprintf(format, args...),
	}
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
