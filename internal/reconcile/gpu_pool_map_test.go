package reconcile_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestFromNodePoolRoundTrip(t *testing.T) {
	t.Parallel()
	flex := spec.GPUPool{Project: "p", Location: "us-central1", Cluster: "c", Name: "h100-flex",
		GPU: spec.GPU{Type: "nvidia-h100-80gb", Count: 8, Driver: spec.GPUDriverLatest}, Capacity: spec.CapacityFlexStart,
		QueuedProvisioning: true, MaxRunDuration: 72 * time.Hour, Autoscaling: spec.Autoscaling{MaxNodes: 4, LocationPolicy: spec.LocationPolicyAny},
		WorkloadIdentity: true}
	res := spec.GPUPool{Project: "p", Location: "us-central1", Cluster: "c", Name: "a100-res", MachineType: "a2-ultragpu-8g",
		GPU: spec.GPU{Type: "nvidia-a100-80gb", Count: 8, Driver: spec.GPUDriverDefault}, Capacity: spec.CapacityReservation,
		Reservation: &spec.Reservation{Affinity: spec.ReservationSpecific, Name: "a100-res-1"}, Placement: spec.PlacementCompact,
		Autoscaling: spec.Autoscaling{MinNodes: 1, MaxNodes: 2, LocationPolicy: spec.LocationPolicyBalanced}, WorkloadIdentity: true}
	for _, p := range []spec.GPUPool{l4Spot(), flex, res} {
		np := asServed(reconcile.BuildNodePool(p))
		got := reconcile.FromNodePool(reconcile.RefOf(p), np, p)
		want := p
		want.MachineType = np.Config.MachineType
		want.DiskSizeGB, want.DiskType, want.ServiceAccount = 100, "pd-balanced", "default"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: FromNodePool(BuildNodePool) (-want +got):\n%s", p.Name, diff)
		}
	}
}
