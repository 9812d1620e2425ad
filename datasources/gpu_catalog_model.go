package datasources

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

type gpuCatalogModel struct {
	Accelerators map[string]acceleratorModel `tfsdk:"accelerators"`
	Prices       []priceModel                `tfsdk:"prices"`
	PricesSource types.String                `tfsdk:"prices_source"`
	PricesDate   types.String                `tfsdk:"prices_date"`
	PricesRegion types.String                `tfsdk:"prices_region"`
}

type acceleratorModel struct {
	DisplayName  string             `tfsdk:"display_name"`
	GPUMemoryGiB int64              `tfsdk:"gpu_memory_gib"`
	GPUsPerNode  []int64            `tfsdk:"gpus_per_node"`
	MachineTypes []machineTypeModel `tfsdk:"machine_types"`
	Partitions   []partitionModel   `tfsdk:"partition_sizes"`
	MaxClients   int64              `tfsdk:"max_shared_clients_per_gpu"`
}

type partitionModel struct {
	Size         string `tfsdk:"size"`
	SlicesPerGPU int64  `tfsdk:"slices_per_gpu"`
}

type machineTypeModel struct {
	Name        string `tfsdk:"name"`
	GPUsPerNode int64  `tfsdk:"gpus_per_node"`
}

type priceModel struct {
	Accelerator   string  `tfsdk:"accelerator"`
	Capacity      string  `tfsdk:"capacity"`
	USDPerGPUHour float64 `tfsdk:"usd_per_gpu_hour"`
	Source        string  `tfsdk:"source"`
	Date          string  `tfsdk:"date"`
	Note          string  `tfsdk:"note"`
}

// gpuCatalogState flattens the accelerator catalog and a price table.
func gpuCatalogState(accels []catalog.Accelerator, prices pricing.Table) gpuCatalogModel {
	m := gpuCatalogModel{
		Accelerators: make(map[string]acceleratorModel, len(accels)),
		Prices:       []priceModel{},
		PricesSource: types.StringValue(prices.Source()),
		PricesDate:   types.StringValue(prices.Date()),
		PricesRegion: types.StringValue(prices.Region()),
	}
	for _, a := range accels {
		am := acceleratorModel{DisplayName: a.DisplayName, GPUMemoryGiB: int64(a.MemoryGiB), GPUsPerNode: []int64{}, MachineTypes: []machineTypeModel{},
			Partitions: []partitionModel{}, MaxClients: catalog.MaxSharedClientsPerGPU}
		for _, p := range a.Partitions {
			am.Partitions = append(am.Partitions, partitionModel{Size: p.Size, SlicesPerGPU: int64(p.PerGPU)})
		}
		for _, n := range a.Counts() {
			am.GPUsPerNode = append(am.GPUsPerNode, int64(n))
		}
		for _, mt := range a.MachineTypes {
			am.MachineTypes = append(am.MachineTypes, machineTypeModel{Name: mt.Name, GPUsPerNode: int64(mt.GPUsPerNode)})
		}
		m.Accelerators[a.Type] = am
	}
	for _, r := range prices.Rows() {
		m.Prices = append(m.Prices, priceModel{
			Accelerator: r.Accelerator, Capacity: r.Capacity, USDPerGPUHour: r.USDPerGPUHour,
			Source: r.Source, Date: r.Date, Note: r.Note,
		})
	}
	return m
}
