package doctor

import (
	"cmp"
	"slices"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// Severity of a finding (rules.Severity). Errors are things that are broken
// now; warnings are workloads that wait, or pools GKE is still changing.
type Severity = rules.Severity

// The severities doctor gives (a live platform has no value known only
// after apply, so nothing is undecided).
const (
	SeverityError   = rules.SevError
	SeverityWarning = rules.SevWarning
)

// Check is one of doctor's own checks (what only the live platform has:
// Kueue's health, Active conditions, pending workloads), with the stable
// identifier the docs list. The cross-resource rules (internal/rules) run
// too; their identifiers are MLP001….
type Check struct {
	ID    string // DOC001…
	Slug  string // kueue-crds…
	Title string // what it checks, one line
}

// Doctor's own checks, in the order they run. Identifiers never change
// meaning; a retired check's identifier is not reused. DOC008, DOC009,
// DOC010, DOC012 and DOC014 became rules of the one rule set, which they
// still name (rules.Rule.Aliases).
var (
	CheckNotRun          = Check{"DOC000", "check-not-run", "a read the checks need failed or timed out"}
	CheckKueueCRDs       = Check{"DOC001", "kueue-crds", "Kueue's CRDs are installed, established, and serve " + kueueVersion}
	CheckKueueVersion    = Check{"DOC002", "kueue-version", "Kueue's release is one the provider supports (" + kueue.SupportedRange() + ")"}
	CheckKueueWebhooks   = Check{"DOC003", "kueue-webhooks", "Kueue's admission webhooks answer (a server-side dry-run create of a ResourceFlavor)"}
	CheckProvisioningAPI = Check{"DOC004", "provisioning-api", "the ProvisioningRequest API is served, and Kueue saw it, when a provisioning admission check exists"}
	CheckAdmissionCheck  = Check{"DOC005", "admission-check-inactive", "every AdmissionCheck is Active"}
	CheckClusterQueue    = Check{"DOC006", "clusterqueue-inactive", "every ClusterQueue is Active"}
	CheckLocalQueue      = Check{"DOC007", "localqueue-inactive", "every LocalQueue is Active"}
	CheckPoolRunning     = Check{"DOC011", "pool-not-running", "every node pool's GKE status is RUNNING"}
	CheckWorkloadPending = Check{"DOC013", "workload-pending", "no workload waits longer than the pending threshold"}
	CheckStoredV1beta1   = Check{"DOC015", "kueue-v1beta1-stored", "no Kueue CRD still lists v1beta1 in status.storedVersions (Kueue " + kueue.FirstUnsupportedVersion + " stops serving it)"}
)

// Before the first apply (issue 30): the GPU quota against the pools, and
// the cluster's settings the platform relies on.
var (
	CheckGPUQuota              = Check{"DOC024", "gpu-quota", "the project's GPU quota (regional, preemptible for Spot and flex-start, and " + GlobalGPUMetric + ") covers what the GPU pools may scale to, the plan's (--plan) with the cluster's"}
	CheckWorkloadIdentity      = Check{"DOC025", "workload-identity-pool", "the GKE cluster has a Workload Identity pool"}
	CheckNetworkPolicyEnforced = Check{"DOC026", "network-policy-enforcement", "the GKE cluster enforces NetworkPolicies (Dataplane V2 or Calico)"}
	CheckPrivateGoogleAccess   = Check{"DOC027", "private-google-access", "the cluster's subnetwork has Private Google Access when a training network policy reaches Google APIs only privately"}
	CheckGKEVersion            = Check{"DOC028", "gke-version", "the GKE version runs flex-start and queued provisioning (" + MinFlexStartVersion + " or later) when a pool uses them"}
)

// Checks lists doctor's own checks, for the docs and `mlplatform doctor
// --list` (which lists the rules after them).
var Checks = []Check{
	CheckNotRun, CheckKueueCRDs, CheckKueueVersion, CheckKueueWebhooks, CheckProvisioningAPI, CheckAdmissionCheck,
	CheckClusterQueue, CheckLocalQueue, CheckPoolRunning, CheckWorkloadPending, CheckStoredV1beta1, CheckKindUnmanaged,
	CheckWaitForPodsReady, CheckJobsBypassQuota, CheckMultiKueueWorker, CheckGPUNodesIdle, CheckGPUHolderPod, CheckGPUPoolFloor,
	CheckFlexDeadline, CheckGPUQuota, CheckWorkloadIdentity, CheckNetworkPolicyEnforced, CheckPrivateGoogleAccess, CheckGKEVersion,
	CheckKindNotInstalled,
}

// Finding is one thing doctor found wrong: a finding of one of its checks
// or of a rule, written as `mlplatform report` writes its findings.
type Finding = rules.Finding

// Result is what a run found.
type Result struct {
	// Checks counts what was checked: one per check of doctor's own and
	// object (each queue, pool, workload, and the installation checks), and
	// one per rule that ran, or one per finding of it when it found several.
	Checks   int       `json:"checks"`
	Findings []Finding `json:"findings"`
	// Notes are facts that are not findings (what could not be known, and why).
	Notes []string `json:"notes,omitempty"`
	// GPUPools are the GPU pools as their nodes and pods show them, and
	// Idle what their idle capacity costs (DOC020–DOC022), for a pipeline
	// (zero when nothing is idle, or nothing could be read).
	GPUPools []GPUPoolUsage `json:"gpu_pools,omitempty"`
	Idle     *IdleCost      `json:"idle,omitempty"`
}

// Failed reports whether anything was found.
func (r *Result) Failed() bool { return len(r.Findings) > 0 }

type findings struct {
	res *Result
}

// pass counts n checks.
func (f findings) pass(n int) { f.res.Checks += n }

// add counts one check and records its finding.
func (f findings) add(c Check, sev Severity, object, message, fix string) {
	f.res.Checks++
	f.res.Findings = append(f.res.Findings, Finding{ID: c.ID, Check: c.Slug, Severity: sev, Objects: []string{object}, Message: message, Fix: fix})
}

func (f findings) note(s string) { f.res.Notes = append(f.res.Notes, s) }

// sortFindings orders findings most severe first, then by identifier, then
// by object.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.Rank(), b.Severity.Rank()), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Object(), b.Object()))
	})
}
