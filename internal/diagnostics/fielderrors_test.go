package diagnostics

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The spec states the settings it suggests as data; FieldErrors writes them
// as Terraform configuration, word for word as the messages read before the
// spec stopped writing HCL itself (the bad-input tables in resources match
// these texts).
func TestFieldErrorsWriteSettingsAsHCL(t *testing.T) {
	t.Parallel()
	want := map[string]string{ // "Attribute " + this
		"GSA a user":                  `google_service_account: "ada@example.com" is not a Google service account e-mail: it is not a service account's address (those end in .gserviceaccount.com): a user or group cannot be the identity pods act as. To bind a new account, use create_google_service_account = { account_id = "..." }. A service account's e-mail is NAME@PROJECT.iam.gserviceaccount.com (the account may be in another project than the cluster).`,
		"GSA an account ID":           `google_service_account: "trainer" is not a Google service account e-mail: it has no '@'. If it is an account ID, write the e-mail ("trainer@ml-prod.iam.gserviceaccount.com"), or create the account with create_google_service_account = { account_id = "trainer" } instead. A service account's e-mail is NAME@PROJECT.iam.gserviceaccount.com (the account may be in another project than the cluster).`,
		"GSA with braces":             `google_service_account: "{0}}{{x" is not a Google service account e-mail: it has no '@'. If it is an account ID, write the e-mail ("{0}}{{x@ml-prod.iam.gserviceaccount.com"), or create the account with create_google_service_account = { account_id = "{0}}{{x" } instead. A service account's e-mail is NAME@PROJECT.iam.gserviceaccount.com (the account may be in another project than the cluster).`,
		"borrow needs reclaim":        `preemption.borrow_within_cohort.policy: borrow_within_cohort.policy = "LowerPriority" lets this queue preempt in the cohort while borrowing, which Kueue only allows when reclaim_within_cohort is not Never; set reclaim_within_cohort to LowerPriority or Any, or the policy to Never.`,
		"default KSA created":         `kubernetes_service_account: Kubernetes creates the service account "default" in every namespace, so the provider cannot create it. Set create_kubernetes_service_account = false to bind the existing one (then every pod of namespace vision that names no service account acts as the Google identity), or name a service account for the training pods, e.g. "trainer".`,
		"direct with GSA":             `google_service_account: mode = "direct" grants nothing on a Google service account, so google_service_account would have no effect: remove it and set project_number (the principal:// identifier names the project by number), or remove mode to bind through the account.`,
		"direct with created GSA":     `create_google_service_account: mode = "direct" uses no Google service account: remove create_google_service_account and set project_number (the principal:// identifier names the project by number), or remove mode to bind through the account it creates.`,
		"direct without number":       `project_number: mode = "direct" exposes the KSA's principal:// identifier, which names the project by number: set project_number (e.g. from data.google_project.this.number).`,
		"empty parameter":             `parameters: a parameter needs a name, e.g. { ValidUntilSeconds = "3600" }; remove the entry with the empty key.`,
		"limit without cohort":        `resource_groups[0].flavors[0].resources[0].borrowing_limit: borrowing_limit only applies to a ClusterQueue that belongs to a cohort (it limits what is borrowed from or lent to the rest of the tree); put the queue in a cohort (cohort = "..."), or remove borrowing_limit (Kueue rejects it otherwise).`,
		"limit without parent":        `resource_groups[0].flavors[0].resources[0].lending_limit: lending_limit only applies to a Cohort with a parent (it limits what is borrowed from or lent to the rest of the tree); set parent to the cohort above this one (e.g. parent = "org"), or remove lending_limit (Kueue rejects it otherwise).`,
		"max zero":                    `autoscaling.max_nodes: max_nodes is 0; a pool needs room for at least 1 node (min_nodes = 0 scales it to zero when idle).`,
		"name without specific":       `reservation.name: a reservation name only applies with affinity = "specific"; set affinity = "specific", or remove name.`,
		"no GSA":                      `google_service_account: set google_service_account to an existing account's e-mail, or create_google_service_account = { account_id = "..." } to create one, or mode = "direct" for direct grants to the KSA.`,
		"no flavors":                  `resource_groups[0].flavors: a resource group grants its resources on at least one flavor; add a flavor with a quota for each covered resource, e.g. { name = "h100-spot", resources = [{ name = "nvidia.com/gpu", nominal_quota = "16" }] }.`,
		"one quota missing":           `resource_groups[0].flavors[0].resources: flavor "h100-spot" has no quota for "nvidia.com/gpu", which covered_resources lists as covered_resources[2]; every flavor must list all covered resources, in their order. Add { name = "nvidia.com/gpu", nominal_quota = "0" } as resources[2] (a quota of 0 grants none).`,
		"preference":                  `flavor_fungibility.preference: preference = "BorrowingOverPreemption" only applies when both when_can_borrow and when_can_preempt are TryNextFlavor (they are MayStopSearch and TryNextFlavor); set both, or remove preference.`,
		"queued compact":              `placement: GKE does not allow compact placement on a queued-provisioning pool. Remove placement, or set queued_provisioning = false.`,
		"queued taint":                `taints["cloud.google.com/gke-queued"]: GKE taints queued-provisioning nodes with cloud.google.com/gke-queued itself; remove this taint (with queued_provisioning = true, workload_tolerations tolerates it).`,
		"queued with spot":            `queued_provisioning: queued provisioning (Dynamic Workload Scheduler) is a flex-start mode; set capacity = "flex_start", or remove queued_provisioning.`,
		"quota missing, out of order": `resource_groups[0].flavors[0].resources: flavor "h100-spot" has no quota for "nvidia.com/gpu", which covered_resources lists as covered_resources[2]; every flavor must list all covered resources, in their order. Add { name = "nvidia.com/gpu", nominal_quota = "0" } as resources[2] (a quota of 0 grants none). Also reorder them: they must follow covered_resources (cpu, memory, nvidia.com/gpu).`,
		"quotas missing":              `resource_groups[0].flavors[0].resources: flavor "h100-spot" has no quota for "memory" (covered_resources[1]), "nvidia.com/gpu" (covered_resources[2]); every flavor must list all covered resources, in their order: cpu, memory, nvidia.com/gpu. Add the missing ones, with nominal_quota = "0" where the flavor grants none.`,
		"reservation missing":         `reservation: capacity = "reservation" needs reservation = { affinity = "specific", name = "..." } (or affinity = "any").`,
		"reservation none":            `reservation.affinity: capacity = "reservation" consumes a reservation, so affinity must be "any" or "specific", not "none".`,
		"reservation with spot":       `reservation: capacity is "spot", which does not consume reservations; set capacity = "reservation", or remove reservation.`,
		"run duration with spot":      `max_run_duration: max_run_duration limits flex-start nodes; capacity is "spot". Remove it, or set capacity = "flex_start".`,
		"selector without values":     `namespace_selector.match_expressions[0].values: operator In needs at least one value, e.g. values = ["vision"].`,
		"small disk":                  `disk.size_gb: GKE needs a boot disk of at least 10 GB (got 5); GPU images want 100 or more, e.g. size_gb = 200.`,
		"specific without name":       `reservation.name: affinity = "specific" needs the reservation's name, e.g. name = "h100-reservation" (or "projects/OWNER_PROJECT/reservations/NAME" for a shared one).`,
		"threshold without policy":    `preemption.borrow_within_cohort.max_priority_threshold: max_priority_threshold only applies when borrow_within_cohort.policy is LowerPriority (it limits which workloads a borrowing workload may preempt); set policy = "LowerPriority" or remove the threshold.`,
		"toleration seconds":          `tolerations[0].toleration_seconds: toleration_seconds only applies to effect NoExecute (how long a pod stays once the taint appears; effect is "NoSchedule"); remove it or set effect = "NoExecute".`,
		"toleration without key":      `tolerations[0].operator: a toleration without a key matches every taint, which needs operator = "Exists"; set operator = "Exists", or set the key of the taint to tolerate, e.g. "nvidia.com/gpu".`,
	}
	got := badSpecs()
	if len(got) != len(want) {
		t.Fatalf("%d bad specs, %d expected texts", len(got), len(want))
	}
	for name, errs := range got {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			FieldErrors(&diags, errs)
			if len(diags) != 1 {
				t.Fatalf("%d diagnostics, want 1: %v", len(diags), diags)
			}
			if diff := cmp.Diff("Attribute "+want[name], diags[0].Detail()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(errs[0].Settings) == 0 {
				t.Errorf("the spec wrote its settings into the detail: %q", errs[0].Detail)
			}
		})
	}
}

// badSpecs are specs with every spec error that suggests a setting, by
// name.
func badSpecs() map[string]spec.FieldErrors {
	pool := func(f func(*spec.GPUPool)) spec.FieldErrors {
		p := spec.GPUPool{
			Project: "ml-training", Location: "us-central1", Cluster: "training", Name: "l4-dev",
			MachineType: "g2-standard-8", GPU: spec.GPU{Type: "nvidia-l4", Count: 1, Driver: spec.GPUDriverDefault},
			Capacity: spec.CapacitySpot, Autoscaling: spec.Autoscaling{MaxNodes: 4},
			NodeLocations: []string{"us-central1-a"},
		}
		f(&p)
		return p.Validate()
	}
	group := func() spec.ResourceGroup {
		return spec.ResourceGroup{
			CoveredResources: []string{"cpu", "memory", "nvidia.com/gpu"},
			Flavors: []spec.FlavorQuotas{
				{Name: "h100-spot", Resources: []spec.ResourceQuota{{Name: "cpu", NominalQuota: "96"}, {Name: "memory", NominalQuota: "1Ti"}, {Name: "nvidia.com/gpu", NominalQuota: "16"}}},
			},
		}
	}
	cq := func(f func(*spec.ClusterQueue)) spec.FieldErrors {
		q := spec.ClusterQueue{Name: "team-a", Cohort: "research", ResourceGroups: []spec.ResourceGroup{group()}}
		f(&q)
		return q.Validate()
	}
	wi := func(f func(*spec.WorkloadIdentity)) spec.FieldErrors {
		w := spec.WorkloadIdentity{Project: "ml-prod", Namespace: "vision", KSA: "trainer", CreateKSA: true,
			Mode: spec.ModeGoogleServiceAccount, GSAEmail: "trainer@ml-prod.iam.gserviceaccount.com"}
		f(&w)
		return w.Validate()
	}
	threshold := int64(100)
	secs := int64(30)
	return map[string]spec.FieldErrors{
		"specific without name": pool(func(p *spec.GPUPool) {
			p.Capacity, p.Reservation = spec.CapacityReservation, &spec.Reservation{Affinity: spec.ReservationSpecific}
		}),
		"name without specific": pool(func(p *spec.GPUPool) {
			p.Capacity, p.Reservation = spec.CapacityReservation, &spec.Reservation{Affinity: spec.ReservationAny, Name: "r"}
		}),
		"reservation missing": pool(func(p *spec.GPUPool) { p.Capacity = spec.CapacityReservation }),
		"reservation none": pool(func(p *spec.GPUPool) {
			p.Capacity, p.Reservation = spec.CapacityReservation, &spec.Reservation{Affinity: spec.ReservationNone}
		}),
		"reservation with spot":  pool(func(p *spec.GPUPool) { p.Reservation = &spec.Reservation{Affinity: spec.ReservationAny} }),
		"run duration with spot": pool(func(p *spec.GPUPool) { p.MaxRunDuration = time.Hour }),
		"queued with spot":       pool(func(p *spec.GPUPool) { p.QueuedProvisioning = true }),
		"max zero":               pool(func(p *spec.GPUPool) { p.Autoscaling.MaxNodes = 0 }),
		"queued compact": pool(func(p *spec.GPUPool) {
			p.Capacity, p.QueuedProvisioning, p.Placement = spec.CapacityFlexStart, true, spec.PlacementCompact
		}),
		"queued taint": pool(func(p *spec.GPUPool) { p.Taints = []spec.Taint{{Key: spec.QueuedTaintKey, Effect: "NoSchedule"}} }),
		"small disk":   pool(func(p *spec.GPUPool) { p.DiskSizeGB = 5 }),
		"borrow needs reclaim": cq(func(q *spec.ClusterQueue) {
			q.Preemption.BorrowWithinCohortPolicy = "LowerPriority"
		}),
		"threshold without policy": cq(func(q *spec.ClusterQueue) { q.Preemption.BorrowMaxPriorityThreshold = &threshold }),
		"preference":               cq(func(q *spec.ClusterQueue) { q.FlavorFungibility.Preference = "BorrowingOverPreemption" }),
		"selector without values": cq(func(q *spec.ClusterQueue) {
			q.NamespaceSelector = &spec.LabelSelector{MatchExpressions: []spec.SelectorRequirement{{Key: "team", Operator: "In"}}}
		}),
		"no flavors": cq(func(q *spec.ClusterQueue) { q.ResourceGroups[0].Flavors = nil }),
		"one quota missing": cq(func(q *spec.ClusterQueue) {
			q.ResourceGroups[0].Flavors[0].Resources = q.ResourceGroups[0].Flavors[0].Resources[:2]
		}),
		"quotas missing": cq(func(q *spec.ClusterQueue) {
			q.ResourceGroups[0].Flavors[0].Resources = q.ResourceGroups[0].Flavors[0].Resources[:1]
		}),
		"limit without cohort": cq(func(q *spec.ClusterQueue) {
			q.Cohort = ""
			q.ResourceGroups[0].Flavors[0].Resources[0].BorrowingLimit = "1"
		}),
		"limit without parent": spec.Cohort{Name: "a", ResourceGroups: []spec.ResourceGroup{{CoveredResources: []string{"cpu"},
			Flavors: []spec.FlavorQuotas{{Name: "f", Resources: []spec.ResourceQuota{{Name: "cpu", NominalQuota: "1", LendingLimit: "1"}}}}}}}.Validate(),
		"toleration without key": spec.ResourceFlavor{Name: "f", Tolerations: []spec.Toleration{{Operator: "Equal"}}}.Validate(),
		"toleration seconds":     spec.ResourceFlavor{Name: "f", Tolerations: []spec.Toleration{{Key: "k", Operator: "Exists", Effect: "NoSchedule", TolerationSeconds: &secs}}}.Validate(),
		"empty parameter":        spec.ProvisioningAdmissionCheck{Name: "dws", ProvisioningClass: "queued-provisioning.gke.io", Parameters: map[string]string{"": "x"}}.Validate(),
		"default KSA created":    wi(func(w *spec.WorkloadIdentity) { w.KSA = "default" }),
		"no GSA":                 wi(func(w *spec.WorkloadIdentity) { w.GSAEmail = "" }),
		"direct with GSA":        wi(func(w *spec.WorkloadIdentity) { w.Mode = spec.ModeDirect }),
		"direct with created GSA": wi(func(w *spec.WorkloadIdentity) {
			w.Mode, w.GSAEmail, w.CreateGSA = spec.ModeDirect, "", &spec.GoogleServiceAccount{AccountID: "vision-trainer"}
		}),
		"direct without number": wi(func(w *spec.WorkloadIdentity) { w.Mode, w.GSAEmail = spec.ModeDirect, "" }),
		"GSA an account ID":     wi(func(w *spec.WorkloadIdentity) { w.GSAEmail = "trainer" }),
		"GSA with braces":       wi(func(w *spec.WorkloadIdentity) { w.GSAEmail = "{0}}{{x" }),
		"quota missing, out of order": cq(func(q *spec.ClusterQueue) {
			r := q.ResourceGroups[0].Flavors[0].Resources
			q.ResourceGroups[0].Flavors[0].Resources = []spec.ResourceQuota{r[1], r[0]}
		}),
		"GSA a user": wi(func(w *spec.WorkloadIdentity) { w.GSAEmail = "ada@example.com" }),
	}
}
