package resources_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

// A ResourceFlavor, from Kueue v0.17's apis/kueue/v1beta2/resourceflavor_types.go
// (at most 8 node labels, taints and tolerations; taint effects NoSchedule,
// PreferNoSchedule, NoExecute; tolerations: operator Equal or Exists, Exists
// without a key and without a value, tolerationSeconds only with NoExecute;
// topologyName a DNS subdomain that needs a node label) and
// pkg/webhooks/resourceflavor_webhook.go (labels valid; taint keys label
// keys, values label values, one taint per key and effect; toleration keys
// label keys), with Kubernetes' rule for the pods the tolerations are added
// to (an Equal toleration's value is a label value).
func init() {
	taint := func(key, value, effect string) map[string]any {
		t := map[string]any{"key": key, "effect": effect}
		if value != "-" {
			t["value"] = value
		}
		return t
	}
	// tol is a toleration; "-" leaves a field out.
	tol := func(key, op, value, effect string) map[string]any {
		t := map[string]any{}
		for k, v := range map[string]string{"key": key, "operator": op, "value": value, "effect": effect} {
			if v != "-" {
				t[k] = v
			}
		}
		return t
	}
	list := func(ms ...map[string]any) []any {
		out := make([]any, len(ms))
		for i, m := range ms {
			out[i] = m
		}
		return out
	}
	nine := func(f func(i int) map[string]any) []any {
		out := make([]any, 9)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	nineLabels := map[string]any{}
	for i := range 9 {
		nineLabels[fmt.Sprintf("example.com/l%d", i)] = "x"
	}
	withSeconds := func(t map[string]any, s int) map[string]any {
		t["toleration_seconds"] = s
		return t
	}
	badInputs["mlplatform_resource_flavor"] = badInput{
		valid: map[string]any{
			"name":        "h100-spot",
			"node_labels": map[string]any{"cloud.google.com/gke-nodepool": "h100-spot", "cloud.google.com/gke-spot": "true", "example.com/empty": ""},
			"node_taints": list(taint("cloud.google.com/gke-spot", "true", "NoSchedule"), taint("cloud.google.com/gke-spot", "true", "NoExecute"),
				taint("example.com/dedicated", "-", "PreferNoSchedule")),
			"tolerations": list(tol("nvidia.com/gpu", "Exists", "-", "NoSchedule"), tol("cloud.google.com/gke-spot", "Equal", "true", "NoSchedule"),
				tol("-", "Exists", "-", "-"), withSeconds(tol("example.com/evict", "Exists", "-", "NoExecute"), 30), tol("example.com/k", "-", "v", "-")),
			"topology_name": "gke-default",
		},
		cases: map[string]badCase{
			// metadata.name, a DNS subdomain.
			"name with upper case":    {set: map[string]any{"name": "H100-Spot"}, path: "name", want: `(?s)Invalid Name.*"H100-Spot" is not a valid ResourceFlavor name.*"h100-spot"`},
			"name with an underscore": {set: map[string]any{"name": "h100_spot"}, path: "name", want: `(?s)Invalid Name.*contains '_'.*"h100-spot"`},
			"name too long":           {set: map[string]any{"name": strings.Repeat("f", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long`},
			"name empty":              {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*ResourceFlavor needs a name`},

			// nodeLabels: MaxProperties=8, valid labels.
			"nine node labels": {set: map[string]any{"node_labels": nineLabels}, path: "node_labels", want: `(?s)Too Many Entries.*9 entries; Kueue accepts at most 8 node labels per flavor. Remove 1`},
			"label key with a space": {set: map[string]any{"node_labels": map[string]any{"gke nodepool": "a"}}, path: `node_labels["gke nodepool"]`,
				want: `(?s)Invalid Label Key.*contains a space.*"cloud.google.com/gke-nodepool"`},
			"label key with two slashes": {set: map[string]any{"node_labels": map[string]any{"cloud.google.com/gke/nodepool": "a"}}, path: `node_labels["cloud.google.com/gke/nodepool"]`,
				want: `(?s)Invalid Label Key.*more than one '/'`},
			"label key with an upper-case prefix": {set: map[string]any{"node_labels": map[string]any{"Cloud.Google.com/gke-nodepool": "a"}}, path: `node_labels["Cloud.Google.com/gke-nodepool"]`,
				want: `(?s)Invalid Label Key.*prefix "Cloud.Google.com" is not a DNS name`},
			"label key name too long": {set: map[string]any{"node_labels": map[string]any{"example.com/" + strings.Repeat("k", 64): "a"}}, path: `node_labels["example.com/` + strings.Repeat("k", 64) + `"]`,
				want: `(?s)Invalid Label Key.*name part is 64 characters long; the limit is 63`},
			"label key with an empty name": {set: map[string]any{"node_labels": map[string]any{"example.com/": "a"}}, path: `node_labels["example.com/"]`,
				want: `(?s)Invalid Label Key.*name part is empty`},
			"label value with a space": {set: map[string]any{"node_labels": map[string]any{"pool": "h100 spot"}}, path: `node_labels["pool"]`,
				want: `(?s)Invalid Label Value.*"h100 spot".*contains a space.*"h100-spot"`},
			"label value too long": {set: map[string]any{"node_labels": map[string]any{"pool": strings.Repeat("v", 64)}}, path: `node_labels["pool"]`,
				want: `(?s)Invalid Label Value.*64 characters long; the limit is 63`},
			"label value ending with '.'": {set: map[string]any{"node_labels": map[string]any{"pool": "h100."}}, path: `node_labels["pool"]`,
				want: `(?s)Invalid Label Value.*must begin and end with a letter or digit`},

			// nodeTaints: MaxItems=8; key, value, effect; unique by key and effect.
			"nine taints": {set: map[string]any{"node_taints": nine(func(i int) map[string]any { return taint(fmt.Sprintf("example.com/t%d", i), "-", "NoSchedule") })},
				path: "node_taints", want: `(?s)Too Many Entries.*9 entries; Kueue accepts at most 8 node taints per flavor`},
			"taint key with a space": {set: map[string]any{"node_taints": list(taint("gke spot", "true", "NoSchedule"))}, path: "node_taints[0].key",
				want: `(?s)Invalid Taint Key.*"gke spot".*contains a space`},
			"taint key empty": {set: map[string]any{"node_taints": list(taint("", "true", "NoSchedule"))}, path: "node_taints[0].key",
				want: `(?s)Missing Taint Key.*"nvidia.com/gpu"`},
			"taint value with a slash": {set: map[string]any{"node_taints": list(taint("k", "a/b", "NoSchedule"))}, path: "node_taints[0].value",
				want: `(?s)Invalid Taint Value.*"a/b".*contains '/'`},
			"taint value empty": {set: map[string]any{"node_taints": list(taint("k", "", "NoSchedule"))}, path: "node_taints[0].value",
				want: `(?s)Empty Value.*leave value out for a taint without one`},
			"taint effect unknown": {set: map[string]any{"node_taints": list(taint("k", "-", "NoRun"))}, path: "node_taints[0].effect",
				want: `(?s)Invalid Taint Effect.*"NoRun" is not one of NoSchedule, PreferNoSchedule, NoExecute`},
			"taint effect wrong case": {set: map[string]any{"node_taints": list(taint("k", "-", "noSchedule"))}, path: "node_taints[0].effect",
				want: `(?s)Invalid Taint Effect.*did you mean "NoSchedule"\?`},
			"taint effect empty": {set: map[string]any{"node_taints": list(taint("k", "-", ""))}, path: "node_taints[0].effect",
				want: `(?s)Missing Taint Effect.*NoSchedule, PreferNoSchedule or NoExecute`},
			"two taints with the same key and effect": {set: map[string]any{"node_taints": list(taint("k", "a", "NoSchedule"), taint("k", "b", "NoSchedule"))}, path: "node_taints[1]",
				want: `(?s)Duplicate Taint.*node_taints\[0\] already has key "k" with effect NoSchedule; Kueue accepts one taint per key and effect`},

			// tolerations: MaxItems=8 and the CRD's CEL rules.
			"nine tolerations": {set: map[string]any{"tolerations": nine(func(i int) map[string]any { return tol(fmt.Sprintf("example.com/t%d", i), "Exists", "-", "-") })},
				path: "tolerations", want: `(?s)Too Many Entries.*9 entries; Kueue accepts at most 8 tolerations per flavor`},
			"toleration key invalid": {set: map[string]any{"tolerations": list(tol("nvidia.com/gpu!", "Exists", "-", "-"))}, path: "tolerations[0].key",
				want: `(?s)Invalid Toleration Key.*"nvidia.com/gpu!".*contains '!'`},
			"toleration key empty": {set: map[string]any{"tolerations": list(tol("", "-", "-", "-"))}, path: "tolerations[0].key",
				want: `(?s)Empty Key.*leave key out \(with operator = "Exists"\) to tolerate every taint`},
			"toleration operator unknown": {set: map[string]any{"tolerations": list(tol("k", "In", "v", "-"))}, path: "tolerations[0].operator",
				want: `(?s)Invalid Toleration Operator.*"In" is not one of Equal \(the taint's value must match\) or Exists \(any value\); leave operator out for Equal`},
			"toleration operator wrong case": {set: map[string]any{"tolerations": list(tol("k", "exists", "-", "-"))}, path: "tolerations[0].operator",
				want: `(?s)Invalid Toleration Operator.*did you mean "Exists"\?`},
			"toleration operator empty": {set: map[string]any{"tolerations": list(tol("k", "", "-", "-"))}, path: "tolerations[0].operator",
				want: `(?s)Empty Operator.*leave operator out for Equal`},
			"toleration without key, Equal": {set: map[string]any{"tolerations": list(tol("-", "Equal", "v", "-"))}, path: "tolerations[0].operator",
				want: `(?s)Toleration Without Key Must Use Exists.*set operator = "Exists"`},
			"toleration without key or operator": {set: map[string]any{"tolerations": list(tol("-", "-", "-", "NoSchedule"))}, path: "tolerations[0].operator",
				want: `(?s)Toleration Without Key Must Use Exists`},
			"toleration Exists with a value": {set: map[string]any{"tolerations": list(tol("k", "Exists", "v", "-"))}, path: "tolerations[0].value",
				want: `(?s)Toleration Value With Exists.*remove value or use operator Equal`},
			"toleration value invalid": {set: map[string]any{"tolerations": list(tol("k", "Equal", "not valid", "-"))}, path: "tolerations[0].value",
				want: `(?s)Invalid Toleration Value.*"not valid".*contains a space`},
			"toleration value empty": {set: map[string]any{"tolerations": list(tol("k", "Equal", "", "-"))}, path: "tolerations[0].value",
				want: `(?s)Empty Value.*leave value out`},
			"toleration effect unknown": {set: map[string]any{"tolerations": list(tol("k", "Exists", "-", "Sometimes"))}, path: "tolerations[0].effect",
				want: `(?s)Invalid Toleration Effect.*"Sometimes" is not one of NoSchedule, PreferNoSchedule, NoExecute.*leave effect out to tolerate every effect`},
			"toleration effect empty": {set: map[string]any{"tolerations": list(tol("k", "Exists", "-", ""))}, path: "tolerations[0].effect",
				want: `(?s)Empty Effect.*leave effect out to tolerate every effect`},
			"toleration seconds with NoSchedule": {set: map[string]any{"tolerations": list(withSeconds(tol("k", "Exists", "-", "NoSchedule"), 30))}, path: "tolerations[0].toleration_seconds",
				want: `(?s)Toleration Seconds Need NoExecute.*effect is "NoSchedule".*set effect = "NoExecute"`},
			"toleration seconds without an effect": {set: map[string]any{"tolerations": list(withSeconds(tol("k", "Exists", "-", "-"), 30))}, path: "tolerations[0].toleration_seconds",
				want: `(?s)Toleration Seconds Need NoExecute.*effect is unset`},
			"toleration seconds with a misspelt effect (no second error)": {set: map[string]any{"tolerations": list(withSeconds(tol("k", "Exists", "-", "NoExecut"), 30))},
				path: "tolerations[0].effect", want: `(?s)Invalid Toleration Effect.*"NoExecut"`},
			"second toleration wrong": {set: map[string]any{"tolerations": list(tol("k", "Exists", "-", "-"), tol("k2", "Exists", "-", "NoRun"))}, path: "tolerations[1].effect",
				want: `(?s)Invalid Toleration Effect`},

			// topologyName: a TopologyReference; the CEL rule "at least one nodeLabel is required when topology is set".
			"topology name with upper case":   {set: map[string]any{"topology_name": "GKE-Default"}, path: "topology_name", want: `(?s)Invalid Name.*"GKE-Default" is not a valid Topology name.*"gke-default"`},
			"topology name too long":          {set: map[string]any{"topology_name": strings.Repeat("t", 254)}, path: "topology_name", want: `(?s)Invalid Name.*254 characters long`},
			"topology name empty":             {set: map[string]any{"topology_name": ""}, path: "topology_name", want: `(?s)Empty Topology Name.*leave topology_name out.*"gke-default"`},
			"topology without node labels":    {set: map[string]any{"node_labels": nil}, path: "topology_name", want: `(?s)Topology Needs Node Labels.*add node_labels`},
			"topology with empty node labels": {set: map[string]any{"node_labels": map[string]any{}}, path: "topology_name", want: `(?s)Topology Needs Node Labels`},
		},
	}
}

// validateWithUnknown runs ValidateResourceConfig, as terraform validate
// does, on cfg with the attributes named in unknown not known yet (from
// resources not created), and returns its errors.
func validateWithUnknown(t *testing.T, typ string, cfg map[string]any, unknown ...string) []string {
	t.Helper()
	ctx := context.Background()
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	rtyp := schemas.ResourceSchemas[typ].ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range rtyp.AttributeTypes {
		v, err := acctest.ToValue(at, cfg[name])
		if err != nil {
			t.Fatal(err)
		}
		vals[name] = v
	}
	for _, name := range unknown {
		vals[name] = tftypes.NewValue(rtyp.AttributeTypes[name], tftypes.UnknownValue)
	}
	dv, err := tfprotov6.NewDynamicValue(rtyp, tftypes.NewValue(rtyp, vals))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typ, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return acctest.ErrorTexts(resp.Diagnostics)
}

// Values not known yet never produce errors, and do not hide the errors of
// what is known.
func TestKueueRulesWaitForUnknownValues(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		typ     string
		cfg     map[string]any
		unknown []string
		want    string // "" for no error
	}{
		"a topology's node labels from a GPU pool": {typ: "mlplatform_resource_flavor",
			cfg: map[string]any{"name": "h100", "topology_name": "gke-default"}, unknown: []string{"node_labels"}},
		"a queue's limits with its cohort from a Cohort resource": {typ: "mlplatform_cluster_queue",
			cfg: map[string]any{"name": "q", "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "4", "2"))}, unknown: []string{"cohort"}},
		"a bad flavor name is still reported while the cohort is unknown": {typ: "mlplatform_cluster_queue",
			cfg: map[string]any{"name": "q", "resource_groups": rgGroups(rgOneFlavor("H100", "cpu"))}, unknown: []string{"cohort"},
			want: "at resource_groups[0].flavors[0].name\nInvalid Name"},
		"on_flavors while the groups are unknown": {typ: "mlplatform_cluster_queue",
			cfg: map[string]any{"name": "q", "admission_checks": map[string]any{"dws": map[string]any{"on_flavors": []any{"h100"}}}}, unknown: []string{"resource_groups"}},
		"a cohort's limits with its parent unknown": {typ: "mlplatform_cohort",
			cfg: map[string]any{"name": "c", "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "4"))}, unknown: []string{"parent"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			errs := validateWithUnknown(t, tc.typ, tc.cfg, tc.unknown...)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("want no errors, got:\n%s", strings.Join(errs, "\n---\n"))
			case tc.want != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], tc.want)):
				t.Errorf("want one error %q, got:\n%s", tc.want, strings.Join(errs, "\n---\n"))
			}
		})
	}
}
