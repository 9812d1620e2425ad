package datasources_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

// countingListener accepts TCP connections on 127.0.0.1 and counts them:
// the provider's Kubernetes and GKE endpoints point here, so any request the
// data source made would show up as a connection.
func countingListener(t *testing.T) (addr string, count *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	count = &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			count.Add(1)
			_ = c.Close() // the test counts connections; nothing is served
		}
	}()
	return l.Addr().String(), count
}

// Reading mlplatform_gpu_catalog needs no cluster and makes no connection;
// the provider's prices override shows in its rows.
func TestAccGPUCatalog(t *testing.T) {
	t.Parallel()
	addr, conns := countingListener(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://%s", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`
provider "mlplatform" {
  project            = "nowhere"
  location           = "us-central1"
  cluster            = "nothing"
  container_endpoint = %[1]q
  iam_endpoint       = %[1]q
  insecure_endpoints = true
  kubeconfig         = %[2]q
  prices = jsonencode({
    source = "2026 contract"
    date   = "2026-05-01"
    prices = { "nvidia-h100-80gb" = { spot = 3.9 } }
  })
}

data "mlplatform_gpu_catalog" "this" {}

output "b200_machine_types" {
  value = [for m in data.mlplatform_gpu_catalog.this.accelerators["nvidia-b200"].machine_types : m.name]
}

output "h100_machine_types" {
  value = [for m in data.mlplatform_gpu_catalog.this.accelerators["nvidia-h100-80gb"].machine_types : m.name if m.gpus_per_node == 8]
}
`, addr, kubeconfig)

	const ds = "data.mlplatform_gpu_catalog.this"
	// Rows are sorted by accelerator, then on_demand, spot, flex_start,
	// reservation: H100's spot row is where the default table has it.
	h100Spot := -1
	for i, r := range pricing.Default().Rows() {
		if r.Accelerator == "nvidia-h100-80gb" && r.Capacity == pricing.Spot {
			h100Spot = i
		}
	}
	defaultOnDemand, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.OnDemand)
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-h100-80gb").AtMapKey("gpu_memory_gib"), knownvalue.Int64Exact(80)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-l4").AtMapKey("gpus_per_node"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(1), knownvalue.Int64Exact(2), knownvalue.Int64Exact(4), knownvalue.Int64Exact(8)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-tesla-a100").AtMapKey("partition_sizes").AtSliceIndex(0),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"size": knownvalue.StringExact("1g.5gb"), "slices_per_gpu": knownvalue.Int64Exact(7)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-l4").AtMapKey("partition_sizes"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-l4").AtMapKey("max_shared_clients_per_gpu"), knownvalue.Int64Exact(48)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("prices").AtSliceIndex(h100Spot), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"accelerator":      knownvalue.StringExact("nvidia-h100-80gb"),
					"capacity":         knownvalue.StringExact("spot"),
					"usd_per_gpu_hour": knownvalue.Float64Exact(3.9),
					"source":           knownvalue.StringExact("2026 contract"),
					"date":             knownvalue.StringExact("2026-05-01"),
					"note":             knownvalue.StringExact("override: 2026 contract"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("prices").AtSliceIndex(h100Spot-1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"capacity":         knownvalue.StringExact("on_demand"),
					"usd_per_gpu_hour": knownvalue.Float64Exact(defaultOnDemand),
					"date":             knownvalue.StringExact(pricing.Default().Date()),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("prices_region"), knownvalue.StringExact("us-central1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-tesla-t4").AtMapKey("gpus_per_node"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(1), knownvalue.Int64Exact(2), knownvalue.Int64Exact(4)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("accelerators").AtMapKey("nvidia-h200-141gb").AtMapKey("partition_sizes").AtSliceIndex(0),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"size": knownvalue.StringExact("1g.18gb"), "slices_per_gpu": knownvalue.Int64Exact(7)})),
				statecheck.ExpectKnownOutputValue("b200_machine_types", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("a4-highgpu-8g")})),
				statecheck.ExpectKnownOutputValue("h100_machine_types", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("a3-highgpu-8g")})),
			},
			Check: func(*terraform.State) error {
				if n := conns.Load(); n != 0 {
					return fmt.Errorf("reading the catalog opened %d connection(s) to the cluster or GKE endpoint; want none", n)
				}
				return nil
			},
		}},
	})
	if n := conns.Load(); n != 0 {
		t.Errorf("the test opened %d connection(s) to the cluster or GKE endpoint; want none", n)
	}
}
