package datasources_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

const kueueConfigurationType = "mlplatform_kueue_configuration"

// readKueueConfiguration sends cfg as Terraform does at plan: validate the
// data source's configuration, configure the provider (a kubeconfig that
// does not exist: nothing connects), read. It returns the error
// diagnostics ("at PATH\nSUMMARY\nDETAIL") and the state read.
func readKueueConfiguration(t *testing.T, cfg map[string]any) ([]string, map[string]tftypes.Value) {
	t.Helper()
	ctx := context.Background()
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	typ := schemas.DataSourceSchemas[kueueConfigurationType].ValueType()
	config, err := acctest.ToValue(typ, cfg)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, config)
	if err != nil {
		t.Fatal(err)
	}
	vresp, err := srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: kueueConfigurationType, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	if errs := acctest.ErrorTexts(vresp.Diagnostics); len(errs) > 0 {
		return errs, nil
	}
	ptyp := schemas.Provider.ValueType()
	pcfg, err := acctest.ToValue(ptyp, map[string]any{"project": "p", "location": "us-central1", "cluster": "c", "kubeconfig": "/nonexistent/kubeconfig"})
	if err != nil {
		t.Fatal(err)
	}
	pdv, err := tfprotov6.NewDynamicValue(ptyp, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	if cresp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pdv}); err != nil || len(acctest.ErrorTexts(cresp.Diagnostics)) > 0 {
		t.Fatalf("ConfigureProvider: %v %v", err, acctest.ErrorTexts(cresp.Diagnostics))
	}
	rresp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: kueueConfigurationType, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	if errs := acctest.ErrorTexts(rresp.Diagnostics); len(errs) > 0 {
		return errs, nil
	}
	state, err := rresp.State.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	if err := state.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return nil, attrs
}

// TestKueueConfigurationBadInput: each mistake is one error at plan, at its
// attribute, in plain words (Kueue's own words below ours where Kueue's
// validation found it).
func TestKueueConfigurationBadInput(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg  map[string]any
		path string
		want string
	}{
		"unknown framework": {cfg: map[string]any{"frameworks": []any{"batch/job", "jobset.x-k8s.io/jobsets"}},
			path: "frameworks[1]", want: `"jobset.x-k8s.io/jobsets" is not one of Kueue's integrations`},
		"zero timeout": {cfg: map[string]any{"wait_for_pods_ready": map[string]any{"timeout": "0s"}},
			path: "wait_for_pods_ready.timeout", want: "is zero; it must be more than 0"},
		"negative timeout": {cfg: map[string]any{"wait_for_pods_ready": map[string]any{"timeout": "-10m"}},
			path: "wait_for_pods_ready.timeout", want: "is negative"},
		"invalid selector": {cfg: map[string]any{"managed_jobs_namespace_selector": map[string]any{
			"match_expressions": []any{map[string]any{"key": "mlplatform.dev/team", "operator": "Exist"}}}},
			path: "managed_jobs_namespace_selector.match_expressions[0].operator", want: `operator "Exist" is not one of`},
		"contradictory: settings of a disabled wait": {cfg: map[string]any{"wait_for_pods_ready": map[string]any{"enabled": false, "timeout": "10m"}},
			path: "wait_for_pods_ready.enabled", want: "its other settings do nothing"},
		"contradictory: a selector without effect": {cfg: map[string]any{"manage_jobs_without_queue_name": false,
			"managed_jobs_namespace_selector": map[string]any{"match_labels": map[string]any{"mlplatform.dev/team": "vision"}}},
			path: "managed_jobs_namespace_selector", want: "does nothing"},
		"refused by Kueue: a selector taking kube-system": {cfg: map[string]any{"managed_jobs_namespace_selector": map[string]any{
			"match_labels": map[string]any{}}},
			path: "managed_jobs_namespace_selector", want: `Kueue refuses this configuration: .*should not match the "kube-system" namespace`},
		"refused by Kueue: an unknown feature gate": {cfg: map[string]any{"feature_gates": map[string]any{"TopologyAwareSchedulng": true}},
			path: "feature_gates", want: "unrecognized feature gate: TopologyAwareSchedulng"},
		"unsupported Kueue version": {cfg: map[string]any{"kueue_version": "v0.20.0"},
			path: "kueue_version", want: "outside the supported range"},
		"fair sharing strategies out of order": {cfg: map[string]any{"fair_sharing": map[string]any{
			"preemption_strategies": []any{"LessThanInitialShare", "LessThanOrEqualToFinalShare"}}},
			path: "fair_sharing.preemption_strategies", want: "is not one Kueue accepts"},
		"transformation output": {cfg: map[string]any{"resources": map[string]any{"transformations": []any{
			map[string]any{"input": "nvidia.com/mig-1g.5gb", "outputs": map[string]any{"example.com/memory": "5 GiB"}}}}},
			path: `resources.transformations[0].outputs["example.com/memory"]`, want: "is not a Kubernetes quantity"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			errs, _ := readKueueConfiguration(t, tc.cfg)
			if len(errs) != 1 {
				t.Fatalf("%d errors, want one at %s:\n%s", len(errs), tc.path, strings.Join(errs, "\n---\n"))
			}
			at, text, _ := strings.Cut(errs[0], "\n")
			if at != "at "+tc.path {
				t.Errorf("error %s, want at %s:\n%s", at, tc.path, text)
			}
			if !regexp.MustCompile(tc.want).MatchString(text) {
				t.Errorf("error does not match %q:\n%s", tc.want, text)
			}
		})
	}
}

// TestKueueConfigurationRenders: the defaults render as a training platform
// wants them, and helm_values carries the same YAML.
func TestKueueConfigurationRenders(t *testing.T) {
	t.Parallel()
	errs, state := readKueueConfiguration(t, map[string]any{})
	if errs != nil {
		t.Fatal(errs)
	}
	var yaml, helm string
	if err := state["yaml"].As(&yaml); err != nil {
		t.Fatal(err)
	}
	if err := state["helm_values"].As(&helm); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(yaml, "\n") {
		for _, want := range []string{"manageJobsWithoutQueueName:", "- batch/job", "- jobset.x-k8s.io/jobset", "timeout:", "- key: mlplatform.dev/team", "operator: Exists"} {
			if strings.TrimSpace(line) == want || strings.HasPrefix(strings.TrimSpace(line), want) {
				got = append(got, strings.TrimSpace(line))
			}
		}
	}
	want := []string{"- batch/job", "- jobset.x-k8s.io/jobset", "manageJobsWithoutQueueName: true", "- key: mlplatform.dev/team", "operator: Exists", "timeout: 30m0s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered YAML (-want +got):\n%s\n%s", diff, yaml)
	}
	if !strings.HasPrefix(helm, "managerConfig:\n  controllerManagerConfigYaml: |\n    apiVersion: config.kueue.x-k8s.io/v1beta2\n") {
		t.Errorf("helm_values does not carry the configuration as managerConfig.controllerManagerConfigYaml:\n%s", helm)
	}
}
