// Package spec holds the desired state of each platform object as plain Go
// types, with the validation that can run before anything is sent to a
// server (at plan time). It imports nothing from Terraform.
package spec

import (
	"fmt"
	"strings"
)

// Path addresses an attribute: strings are attribute names, ints list
// indexes, Key values map keys (or names of blocks keyed by name).
type Path []any

// Key is a map key or a block name in a Path.
type Key string

func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch v := s.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		case Key:
			fmt.Fprintf(&b, "[%q]", string(v))
		}
	}
	return b.String()
}

// FieldError is a problem with one attribute, phrased for the person who
// wrote the configuration: what is wrong and what to do about it.
type FieldError struct {
	Path    Path
	Summary string // Title Case, short
	Detail  string // what is wrong and what to do
}

func (e FieldError) Error() string { return e.Path.String() + ": " + e.Detail }

// FieldErrors collects problems; nil when the spec is valid.
type FieldErrors []FieldError

func (es *FieldErrors) add(path Path, summary, format string, args ...any) {
	*es = append(*es, FieldError{Path: path, Summary: summary, Detail: fmt.Sprintf(format, args...)})
}

func (es FieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Err returns es as an error, or nil when empty.
func (es FieldErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
