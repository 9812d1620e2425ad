package resources_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
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
	config, err := acctest.ToValue(rtyp, cfg)
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
	if errs := acctest.ErrorTexts(vresp.Diagnostics); len(errs) > 0 {
		return errs
	}
	ptyp := schemas.Provider.ValueType()
	pcfg, err := acctest.ToValue(ptyp, badInputProvider)
	if err != nil {
		t.Fatal(err)
	}
	pdv, err := tfprotov6.NewDynamicValue(ptyp, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	cresp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pdv})
	if err != nil || len(acctest.ErrorTexts(cresp.Diagnostics)) > 0 {
		t.Fatalf("ConfigureProvider: %v %v", err, acctest.ErrorTexts(cresp.Diagnostics))
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
	return acctest.ErrorTexts(presp.Diagnostics)
}
