package pricing

// The default table. Each figure is the us-central1 list price of a whole
// accelerator-optimized VM divided by its GPUs (GKE bills a GPU node as that
// VM). Figures marked "estimate" were not found in a published source and are
// rounded to cents; override them with a price file when you know better.
//
// Sources:
//   - the public pages: Google Cloud "GPU pricing"
//     (https://cloud.google.com/compute/gpus-pricing), "VM instance pricing"
//     (https://cloud.google.com/compute/vm-instance-pricing) and "Spot VMs
//     pricing" (https://cloud.google.com/spot-vms/pricing). They could not be
//     read from where this table was made, so the per-machine figures were
//     transcribed from a public export of the Cloud Billing Catalog API:
//     github.com/Cyclenerd/google-cloud-pricing-cost-calculator, pricing.yml
//     generated 2026-02-12 (commit 082120d), keys compute.instance.<type>.cost.us-central1.{hour,hour_spot}:
//     a2-highgpu-1g   (1 × nvidia-tesla-a100)      3.673385 / spot 1.469355
//     a2-ultragpu-1g  (1 × nvidia-a100-80gb)       5.068798 / spot 2.039797
//     a3-highgpu-8g   (8 × nvidia-h100-80gb)      88.490000 / spot 35.593010
//     a3-megagpu-8g   (8 × nvidia-h100-mega-80gb) not listed for us-central1;
//     us-east4: 92.937588 / spot 37.391837 (used, marked estimate)
//   - flex_start: Google documents that flex-start VMs get vCPUs, memory and
//     GPUs of A4, A3 and A2 machines at a discount (and G2 at the on-demand
//     price), https://cloud.google.com/compute/docs/instances/about-flex-start-vms;
//     the discount rate was not found, so A2/A3 flex-start is estimated at
//     half the on-demand price.
//   - reservation: reserved capacity is billed at the on-demand rate; a
//     committed-use discount, if you have one, is not modelled.
//   - nvidia-l4 (g2-standard-4, 1 GPU): not found in the sources searched;
//     estimate.
//   - nvidia-h200-141gb (a3-ultragpu-8g) and nvidia-b200 (a4-highgpu-8g):
//     not in the Cloud Billing Catalog export (its pricing.yml of
//     2026-07-30, commit fd66b26, lists no A3 Ultra or A4 machine type) and
//     Google's pages could not be read, so every cell is an estimate from
//     third-party figures: a3-ultragpu-8g 86.76 USD/h (cloudprice.net's
//     monthly 63,334.74 ÷ 730 h, cheapest region, quoted in a public
//     research note of 2026-05), a4-highgpu-8g 148.21 USD/h (a public
//     price comparison's figure); Spot at A3 High's us-central1 Spot ratio
//     (35.593010 / 88.490000 = 0.4022) of that, which agrees with another
//     note's rounded 34 USD/h for a3-ultragpu-8g Spot.
//   - nvidia-tesla-t4 on N1: Compute Engine bills an N1 node as its GPUs
//     plus its machine type, which the user chooses. A cell is one T4 plus
//     an n1-standard-4's worth of machine (4 vCPUs, 15 GB): the shape that
//     keeps 4 vCPUs per GPU (n1-standard-4 with 1, -8 with 2, -16 with 4),
//     so a pool's cost is the cell × its GPUs. A pool with more machine
//     per GPU costs more: override the cell with a price file. n1-standard-4
//     in us-central1: 0.189999 / Spot 0.06701 (the export above, 2026-07-30);
//     the T4: 0.35 on-demand (Google Cloud GPU pricing, as listed by
//     computeprices.com for 1 × T4 on Google Cloud, 2026-04); T4 Spot not
//     found, estimated at the 0.4022 ratio (0.14).
const (
	defaultDate   = "2026-11-29"
	defaultRegion = "us-central1"
	defaultSource = "Google Cloud GPU pricing (https://cloud.google.com/compute/gpus-pricing) and VM instance pricing, " +
		"us-central1 list prices per GPU of the whole node, transcribed from a Cloud Billing Catalog export of 2026-02-12 " +
		"(github.com/Cyclenerd/google-cloud-pricing-cost-calculator); cells marked estimate are not from a published figure"
)

const (
	noteReservation = "reservations bill at the on-demand rate; committed-use discounts not applied"
	noteFlexA       = "estimate: on-demand × 0.5; flex-start is documented as discounted for A4/A3/A2, rate not found"
	noteMega        = "estimate: us-central1 not listed, us-east4 price (a3-megagpu-8g ÷ 8)"
	noteL4          = "estimate: g2-standard-4 price not found in the sources searched"
	noteL4Flex      = "estimate: G2 flex-start is billed at the on-demand price (no flex-start discount for G2)"
	noteH200        = "estimate: a3-ultragpu-8g 86.76 USD/h (third-party, cloudprice.net) ÷ 8"
	noteB200        = "estimate: a4-highgpu-8g 148.21 USD/h (third-party price comparison) ÷ 8"
	noteSpotRatio   = "Spot at A3 High's Spot/on-demand ratio 0.4022"
	noteT4          = "one T4 (0.35) + n1-standard-4 (0.189999) per GPU: GPU and machine are billed apart on N1; a larger machine per GPU costs more"
	noteT4Spot      = "estimate: T4 Spot 0.14 (on-demand × 0.4022, not found) + n1-standard-4 Spot 0.06701"
	noteT4Flex      = "estimate: flex-start discount documented for A4, A3 and A2 only; N1 + T4 at the on-demand price"
)

// Default is the built-in table.
func Default() Table {
	p := func(v float64, note string) Price { return Price{USDPerGPUHour: v, Note: note} }
	return Table{
		source: defaultSource,
		date:   defaultDate,
		region: defaultRegion,
		prices: map[string]map[string]Price{
			"nvidia-l4": {
				OnDemand:    p(0.71, noteL4),
				Spot:        p(0.28, noteL4),
				FlexStart:   p(0.71, noteL4Flex),
				Reservation: p(0.71, noteL4+"; "+noteReservation),
			},
			"nvidia-tesla-a100": {
				OnDemand:    p(3.6734, "a2-highgpu-1g"),
				Spot:        p(1.4694, "a2-highgpu-1g Spot"),
				FlexStart:   p(1.84, noteFlexA),
				Reservation: p(3.6734, noteReservation),
			},
			"nvidia-a100-80gb": {
				OnDemand:    p(5.0688, "a2-ultragpu-1g"),
				Spot:        p(2.0398, "a2-ultragpu-1g Spot"),
				FlexStart:   p(2.53, noteFlexA),
				Reservation: p(5.0688, noteReservation),
			},
			"nvidia-h100-80gb": {
				OnDemand:    p(11.0612, "a3-highgpu-8g ÷ 8"),
				Spot:        p(4.4491, "a3-highgpu-8g Spot ÷ 8"),
				FlexStart:   p(5.53, noteFlexA),
				Reservation: p(11.0612, noteReservation),
			},
			"nvidia-h200-141gb": {
				OnDemand:    p(10.845, noteH200),
				Spot:        p(4.3619, noteH200+"; "+noteSpotRatio),
				FlexStart:   p(5.42, noteFlexA+"; "+noteH200),
				Reservation: p(10.845, noteH200+"; "+noteReservation),
			},
			"nvidia-b200": {
				OnDemand:    p(18.5263, noteB200),
				Spot:        p(7.4513, noteB200+"; "+noteSpotRatio),
				FlexStart:   p(9.26, noteFlexA+"; "+noteB200),
				Reservation: p(18.5263, noteB200+"; "+noteReservation),
			},
			"nvidia-tesla-t4": {
				OnDemand:    p(0.54, noteT4),
				Spot:        p(0.2070, noteT4Spot),
				FlexStart:   p(0.54, noteT4Flex+"; "+noteT4),
				Reservation: p(0.54, noteT4+"; "+noteReservation),
			},
			"nvidia-h100-mega-80gb": {
				OnDemand:    p(11.6172, noteMega),
				Spot:        p(4.6740, noteMega+", Spot"),
				FlexStart:   p(5.81, noteFlexA+"; "+noteMega),
				Reservation: p(11.6172, noteMega+"; "+noteReservation),
			},
		},
	}
}
