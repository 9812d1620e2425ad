package datasources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

var (
	_ datasource.DataSource                   = &KueueConfiguration{}
	_ datasource.DataSourceWithValidateConfig = &KueueConfiguration{}
)

// KueueConfiguration is mlplatform_kueue_configuration: Kueue's own
// configuration, typed, validated at plan by Kueue's rules, and rendered as
// the YAML the Kueue Helm chart and the manager's ConfigMap take. Reading it
// makes no request.
type KueueConfiguration struct{}

// NewKueueConfiguration is the data source constructor.
func NewKueueConfiguration() datasource.DataSource { return &KueueConfiguration{} }

func (d *KueueConfiguration) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_configuration"
}

func (d *KueueConfiguration) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	def := spec.DefaultKueueConfiguration()
	code := func(ss []string) string { return "`" + strings.Join(ss, "`, `") + "`" }
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	}
	// Set or defaulted, read back: other resources take the effective value.
	strDefault := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kueue's own configuration (`config.kueue.x-k8s.io/v1beta2` `Configuration`), typed and validated at plan " +
			"by Kueue's own validation, rendered as the YAML Kueue's Helm chart takes in `managerConfig.controllerManagerConfigYaml` " +
			"(the same content as the manager's ConfigMap `kueue-manager-config`). It decides which kinds of job Kueue manages, " +
			"whether a gang whose pods cannot all start is evicted and requeued, and whether jobs without a queue bypass quota. " +
			"Its defaults suit a training platform (see the Kueue configuration guide). Reading it makes no request.",
		Attributes: map[string]schema.Attribute{
			"kueue_version": strDefault(fmt.Sprintf("The Kueue release that will run the configuration, e.g. `%s` (default). Supported: %s. "+
				"Turning `wait_for_pods_ready` off is written differently before and from v0.19.", kueue.NewestVersion, kueue.SupportedRange())),
			"namespace": strDefault(fmt.Sprintf("Kueue's namespace. Default `%s`.", def.Namespace)),
			"frameworks": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType, MarkdownDescription: fmt.Sprintf(
				"The job integrations Kueue manages (`integrations.frameworks`). Default %s: single jobs and gangs. Add the "+
					"integration of each job controller the cluster runs (e.g. `trainer.kubeflow.org/trainjob` with Kubeflow Trainer): "+
					"a kind Kueue does not manage runs without quota. Read back as set or defaulted: give it to `mlplatform_multikueue_cluster.frameworks` "+
					"so the workers let the manager dispatch each kind. One of: %s.", code(def.Frameworks), code(spec.KueueFrameworkNames()))},
			"external_frameworks": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Kinds of other " +
				"controllers Kueue manages through an external integration, as `Kind.version.group` (`integrations.externalFrameworks`)."},
			"manage_jobs_without_queue_name": schema.BoolAttribute{Optional: true, Computed: true, MarkdownDescription: "Whether Kueue also manages jobs " +
				"without the `kueue.x-k8s.io/queue-name` label in the namespaces `managed_jobs_namespace_selector` selects: such a job is " +
				"held (it has no queue) instead of running without quota. Default `true`."},
			"managed_jobs_namespace_selector": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "The namespaces " +
				"whose jobs Kueue manages at all: from Kueue v0.15 a job elsewhere is never queued, queue-name label or not, so every " +
				"namespace holding a LocalQueue must be selected. Default: the team namespaces (label `" + spec.TeamLabel + "` exists, " +
				"as `mlplatform_team_namespace` sets it); other tools' jobs are left alone. Kueue refuses a selector that matches " +
				"`kube-system` or its own namespace.",
				Attributes: map[string]schema.Attribute{
					"match_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Labels a namespace must have."},
					"match_expressions": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Label requirements a namespace must meet.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key":      schema.StringAttribute{Required: true, MarkdownDescription: "Label key."},
							"operator": schema.StringAttribute{Required: true, MarkdownDescription: "One of " + code(spec.SelectorOperators) + "."},
							"values":   schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Values for `In` and `NotIn`."},
						}}},
				}},
			"wait_for_pods_ready": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "Kueue's all-or-nothing guard for " +
				"gangs: an admitted workload whose pods are not all ready within `timeout` is evicted and requeued, releasing its quota. " +
				"Default: on, `timeout = \"30m\"` (enough for GPU nodes to scale up from zero), requeued by eviction time, admission not blocked.",
				Attributes: map[string]schema.Attribute{
					"enabled": schema.BoolAttribute{Optional: true, MarkdownDescription: "Default `true`. `false` lets a gang hold its quota half started."},
					"timeout": str("How long an admitted workload's pods have to be ready, as a duration (`\"30m\"`). Default `\"30m\"`; more than 0."),
					"recovery_timeout": str("How long a running workload whose pod failed has to be ready again before it is evicted. " +
						"Default: `timeout`."),
					"block_admission": schema.BoolAttribute{Optional: true, MarkdownDescription: "Admit nothing else while an admitted " +
						"workload's pods are not ready: no two gangs start at once (slower; prevents two gangs each holding part of the nodes). Default `false`."},
					"requeuing_timestamp": str("The time an evicted workload is requeued by: `Eviction` (default; to the back of the queue) or `Creation`."),
					"backoff_limit_count": schema.Int64Attribute{Optional: true, MarkdownDescription: "How many times a workload is " +
						"requeued before it is deactivated. Default: without limit."},
					"backoff_base_seconds": schema.Int64Attribute{Optional: true, MarkdownDescription: "The first requeue's delay, doubled at each next one. Default 60."},
					"backoff_max_seconds":  schema.Int64Attribute{Optional: true, MarkdownDescription: "The longest requeue delay. Default 3600."},
				}},
			"fair_sharing": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "Fair sharing of unused quota between " +
				"the ClusterQueues of a cohort (off when absent).", Attributes: map[string]schema.Attribute{
				"preemption_strategies": schema.ListAttribute{Required: true, ElementType: types.StringType, MarkdownDescription: "" +
					"`[\"LessThanOrEqualToFinalShare\"]`, `[\"LessThanInitialShare\"]` or both in that order."},
			}},
			"admission_fair_sharing": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "Order admission within a " +
				"ClusterQueue by each LocalQueue's recent usage (off when absent).", Attributes: map[string]schema.Attribute{
				"usage_half_life_time":    schema.StringAttribute{Required: true, MarkdownDescription: "How fast past usage is forgotten, e.g. `\"168h\"`."},
				"usage_sampling_interval": schema.StringAttribute{Required: true, MarkdownDescription: "How often usage is sampled, e.g. `\"5m\"`; more than 0."},
				"resource_weights": schema.MapAttribute{Optional: true, ElementType: types.Float64Type, MarkdownDescription: "" +
					"Weight of each resource's usage (default 1; 0 ignores it), e.g. `{ \"nvidia.com/gpu\" = 100, cpu = 0 }`."},
			}},
			"resources": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "How Kueue counts the resources pods request.",
				Attributes: map[string]schema.Attribute{
					"exclude_resource_prefixes": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "" +
						"Resources whose names start with one of these are not counted against quota."},
					"transformations": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Resources counted as others, " +
						"e.g. a MIG partition as GPU memory.", NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"input":       schema.StringAttribute{Required: true, MarkdownDescription: "The resource pods request, e.g. `nvidia.com/mig-1g.5gb`."},
						"strategy":    str("`Retain` (default: the input is counted too) or `Replace`."),
						"multiply_by": str("A resource whose request multiplies the outputs."),
						"outputs": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "" +
							"Resources counted per unit of the input, as quantities, e.g. `{ \"example.com/gpu-memory\" = \"5Gi\" }`."},
					}}},
				}},
			"feature_gates": schema.MapAttribute{Optional: true, ElementType: types.BoolType, MarkdownDescription: "Kueue feature " +
				"gates to set, e.g. `{ TopologyAwareScheduling = true }`. Kueue refuses unknown gates and gates locked to their default."},
			"multikueue": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "A MultiKueue manager's settings.",
				Attributes: map[string]schema.Attribute{
					"gc_interval":         str("How often objects the manager created in workers and no longer needs are deleted. Kueue's default `\"1m\"`."),
					"origin":              str("The label value marking the objects this manager creates in workers; give each manager sharing a worker its own."),
					"worker_lost_timeout": str("How long a workload admitted in a worker that became unreachable waits before it is requeued. Kueue's default `\"15m\"`."),
					"dispatcher_name": str("How workers are nominated: `" + spec.MultiKueueDispatchers[0] + "` (Kueue's default), `" +
						spec.MultiKueueDispatchers[1] + "`, or an external dispatcher's name."),
				}},
			"yaml": schema.StringAttribute{Computed: true, MarkdownDescription: "The configuration as Kueue reads it: the value of " +
				"the Helm chart's `managerConfig.controllerManagerConfigYaml`, with the chart's in-cluster settings (ports, leader election, " +
				"client rate limits)."},
			"helm_values": schema.StringAttribute{Computed: true, MarkdownDescription: "`yaml` as Helm values for Kueue's chart " +
				"(`values = [data.mlplatform_kueue_configuration.this.helm_values]` on a `helm_release`)."},
		},
	}
}

// ValidateConfig reports bad input at plan, once every value is known.
func (d *KueueConfiguration) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	var m kueueConfigurationModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	c, version := m.toSpec()
	diagnostics.FieldErrors(&resp.Diagnostics, kueueconfig.Validate(c, version))
}

func (d *KueueConfiguration) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m kueueConfigurationModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	out, hv, ok := renderKueueConfiguration(m, &resp.Diagnostics)
	if !ok {
		return
	}
	m.YAML, m.HelmValues = types.StringValue(out), types.StringValue(hv)
	c, version := m.toSpec()
	m.KueueVersion, m.Namespace = types.StringValue(version), types.StringValue(c.Namespace)
	m.ManageJobsWithoutQueueName = types.BoolValue(c.ManageJobsWithoutQueueName)
	m.Frameworks = make([]types.String, len(c.Frameworks))
	for i, f := range c.Frameworks {
		m.Frameworks[i] = types.StringValue(f)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// renderKueueConfiguration validates m and renders it: the configuration
// and the Helm values that carry it.
func renderKueueConfiguration(m kueueConfigurationModel, diags *diag.Diagnostics) (yaml, helmValues string, ok bool) {
	c, version := m.toSpec()
	if errs := kueueconfig.Validate(c, version); errs != nil {
		diagnostics.FieldErrors(diags, errs)
		return "", "", false
	}
	out, err := kueueconfig.YAML(kueueconfig.Configuration(c, version))
	if err == nil {
		helmValues, err = kueueconfig.HelmValues(out)
	}
	if err != nil {
		diagnostics.Error(diags, "Could not render Kueue's configuration", err)
		return "", "", false
	}
	return out, helmValues, true
}
