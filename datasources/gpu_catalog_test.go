package datasources

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

func mustLoad(t *testing.T, js string) pricing.Table {
	t.Helper()
	o, err := pricing.Load(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestGPUCatalogState(t *testing.T) {
	t.Parallel()
	l4 := catalog.Accelerator{Type: "nvidia-l4", DisplayName: "NVIDIA L4", MemoryGiB: 24, MachineTypes: []catalog.MachineType{
		{Name: "g2-standard-4", GPUsPerNode: 1}, {Name: "g2-standard-8", GPUsPerNode: 1}, {Name: "g2-standard-24", GPUsPerNode: 2},
	}}
	override := mustLoad(t, `{"source": "contract", "date": "2026-05-01", "region": "us-central1", "prices": {"nvidia-l4": {"spot": 0.2}, "nvidia-b200": {"on_demand": 12}}}`)
	base := mustLoad(t, `{"source": "list", "date": "2026-01-01", "region": "us-central1", "prices": {"nvidia-l4": {"on_demand": 0.7, "spot": 0.28}}}`)

	tests := map[string]struct {
		accels []catalog.Accelerator
		prices pricing.Table
		want   gpuCatalogModel
	}{
		"an A100 lists its MIG partition sizes": {
			accels: []catalog.Accelerator{{Type: "nvidia-tesla-a100", DisplayName: "NVIDIA A100 40GB", MemoryGiB: 40,
				MachineTypes: []catalog.MachineType{{Name: "a2-highgpu-1g", GPUsPerNode: 1}},
				Partitions:   []catalog.Partition{{Size: "1g.5gb", PerGPU: 7}, {Size: "7g.40gb", PerGPU: 1}}}},
			want: gpuCatalogModel{
				Accelerators: map[string]acceleratorModel{"nvidia-tesla-a100": {DisplayName: "NVIDIA A100 40GB", GPUMemoryGiB: 40, GPUsPerNode: []int64{1},
					MachineTypes: []machineTypeModel{{Name: "a2-highgpu-1g", GPUsPerNode: 1}},
					Partitions:   []partitionModel{{Size: "1g.5gb", SlicesPerGPU: 7}, {Size: "7g.40gb", SlicesPerGPU: 1}}, MaxClients: 48}},
				Prices: []priceModel{}, PricesSource: types.StringValue(""), PricesDate: types.StringValue(""), PricesRegion: types.StringValue(""),
			},
		},
		"empty table and catalog": {
			want: gpuCatalogModel{Accelerators: map[string]acceleratorModel{}, Prices: []priceModel{},
				PricesSource: types.StringValue(""), PricesDate: types.StringValue(""), PricesRegion: types.StringValue("")},
		},
		"override replaces one cell and adds an accelerator, each row keeps its provenance": {
			accels: []catalog.Accelerator{l4},
			prices: base.Override(override),
			want: gpuCatalogModel{
				Accelerators: map[string]acceleratorModel{
					"nvidia-l4": {DisplayName: "NVIDIA L4", GPUMemoryGiB: 24, GPUsPerNode: []int64{1, 2}, MachineTypes: []machineTypeModel{
						{Name: "g2-standard-4", GPUsPerNode: 1}, {Name: "g2-standard-8", GPUsPerNode: 1}, {Name: "g2-standard-24", GPUsPerNode: 2},
					}, Partitions: []partitionModel{}, MaxClients: 48},
				},
				Prices: []priceModel{
					{Accelerator: "nvidia-b200", Capacity: "on_demand", USDPerGPUHour: 12, Source: "contract", Date: "2026-05-01", Note: "override: contract"},
					{Accelerator: "nvidia-l4", Capacity: "on_demand", USDPerGPUHour: 0.7, Source: "list", Date: "2026-01-01"},
					{Accelerator: "nvidia-l4", Capacity: "spot", USDPerGPUHour: 0.2, Source: "contract", Date: "2026-05-01", Note: "override: contract"},
				},
				PricesSource: types.StringValue("list (2026-01-01), overridden by contract (2026-05-01)"),
				PricesDate:   types.StringValue("2026-01-01"),
				PricesRegion: types.StringValue("us-central1"),
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, gpuCatalogState(tc.accels, tc.prices)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// read runs the data source's Read against its own schema, as Terraform
// would, with the given provider data.
func read(t *testing.T, providerData any) (gpuCatalogModel, []string) {
	t.Helper()
	ctx := context.Background()
	d := NewGPUCatalog().(*GPUCatalog)
	var cresp datasource.ConfigureResponse
	d.Configure(ctx, datasource.ConfigureRequest{ProviderData: providerData}, &cresp)
	if cresp.Diagnostics.HasError() {
		return gpuCatalogModel{}, []string{cresp.Diagnostics.Errors()[0].Summary()}
	}
	var sresp datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	if diags := sresp.Schema.ValidateImplementation(ctx); diags.HasError() {
		t.Fatalf("schema: %v", diags)
	}
	typ := sresp.Schema.Type().TerraformType(ctx)
	resp := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)}}
	d.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)}}, &resp)
	var errs []string
	for _, e := range resp.Diagnostics.Errors() {
		errs = append(errs, e.Summary()+": "+e.Detail())
	}
	var got gpuCatalogModel
	if len(errs) == 0 {
		resp.Diagnostics.Append(resp.State.Get(ctx, &got)...)
	}
	return got, errs
}

func TestGPUCatalogRead(t *testing.T) {
	t.Parallel()
	override := mustLoad(t, `{"source": "contract", "date": "2026-05-01", "prices": {"nvidia-h100-80gb": {"spot": 3.9}}}`)
	defaultSpot, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.Spot)
	tests := map[string]struct {
		data       any
		wantSource string  // prices_source
		wantSpot   float64 // nvidia-h100-80gb spot row
		wantErrs   []string
	}{
		"provider's table": {
			data:       platform.NewClients(platform.Config{Prices: pricing.Default().Override(override)}),
			wantSource: pricing.Default().Source() + " (" + pricing.Default().Date() + "), overridden by contract (2026-05-01)",
			wantSpot:   3.9,
		},
		"provider configured without prices: the default table": {
			data:       platform.NewClients(platform.Config{}),
			wantSource: pricing.Default().Source(),
			wantSpot:   defaultSpot,
		},
		"wrong provider data": {data: "nope", wantErrs: []string{"Unexpected Provider Data"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, errs := read(t, tc.data)
			if diff := cmp.Diff(tc.wantErrs, errs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if got.PricesSource.ValueString() != tc.wantSource {
				t.Errorf("prices_source = %q, want %q", got.PricesSource.ValueString(), tc.wantSource)
			}
			var spot float64
			for _, p := range got.Prices {
				if p.Accelerator == "nvidia-h100-80gb" && p.Capacity == pricing.Spot {
					spot = p.USDPerGPUHour
				}
			}
			if spot != tc.wantSpot {
				t.Errorf("nvidia-h100-80gb spot = %v, want %v", spot, tc.wantSpot)
			}
			if len(got.Accelerators) != len(catalog.Types()) || len(got.Prices) != len(catalog.Types())*len(pricing.Capacities()) {
				t.Errorf("%d accelerators and %d price rows, want every catalog accelerator with a row per capacity type", len(got.Accelerators), len(got.Prices))
			}
			for typ, a := range got.Accelerators {
				want, _ := catalog.Lookup(typ)
				if a.GPUMemoryGiB != int64(want.MemoryGiB) || len(a.MachineTypes) != len(want.MachineTypes) {
					t.Errorf("%s: %+v, want the catalog's %+v", typ, a, want)
				}
			}
		})
	}
}
