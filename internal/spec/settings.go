package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Setting is a value for a field that a message suggests or quotes ("set
// capacity to reservation"), kept as data so that the caller writes it in
// the reader's language. Path names the field as the message does (usually
// its name, relative to the object the message is about); an empty Path is a
// bare value, such as an example element of a list. Value is a string, bool,
// int, []any (a list), Object or Ref.
type Setting struct {
	Path  Path
	Value any
}

func (s Setting) String() string { return Plain.Setting(s) }

// Object is a value made of fields, in order: a nested object, or a map's
// entries (their Path a Key).
type Object []Setting

// Ref is a value to take from another object rather than write out: the
// Field of Object.
type Ref struct{ Object, Field string }

// ProjectNumberRef is the number of the Google Cloud project.
var ProjectNumberRef = Ref{Object: "Google Cloud project", Field: "number"}

// Notation says how to write settings.
type Notation struct {
	Assign      string // between a field and its value
	OpenObject  string // before an Object's fields
	CloseObject string // after them
	// Ref names where a Ref's value comes from; nil, or "", says it in words.
	Ref func(Ref) string
}

// Plain is the notation of Error: capacity: "reservation", {name: "x"}.
var Plain = Notation{Assign: ": ", OpenObject: "{", CloseObject: "}"}

// Setting writes s: the field, then its value.
func (n Notation) Setting(s Setting) string {
	if len(s.Path) == 0 {
		return n.Value(s.Value)
	}
	return n.field(s.Path) + n.Assign + n.Value(s.Value)
}

// field writes a field's path; a map key alone is written bare when it is
// an identifier.
func (n Notation) field(p Path) string {
	if k, ok := p[0].(Key); ok && len(p) == 1 {
		if isIdentifier(string(k)) {
			return string(k)
		}
		return strconv.Quote(string(k))
	}
	return p.String()
}

// Value writes a setting's value: strings quoted, lists in [ ], objects
// between OpenObject and CloseObject.
func (n Notation) Value(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = n.Value(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Object:
		if len(v) == 0 {
			return strings.TrimSpace(n.OpenObject) + strings.TrimSpace(n.CloseObject)
		}
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = n.Setting(s)
		}
		return n.OpenObject + strings.Join(parts, ", ") + n.CloseObject
	case Ref:
		if n.Ref != nil {
			if s := n.Ref(v); s != "" {
				return s
			}
		}
		return "the " + v.Object + "'s " + v.Field
	}
	return fmt.Sprint(v)
}

func isIdentifier(s string) bool {
	for i, r := range s {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_'
		if !letter && (i == 0 || !(r >= '0' && r <= '9') && r != '-') {
			return false
		}
	}
	return s != ""
}

// set is the setting of the field at path (attribute names joined by '.')
// to v.
func set(path string, v any) Setting {
	var p Path
	for _, name := range strings.Split(path, ".") {
		p = append(p, name)
	}
	return Setting{Path: p, Value: v}
}

// obj is an Object from field, value pairs; a field is an attribute name
// (string) or a map key (Key).
func obj(fieldValues ...any) Object {
	o := make(Object, 0, len(fieldValues)/2)
	for i := 0; i+1 < len(fieldValues); i += 2 {
		o = append(o, Setting{Path: Path{fieldValues[i]}, Value: fieldValues[i+1]})
	}
	return o
}

// text is words with settings in them, for a FieldError's Detail: with
// settings, format is a template ({n} stands for settings[n]); without, it
// is the text itself.
type text struct {
	format   string
	settings []Setting
}

// textf formats a text as fmt.Sprintf does, except that each Setting,
// Object or Ref argument (a bare value) becomes a {n} of the template, and
// each text argument is spliced in with its settings. The format itself must
// not contain braces.
func textf(format string, args ...any) text {
	withSettings := false
	for _, a := range args {
		switch a := a.(type) {
		case Setting, Object, Ref:
			withSettings = true
		case text:
			withSettings = withSettings || len(a.settings) > 0
		}
	}
	if !withSettings {
		plain := make([]any, len(args))
		for i, a := range args {
			plain[i] = a
			if t, ok := a.(text); ok {
				plain[i] = t.format
			}
		}
		return text{format: fmt.Sprintf(format, plain...)}
	}
	var settings []Setting
	wrapped := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case Setting:
			wrapped[i] = templateRef(len(settings))
			settings = append(settings, a)
		case Object, Ref:
			wrapped[i] = templateRef(len(settings))
			settings = append(settings, Setting{Value: a})
		case text:
			if len(a.settings) == 0 {
				wrapped[i] = escaped{a.format}
				continue
			}
			var b strings.Builder
			scanTemplate(a.format, len(a.settings),
				func(lit string) { b.WriteString(braceEscaper.Replace(lit)) },
				func(n int) { fmt.Fprint(&b, templateRef(len(settings)+n)) })
			wrapped[i] = verbatim(b.String())
			settings = append(settings, a.settings...)
		default:
			wrapped[i] = escaped{a}
		}
	}
	return text{format: fmt.Sprintf(format, wrapped...), settings: settings}
}

var braceEscaper = strings.NewReplacer("{", "{{", "}", "}}")

// templateRef writes {n}, whatever the verb.
type templateRef int

func (r templateRef) Format(f fmt.State, _ rune) { fmt.Fprintf(f, "{%d}", int(r)) }

// escaped formats its value as the verb says, then doubles its braces.
type escaped struct{ v any }

func (e escaped) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, braceEscaper.Replace(fmt.Sprintf(fmt.FormatString(f, verb), e.v)))
}

// verbatim is a template, written as it is.
type verbatim string

func (v verbatim) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, string(v)) }

// renderTemplate writes template with each {n} replaced by settings[n] in
// notation n; without settings, template is the text itself.
func renderTemplate(template string, settings []Setting, n Notation) string {
	if len(settings) == 0 {
		return template
	}
	var b strings.Builder
	scanTemplate(template, len(settings), func(lit string) { b.WriteString(lit) },
		func(i int) { b.WriteString(n.Setting(settings[i])) })
	return b.String()
}

// scanTemplate calls lit with each run of literal text of template ({{ and
// }} read as one brace) and ref with each {i}, i < refs. Any other brace is
// literal.
func scanTemplate(template string, refs int, lit func(string), ref func(int)) {
	for template != "" {
		i := strings.IndexAny(template, "{}")
		if i < 0 {
			lit(template)
			return
		}
		lit(template[:i])
		rest := template[i:]
		if len(rest) > 1 && rest[1] == rest[0] {
			lit(rest[:1])
			template = rest[2:]
			continue
		}
		if end := strings.IndexByte(rest, '}'); rest[0] == '{' && end > 1 && isDigits(rest[1:end]) {
			if n, err := strconv.Atoi(rest[1:end]); err == nil && n < refs {
				ref(n)
				template = rest[end+1:]
				continue
			}
		}
		lit(rest[:1])
		template = rest[1:]
	}
}
