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
	// Detail says what is wrong and what to do, in plain words. When
	// Settings is empty it is the text itself. Otherwise it is a template:
	// {n} stands for Settings[n], which DetailIn writes in a Notation
	// (capacity: "reservation", or a configuration language's own syntax),
	// and {{ and }} for literal braces (words appended to a template must
	// double theirs).
	Detail   string
	Settings []Setting
}

// DetailIn is the detail with its settings written in n.
func (e FieldError) DetailIn(n Notation) string {
	return renderTemplate(e.Detail, e.Settings, n)
}

// Describe is "path: detail", with the settings written in n.
func (e FieldError) Describe(n Notation) string { return e.Path.String() + ": " + e.DetailIn(n) }

func (e FieldError) Error() string { return e.Describe(Plain) }

// FieldErrors collects problems; nil when the spec is valid.
type FieldErrors []FieldError

// add records a problem. format is a fmt format; an argument that is a
// Setting, Object or Ref (formatted with %v) becomes one of the error's
// Settings, and one made by textf brings its own.
func (es *FieldErrors) add(path Path, summary, format string, args ...any) {
	t := textf(format, args...)
	*es = append(*es, FieldError{Path: path, Summary: summary, Detail: t.format, Settings: t.settings})
}

// Describe is every problem as "path: detail", joined by "; ", with the
// settings written in n.
func (es FieldErrors) Describe(n Notation) string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Describe(n)
	}
	return strings.Join(msgs, "; ")
}

func (es FieldErrors) Error() string { return es.Describe(Plain) }

// Err returns es as an error, or nil when empty.
func (es FieldErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
