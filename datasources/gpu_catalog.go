package datasources

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

var _ datasource.DataSourceWithConfigure = &GPUCatalog{}

// GPUCatalog is mlplatform_gpu_catalog: the accelerator catalog and the price
// table the provider uses, read from the provider itself. Reading it makes
// no request.
type GPUCatalog struct {
	clients *platform.Clients
}

// NewGPUCatalog is the data source constructor.
func NewGPUCatalog() datasource.DataSource { return &GPUCatalog{} }

func (d *GPUCatalog) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gpu_catalog"
}

func (d *GPUCatalog) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *GPUCatalog) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	capacities := "`" + strings.Join(pricing.Capacities(), "`, `") + "`"
	resp.Schema = schema.Schema{
		MarkdownDescription: "The GPUs a GKE node pool of this platform can have, and what they cost: each accelerator type with the " +
			"machine types that carry it, GPUs per node and GPU memory, and the price table (USD per GPU-hour by accelerator and " +
			"capacity type, each figure with its source and date). This is the same catalog that validates `mlplatform_gpu_pool` " +
			"and the same table, with the provider's `prices` or `prices_file` override applied, that estimates pool cost. " +
			"Reading it makes no request to Google Cloud or the cluster.",
		Attributes: map[string]schema.Attribute{
			"accelerators": schema.MapNestedAttribute{
				Computed: true,
				MarkdownDescription: "Accelerator types, keyed by the GKE accelerator type name (`nvidia-h100-80gb`), as " +
					"`mlplatform_gpu_pool`'s `gpu.type` spells them. On the A2, A3, A4 and G2 families the GPUs are part of the machine shape, " +
					"so a pool's machine type and GPU count must be one of `machine_types`. `nvidia-tesla-t4` attaches to N1 machine types: " +
					"`machine_types` lists each N1 type once per GPU count its vCPUs allow.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"display_name":   schema.StringAttribute{Computed: true, MarkdownDescription: "The GPU's name, e.g. `NVIDIA H100 80GB`."},
					"gpu_memory_gib": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory of one GPU, in GiB."},
					"gpus_per_node": schema.ListAttribute{Computed: true, ElementType: types.Int64Type,
						MarkdownDescription: "The GPU counts per node the accelerator comes in, ascending."},
					"machine_types": schema.ListNestedAttribute{
						Computed:            true,
						MarkdownDescription: "Machine types that carry this accelerator, smallest first within each family.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name":          schema.StringAttribute{Computed: true, MarkdownDescription: "Compute Engine machine type, e.g. `a3-highgpu-8g`."},
							"gpus_per_node": schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs on one node of this machine type."},
						}},
					},
					"partition_sizes": schema.ListNestedAttribute{
						Computed: true,
						MarkdownDescription: "MIG partition sizes a pool's `gpu.partition_size` may take (empty: no MIG, e.g. `nvidia-l4`), " +
							"smallest first. Each partition is one `nvidia.com/gpu` to pods.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"size":           schema.StringAttribute{Computed: true, MarkdownDescription: "GKE's partition size, e.g. `1g.5gb` (compute slices, memory)."},
							"slices_per_gpu": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partitions of this size in one GPU, e.g. 7 for `1g.5gb` on an A100."},
						}},
					},
					"max_shared_clients_per_gpu": schema.Int64Attribute{Computed: true,
						MarkdownDescription: "The most containers `gpu.sharing` may let share one GPU or partition (GKE's limit, 48)."},
				}},
			},
			"prices": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "The price table, one row per accelerator × capacity type, sorted by accelerator and then " +
					capacities + ". A price is the hourly price of the whole node (the accelerator-optimized VM) divided by its GPUs, " +
					"list price without committed-use discounts. Rows from the provider's `prices` or `prices_file` replace the built-in ones.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"accelerator":      schema.StringAttribute{Computed: true, MarkdownDescription: "GKE accelerator type, e.g. `nvidia-l4`."},
					"capacity":         schema.StringAttribute{Computed: true, MarkdownDescription: "Capacity type: one of " + capacities + ", as `mlplatform_gpu_pool`'s `capacity` spells it."},
					"usd_per_gpu_hour": schema.Float64Attribute{Computed: true, MarkdownDescription: "USD per GPU-hour."},
					"source":           schema.StringAttribute{Computed: true, MarkdownDescription: "Where the figure comes from: the built-in table's source, or the override's `source`."},
					"date":             schema.StringAttribute{Computed: true, MarkdownDescription: "The day (YYYY-MM-DD) the figure was taken."},
					"note":             schema.StringAttribute{Computed: true, MarkdownDescription: "How the figure was derived; `estimate` when no published figure backs it."},
				}},
			},
			"prices_source": schema.StringAttribute{Computed: true, MarkdownDescription: "Source of the whole table, naming the override when there is one, as `mlplatform report` prints it."},
			"prices_date":   schema.StringAttribute{Computed: true, MarkdownDescription: "The day (YYYY-MM-DD) the built-in figures were taken."},
			"prices_region": schema.StringAttribute{Computed: true, MarkdownDescription: "The region the prices are for."},
		},
	}
}

func (d *GPUCatalog) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg platform.Config
	if d.clients != nil {
		cfg = d.clients.Config
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, gpuCatalogState(catalog.Accelerators(), cfg.PriceTable()))...)
}
