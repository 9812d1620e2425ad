package acctest

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ErrorTexts are the error diagnostics of a protocol response, each as
// "at PATH\nSUMMARY\nDETAIL", sorted.
func ErrorTexts(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, "at "+PathString(d.Attribute)+"\n"+d.Summary+"\n"+d.Detail)
		}
	}
	sort.Strings(out)
	return out
}

// PathString writes an attribute path as `a.b[0]["k"]` ("" for none).
func PathString(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		default:
			b.WriteString("[?]")
		}
	}
	return b.String()
}

// ToValue converts a Go value into a value of type typ: string, int,
// float64 and bool for primitives, []any for lists and sets, map[string]any
// for maps and objects (missing attributes are null), nil for null.
func ToValue(typ tftypes.Type, v any) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	switch {
	case typ.Is(tftypes.String):
		s, ok := v.(string)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a string", v)
		}
		return tftypes.NewValue(typ, s), nil
	case typ.Is(tftypes.Bool):
		b, ok := v.(bool)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a bool", v)
		}
		return tftypes.NewValue(typ, b), nil
	case typ.Is(tftypes.Number):
		switch n := v.(type) {
		case int:
			return tftypes.NewValue(typ, new(big.Float).SetInt64(int64(n))), nil
		case float64:
			return tftypes.NewValue(typ, big.NewFloat(n)), nil
		}
		return tftypes.Value{}, fmt.Errorf("%v is not a number", v)
	}
	switch tt := typ.(type) {
	case tftypes.List, tftypes.Set:
		elem := elementType(tt)
		items, ok := v.([]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a list", v)
		}
		vals := make([]tftypes.Value, 0, len(items))
		for _, it := range items {
			ev, err := ToValue(elem, it)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals = append(vals, ev)
		}
		return tftypes.NewValue(typ, vals), nil
	case tftypes.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a map", v)
		}
		vals := map[string]tftypes.Value{}
		for k, it := range m {
			ev, err := ToValue(tt.ElementType, it)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals[k] = ev
		}
		return tftypes.NewValue(typ, vals), nil
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not an object", v)
		}
		vals := map[string]tftypes.Value{}
		for name, at := range tt.AttributeTypes {
			av, err := ToValue(at, m[name])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
			}
			vals[name] = av
		}
		for name := range m {
			if _, ok := tt.AttributeTypes[name]; !ok {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", name)
			}
		}
		return tftypes.NewValue(typ, vals), nil
	}
	return tftypes.Value{}, fmt.Errorf("unsupported type %s", typ)
}

func elementType(t tftypes.Type) tftypes.Type {
	switch tt := t.(type) {
	case tftypes.List:
		return tt.ElementType
	case tftypes.Set:
		return tt.ElementType
	}
	return nil
}
