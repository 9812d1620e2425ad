package resources

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Default timeouts: GPU pools can take long to create (capacity search) and
// GKE serializes operations per cluster, so a pool may queue behind others.
const (
	gpuPoolCreateTimeout = 45 * time.Minute
	gpuPoolUpdateTimeout = 45 * time.Minute
	gpuPoolDeleteTimeout = 30 * time.Minute
	gpuPoolReadTimeout   = 5 * time.Minute
)

// GPUPool is mlplatform_gpu_pool: a GKE node pool of GPU machines.
type GPUPool struct {
	crud[gpuPoolModel, reconcile.GPUPoolRef, spec.GPUPool, reconcile.ObservedGPUPool]
}

// NewGPUPool is the resource constructor.
func NewGPUPool() resource.Resource {
	r := &GPUPool{}
	r.crud = crud[gpuPoolModel, reconcile.GPUPoolRef, spec.GPUPool, reconcile.ObservedGPUPool]{
		kind:         "GPU Pool",
		resourceType: "mlplatform_gpu_pool",
		connect:      connectGPUPools,
		toSpec:       gpuPoolModel.toSpec,
		validate:     spec.GPUPool.Validate,
		ref:          gpuPoolModel.ref,
		name:         func(ref reconcile.GPUPoolRef) string { return ref.Name },
		importID:     reconcile.GPUPoolRef.NodePoolName,
		toState: func(ctx context.Context, got reconcile.ObservedGPUPool, _ spec.GPUPool, prior gpuPoolModel, diags *diag.Diagnostics) gpuPoolModel {
			return r.state(ctx, got, prior, diags)
		},
		known:             gpuPoolModel.known,
		readHint:          true,
		timeout:           gpuPoolTimeout,
		createUpdateVerbs: true,
	}
	return r
}

// gpuPoolTimeout is the timeouts block's value for an operation, or its default.
func gpuPoolTimeout(ctx context.Context, m gpuPoolModel, op string) (time.Duration, diag.Diagnostics) {
	switch op {
	case opCreate:
		return m.Timeouts.Create(ctx, gpuPoolCreateTimeout)
	case opUpdate:
		return m.Timeouts.Update(ctx, gpuPoolUpdateTimeout)
	case opDelete:
		return m.Timeouts.Delete(ctx, gpuPoolDeleteTimeout)
	}
	return gpuPoolReadTimeout, nil
}

func quoted(ss []string) string { return "`" + strings.Join(ss, "`, `") + "`" }

// partitionSizesDoc lists the MIG sizes per accelerator, for the schema.
func partitionSizesDoc() string {
	var parts []string
	for _, a := range catalog.Accelerators() {
		if len(a.Partitions) == 0 {
			continue
		}
		var sizes []string
		for _, p := range a.Partitions {
			sizes = append(sizes, fmt.Sprintf("`%s` (%d per GPU)", p.Size, p.PerGPU))
		}
		parts = append(parts, "`"+a.Type+"`: "+strings.Join(sizes, ", "))
	}
	return "Sizes: " + strings.Join(parts, "; ") + "."
}

func (r *GPUPool) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	computedString := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GKE node pool of GPU machines that scales with demand (to zero by default), on on-demand, spot, flex-start " +
			"(Dynamic Workload Scheduler) or reserved capacity. Wire a Kueue flavor to it with `node_labels = mlplatform_gpu_pool.x.node_selector` " +
			"and `tolerations = mlplatform_gpu_pool.x.workload_tolerations`; both are known at plan time. Changes GKE makes in place " +
			"(autoscaling, labels, taints, resource labels, zones, driver and GPU sharing, disk, max run duration) are applied in place, one GKE request per field; " +
			"the others replace the pool. Mutations are serialized per cluster and retried while GKE is busy with another operation.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`projects/P/locations/L/clusters/C/nodePools/N`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Node pool name: 1 to 40 lower-case letters, digits and `-`, starting with a letter. Changing it replaces the pool."},
			"project": schema.StringAttribute{Optional: true, Computed: true,
				Validators:          notEmpty("project", "leave it out for the provider's project, or set the cluster's project ID, e.g. \"ml-training-prod\"."),
				MarkdownDescription: "Project of the cluster; default the provider's `project`. Changing it replaces the pool.",
				PlanModifiers:       []planmodifier.String{providerDefault{attr: "project"}, stringplanmodifier.RequiresReplace()}},
			"location": schema.StringAttribute{Optional: true, Computed: true,
				Validators:          notEmpty("location", "leave it out for the provider's location, or set the cluster's region or zone, e.g. \"us-central1\"."),
				MarkdownDescription: "Location (region or zone) of the cluster; default the provider's `location`. Changing it replaces the pool.",
				PlanModifiers:       []planmodifier.String{providerDefault{attr: "location"}, stringplanmodifier.RequiresReplace()}},
			"cluster": schema.StringAttribute{Optional: true, Computed: true,
				Validators:          notEmpty("cluster", "leave it out for the provider's cluster, or set the cluster's name, e.g. \"training\"."),
				MarkdownDescription: "Cluster name; default the provider's `cluster`. Changing it replaces the pool.",
				PlanModifiers:       []planmodifier.String{providerDefault{attr: "cluster"}, stringplanmodifier.RequiresReplace()}},
			"node_locations": schema.SetAttribute{Optional: true, Computed: true, ElementType: types.StringType,
				Validators:          []validator.Set{gpuPoolZonesNotEmpty{}},
				MarkdownDescription: "Zones the pool's nodes run in, within the cluster's region; default the cluster's zones. Changed in place.",
				PlanModifiers:       []planmodifier.Set{setplanmodifier.UseStateForUnknown()}},
			"machine_type": schema.StringAttribute{Optional: true, Computed: true,
				Validators: []validator.String{gpuPoolMachineTypeNotEmpty{}},
				MarkdownDescription: "Compute Engine machine type. May be omitted when `gpu` fits exactly one (e.g. 8 × `nvidia-h100-80gb`: " +
					"`a3-highgpu-8g`); 1 × `nvidia-l4` fits five `g2-standard-*` sizes, so it must be set, and so must the N1 machine " +
					"`nvidia-tesla-t4` attaches to. Changing it replaces the pool.",
				PlanModifiers: []planmodifier.String{machineTypeDefault{}, stringplanmodifier.RequiresReplace()}},
			"gpu": schema.SingleNestedAttribute{Required: true, MarkdownDescription: "The GPUs on every node.",
				Attributes: map[string]schema.Attribute{
					"type": schema.StringAttribute{Required: true, PlanModifiers: replace,
						MarkdownDescription: "Accelerator type: " + quoted(catalog.Types()) + ". Changing it replaces the pool."},
					"count": schema.Int64Attribute{Required: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
						MarkdownDescription: "GPUs per node; must be one the machine type carries. Changing it replaces the pool."},
					"driver": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(spec.GPUDriverDefault),
						Validators: notEmpty("gpu.driver", "leave it out for \"default\", or set one of "+strings.Join(spec.GPUDrivers, ", ")+"."),
						MarkdownDescription: "NVIDIA driver GKE installs: " + quoted(spec.GPUDrivers) + " (you install it). Default `default`. Changed in place, " +
							"in one request with `sharing`."},
					"partition_size": schema.StringAttribute{Optional: true, PlanModifiers: replace,
						Validators: notEmpty("gpu.partition_size", "leave it out for whole GPUs, or set a MIG size the GPU offers, e.g. \"1g.5gb\" on nvidia-tesla-a100."),
						MarkdownDescription: "MIG partition size: GKE splits every GPU into partitions of this size, each one `nvidia.com/gpu` to pods. " +
							partitionSizesDoc() + " `nvidia-l4` has no MIG (use `sharing`). The `4g.*` sizes GKE's partitioner also accepts are not offered: " +
							"one fits a GPU and leaves 3 of its 7 compute slices idle. Changing it replaces the pool (GKE cannot repartition a pool in place)."},
					"sharing": schema.SingleNestedAttribute{Optional: true,
						MarkdownDescription: "Let several containers share each GPU (or each MIG partition): every node then reports `gpu.count` × partitions × " +
							"`max_shared_clients_per_gpu` as `nvidia.com/gpu` (see `allocatable_gpus_per_node`). A container on a time-shared node may request " +
							"at most 1 `nvidia.com/gpu`; with MPS more than 1 only on a single-GPU node; otherwise the node refuses the pod " +
							"(`UnexpectedAdmissionError`). MIG combines with `time_sharing`, not with `mps`. Changed in place, in one request with `driver`; never a replacement.",
						Attributes: map[string]schema.Attribute{
							"strategy": schema.StringAttribute{Required: true,
								Validators: notEmpty("gpu.sharing.strategy", "set \"time_sharing\" or \"mps\"."),
								MarkdownDescription: "`time_sharing` (containers take turns on the whole GPU) or `mps` (NVIDIA Multi-Process Service: side by side, " +
									"each with an equal share of memory and compute)."},
							"max_shared_clients_per_gpu": schema.Int64Attribute{Required: true,
								MarkdownDescription: "Containers per GPU (or partition): 2 to 48."},
						}},
				}},
			"capacity": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(spec.CapacityOnDemand),
				PlanModifiers: replace,
				MarkdownDescription: "How the VMs are obtained: " + quoted(spec.Capacities) + ". `spot` is cheap and preemptible; `flex_start` " +
					"waits for capacity (Dynamic Workload Scheduler), runs at most `max_run_duration`, and needs `autoscaling.min_nodes = 0`; " +
					"`reservation` consumes a Compute Engine reservation (`reservation`). Default `on_demand`. Changing it replaces the pool."},
			"reservation": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "The reservation a `capacity = \"reservation\"` pool consumes. Changing it replaces the pool.",
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				Attributes: map[string]schema.Attribute{
					"affinity": schema.StringAttribute{Required: true,
						MarkdownDescription: "`specific` (the reservation `name`), `any` (any matching reservation) or `none`."},
					"name": schema.StringAttribute{Optional: true, Validators: []validator.String{gpuPoolReservationNameNotEmpty{}},
						MarkdownDescription: "Reservation name (or `projects/P/reservations/R` for a shared one), with `affinity = \"specific\"`."},
				}},
			"max_run_duration": schema.StringAttribute{Optional: true,
				Validators: notEmpty("max_run_duration", "leave it out for GKE's 7 days, or write hours or minutes, e.g. \"72h\" or \"90m\"."),
				MarkdownDescription: "With `capacity = \"flex_start\"`: how long a node may run before GKE reclaims it, e.g. `\"72h\"`; at most `\"168h\"` " +
					"(GKE's default). Changed in place."},
			"queued_provisioning": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
				MarkdownDescription: "With `capacity = \"flex_start\"`: nodes are provisioned all at once per ProvisioningRequest, as Kueue's " +
					"`mlplatform_provisioning_admission_check` asks for them. Not with `placement = \"compact\"`. Changing it replaces the pool."},
			"autoscaling": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: "Autoscaler bounds, as TOTAL node counts across all zones. The provider never sets the node count itself: " +
					"the autoscaler owns it.",
				Attributes: map[string]schema.Attribute{
					"min_nodes": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
						MarkdownDescription: "Fewest nodes; default 0 (scale to zero when idle)."},
					"max_nodes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Most nodes (at least 1)."},
					"location_policy": schema.StringAttribute{Optional: true, Computed: true,
						Validators:          notEmpty("location_policy", "leave it out for the default (any for spot and flex-start, else balanced), or set \"balanced\" or \"any\"."),
						PlanModifiers:       []planmodifier.String{locationPolicyDefault{}},
						MarkdownDescription: "`balanced` spreads nodes over zones; `any` takes capacity wherever it is. Default `any` for spot and flex-start, else `balanced`."},
				}},
			"placement": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				Validators:          notEmpty("placement", "leave it out for GKE's default placement, or set \"compact\"."),
				MarkdownDescription: "`compact` places nodes physically close (lower latency between them), in one zone. Changing it replaces the pool."},
			"placement_policy_name": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				Validators: notEmpty("placement_policy_name", "leave it out for a compact placement policy of GKE's own, or name yours, e.g. \"h200-compact\"."),
				MarkdownDescription: "With `placement = \"compact\"`: the name of your own compact placement policy (a Compute Engine resource policy in the " +
					"pool's project and region, e.g. one with a max distance) for GKE to use instead of one of its own. Changing it replaces the pool."},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Kubernetes labels on every node. GKE's own `cloud.google.com/gke-*` labels are not listed and cannot be set. Changed in place."},
			"taints": schema.MapNestedAttribute{Optional: true,
				MarkdownDescription: "Kubernetes taints on every node, keyed by taint key, e.g. `{ \"cloud.google.com/gke-spot\" = { value = \"true\", effect = \"NoSchedule\" } }`. " +
					"GKE's own `nvidia.com/gpu` taint is added by GKE and shown in `effective_taints`. Changed in place.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value.",
						Validators: notEmpty("value", "leave value out, or set one, e.g. \"true\".")},
					"effect": schema.StringAttribute{Required: true,
						MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
				}}},
			"resource_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Google Cloud labels on the pool's VMs, for cost reports (e.g. `team`, `owner`). The provider adds `" +
					spec.CostLabelPool + "`, `" + spec.CostLabelGPU + "` and `" + spec.CostLabelCapacity + "` from the pool itself (set them here to override); " +
					"all labels, GKE's `goog-gke-*` and the provider's `" + spec.PoolMarkerLabel + "` and `" + spec.PoolCreationLabel + "` included, are in `effective_labels`. Changed in place."},
			"disk": schema.SingleNestedAttribute{Optional: true, Computed: true, MarkdownDescription: "Boot disk; default GKE's. Changed in place.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]schema.Attribute{
					"size_gb": schema.Int64Attribute{Optional: true, Computed: true, Validators: []validator.Int64{gpuPoolDiskSizeNotZero{}},
						PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}, MarkdownDescription: "Size in GB."},
					"type": schema.StringAttribute{Optional: true, Computed: true,
						Validators:          notEmpty("disk.type", "leave it out for GKE's default (pd-balanced), or set one, e.g. \"pd-ssd\"."),
						PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
						MarkdownDescription: "e.g. `pd-balanced`, `pd-ssd`, `hyperdisk-balanced`."},
				}},
			"service_account": schema.StringAttribute{Optional: true, Computed: true,
				Validators:          notEmpty("service_account", "leave it out for the project's Compute Engine default, or set a service account e-mail, e.g. \"gpu-nodes@PROJECT.iam.gserviceaccount.com\"."),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Google service account of the nodes; default the project's Compute Engine default. Changing it replaces the pool."},
			"workload_identity": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Run the GKE metadata server on the nodes (`GKE_METADATA`), so pods authenticate with Workload Identity. " +
					"Default true (needs Workload Identity on the cluster). Changed in place."},
			"node_selector": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Node labels that select this pool's nodes (`cloud.google.com/gke-nodepool`, and with `gpu.partition_size` or " +
					"`gpu.sharing` GKE's `" + spec.PartitionSizeLabel + "`, `" + spec.SharingStrategyLabel + "` and `" + spec.MaxClientsLabel + "`, so only " +
					"workloads that ask for slices or shares land there), known at plan time: use as a ResourceFlavor's `node_labels`."},
			"workload_tolerations": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{Attributes: computedTolerationAttributes()},
				MarkdownDescription: "Tolerations a pod needs to run here, known at plan time: GKE's `nvidia.com/gpu` taint, the queued-provisioning " +
					"taint, and each of `taints`. Use as a ResourceFlavor's `tolerations`."},
			"effective_labels": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every Google Cloud label on the pool's VMs: `resource_labels`, the default cost labels, GKE's `goog-gke-*`, " +
					"and `" + spec.PoolMarkerLabel + " = " + spec.ManagedBy + "` on a pool the provider created (not on an imported one)."},
			"effective_taints": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "Every taint on the pool's nodes, GKE's `nvidia.com/gpu` included.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key": computedString("Taint key."), "value": computedString("Taint value."), "effect": computedString("Taint effect."),
				}}},
			"instance_group_urls": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Compute Engine managed instance groups of the pool, one per zone."},
			"estimated_hourly_cost_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Estimated USD per hour with the pool at `max_nodes` (max_nodes × gpu.count × the price per GPU-hour of the " +
					"accelerator and capacity type), known at plan time so the plan shows what a change costs. From the provider's price table " +
					"(`prices` / `prices_file`, else the built-in dated table the `mlplatform_gpu_catalog` data source lists). Null when the table has no price."},
			"allocatable_gpus_per_node": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "What one node reports as `nvidia.com/gpu`, known at plan time: `gpu.count` × MIG partitions per GPU × " +
					"`sharing.max_shared_clients_per_gpu`, e.g. 7 for one A100 at `1g.5gb`, 21 with 3 time-sharing clients on top. GKE keeps every slice " +
					"and share `nvidia.com/gpu`, so a Kueue quota on this pool's flavor counts these, not GPUs."},
			"topology_labels": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the pool's nodes carry GKE's topology labels (`cloud.google.com/gce-topology-block`, `-subblock`, `-host`), " +
					"by what GKE documents, known at plan time: true for A4X, A4, A3 Ultra, A3 Mega and A3 High machines, Spot ones only with " +
					"`placement = \"compact\"`. A flavor naming a Topology of those levels admits gangs asking for them only on such pools (rule MLP022). " +
					"See the guide \"Placing gangs close together\"."},
			"estimated_hourly_cost_per_slice_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Estimated USD per hour of one `nvidia.com/gpu` on this pool (the price per GPU-hour divided by partitions × shared " +
					"clients; the GPU-hour price without MIG or sharing), rounded to 1/10,000 dollar, known at plan time. Null when the price table has no price."},
			"version": computedString("Kubernetes version of the nodes (GKE upgrades it)."),
			"status":  computedString("GKE's status of the pool: `RUNNING`, `RECONCILING`, `ERROR`, ... A pool in `ERROR` is replaced by the next apply."),
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func computedTolerationAttributes() map[string]schema.Attribute {
	s := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return map[string]schema.Attribute{
		"key": s("Taint key."), "operator": s("`Equal` or `Exists`."), "value": s("Value with `Equal`."), "effect": s("Effect."),
		"toleration_seconds": schema.Int64Attribute{Computed: true, MarkdownDescription: "Always null here."},
	}
}

// connectGPUPools is the GPU pool reconciler, logging progress through tflog.
func connectGPUPools(ctx context.Context, c *platform.Clients, _ bool, diags *diag.Diagnostics) (
	reconcile.Reconciler[reconcile.GPUPoolRef, spec.GPUPool, reconcile.ObservedGPUPool], bool) {
	if c == nil {
		notConfigured(diags)
		return nil, false
	}
	g, err := c.GKE(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To GKE", err)
		return nil, false
	}
	rec := reconcile.NewGPUPools(g, g.NodePoolLocks())
	rec.Logf = func(ctx context.Context, msg string, fields map[string]any) { tflog.Info(ctx, msg, fields) }
	return rec, true
}

// state is gpuPoolState with the cost estimate from the provider's prices.
func (r *GPUPool) state(ctx context.Context, got reconcile.ObservedGPUPool, prior gpuPoolModel, diags *diag.Diagnostics) gpuPoolModel {
	m := gpuPoolState(ctx, got, prior, diags)
	m.EstimatedCost = estimatedCost(r.prices(), got.Spec)
	m.SliceCost = sliceCost(r.prices(), got.Spec)
	return m
}

// prices is the provider's price table (the default one before Configure).
func (r *GPUPool) prices() pricing.Table {
	if r.clients == nil {
		return pricing.Default()
	}
	return r.clients.Config.PriceTable()
}

// ImportState imports by projects/P/locations/L/clusters/C/nodePools/N or P/L/C/N.
func (r *GPUPool) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, ok := parseGPUPoolID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID",
			fmt.Sprintf("%q is not a node pool id. Use projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/NAME or PROJECT/LOCATION/CLUSTER/NAME.", req.ID))
		return
	}
	for name, v := range map[string]string{"id": ref.NodePoolName(), "name": ref.Name, "project": ref.Project, "location": ref.Location, "cluster": ref.Cluster} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}
