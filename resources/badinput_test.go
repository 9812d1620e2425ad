package resources_test

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/provider"
	"github.com/mlplatform/terraform-provider-mlplatform/resources"
)

// Bad input, checked at plan time without a cluster: each case is a valid
// configuration of one resource with one mistake. The harness sends it as
// Terraform does for `terraform plan` of a new resource, through the
// provider's real protocol server: ValidateResourceConfig and, when that
// passes, PlanResourceChange (after ConfigureProvider, with a kubeconfig that
// does not exist: nothing connects). It asserts:
//
//   - exactly one error: a framework validator and the spec never both
//     report the same mistake, and one mistake does not cascade;
//   - at the attribute path of the mistake;
//   - in plain words: the detail matches the case's pattern, and quotes no
//     regular expression and no Go error text.
//
// Every resource registers its table in badInputs (badinput_<resource>_test.go),
// from the rules GKE, IAM and Kubernetes document for each attribute:
// formats, length limits, enumerations, cross-field rules.

// badInput is one resource's table.
type badInput struct {
	// valid is a configuration with no mistake (attribute → value; the
	// values are Go strings, ints, bools, []any, map[string]any, nil for
	// null).
	valid map[string]any
	cases map[string]badCase
}

// badCase is one mistake.
type badCase struct {
	// set overrides attributes of valid (a nil value removes it). Nested
	// attributes are replaced whole.
	set map[string]any
	// path is where the one error must be: "name", "gpu.count",
	// `labels["x"]`, "resource_groups[0].flavors[1].name".
	path string
	// want is a regular expression the error's summary and detail, joined
	// by a newline, must match.
	want string
}

// badInputs holds every resource's table, by resource type.
var badInputs = map[string]badInput{}

// badInputProvider is the provider block of the harness: enough for
// ModifyPlan to read project, location and cluster; a kubeconfig that does
// not exist, so nothing can connect.
var badInputProvider = map[string]any{
	"project": "mlplatform-sandbox", "location": "us-central1", "cluster": "training", "kubeconfig": "/nonexistent/kubeconfig",
}

// Text that must never reach a user: regular expressions and Go error text.
var unplainText = regexp.MustCompile(`regex used for validation|\[a-z0-9\]|\(\[-a-z0-9\]\*|\^\[|\$'|strconv\.|time: invalid duration|` +
	`unexpected EOF|invalid character|json: |cannot unmarshal|<nil>|%!`)

func TestBadInputIsOneClearErrorAtPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, newResource := range resources.All() {
		typ := typeName(newResource)
		table, ok := badInputs[typ]
		if !ok {
			t.Errorf("%s has no bad-input table (badinput_%s_test.go)", typ, strings.TrimPrefix(typ, "mlplatform_"))
			continue
		}
		t.Run(typ+"/valid", func(t *testing.T) {
			t.Parallel()
			if errs := planErrors(ctx, t, typ, table.valid); len(errs) > 0 {
				t.Fatalf("the valid configuration has errors:\n%s", strings.Join(errs, "\n"))
			}
		})
		for name, tc := range table.cases {
			t.Run(typ+"/"+name, func(t *testing.T) {
				t.Parallel()
				cfg := map[string]any{}
				for k, v := range table.valid {
					cfg[k] = v
				}
				for k, v := range tc.set {
					if v == nil {
						delete(cfg, k)
					} else {
						cfg[k] = v
					}
				}
				errs := planErrors(ctx, t, typ, cfg)
				if len(errs) != 1 {
					t.Fatalf("%d errors, want exactly one (at %s):\n%s", len(errs), tc.path, strings.Join(errs, "\n---\n"))
				}
				at, text, _ := strings.Cut(errs[0], "\n")
				if at != "at "+tc.path {
					t.Errorf("error %s, want at %s:\n%s", at, tc.path, text)
				}
				if !regexp.MustCompile(tc.want).MatchString(text) {
					t.Errorf("error does not match %q:\n%s", tc.want, text)
				}
				if m := unplainText.FindString(text); m != "" {
					t.Errorf("error quotes %q, which is not plain language:\n%s", m, text)
				}
			})
		}
	}
}

// typeName is a resource's type name.
func typeName(newResource func() resource.Resource) string {
	var resp resource.MetadataResponse
	newResource().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &resp)
	return resp.TypeName
}

// planErrors validates and plans cfg as a new resource of type typ and
// returns its error diagnostics, each as "at PATH\nSUMMARY\nDETAIL".
func planErrors(ctx context.Context, t *testing.T, typ string, cfg map[string]any) []string {
	t.Helper()
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	rs, ok := schemas.ResourceSchemas[typ]
	if !ok {
		t.Fatalf("no schema for %s", typ)
	}
	rtyp := rs.ValueType()
	config, err := toValue(rtyp, cfg)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	dv, err := tfprotov6.NewDynamicValue(rtyp, config)
	if err != nil {
		t.Fatal(err)
	}
	vresp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typ, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	if errs := errorTexts(vresp.Diagnostics); len(errs) > 0 {
		return errs
	}
	ptyp := schemas.Provider.ValueType()
	pcfg, err := toValue(ptyp, badInputProvider)
	if err != nil {
		t.Fatal(err)
	}
	pdv, err := tfprotov6.NewDynamicValue(ptyp, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	cresp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pdv})
	if err != nil || len(errorTexts(cresp.Diagnostics)) > 0 {
		t.Fatalf("ConfigureProvider: %v %v", err, errorTexts(cresp.Diagnostics))
	}
	prior, err := tfprotov6.NewDynamicValue(rtyp, tftypes.NewValue(rtyp, nil))
	if err != nil {
		t.Fatal(err)
	}
	presp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typ, PriorState: &prior,
		ProposedNewState: &dv, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return errorTexts(presp.Diagnostics)
}

func errorTexts(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, "at "+pathString(d.Attribute)+"\n"+d.Summary+"\n"+d.Detail)
		}
	}
	sort.Strings(out)
	return out
}

// pathString writes an attribute path as `a.b[0]["k"]` ("" for none).
func pathString(p *tftypes.AttributePath) string {
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

// toValue converts a Go value into a value of type typ: string, int,
// float64 and bool for primitives, []any for lists and sets, map[string]any
// for maps and objects (missing attributes are null), nil for null.
func toValue(typ tftypes.Type, v any) (tftypes.Value, error) {
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
			ev, err := toValue(elem, it)
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
			ev, err := toValue(tt.ElementType, it)
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
			av, err := toValue(at, m[name])
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
