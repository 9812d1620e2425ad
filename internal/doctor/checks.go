package doctor

import (
	"cmp"
	"slices"
)

// Severity of a finding. Errors are things that are broken now; warnings are
// workloads that wait, or pools GKE is still changing.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

func (s Severity) rank() int {
	if s == SeverityError {
		return 0
	}
	return 1
}

// Check is one kind of check, with the stable identifier the docs list.
type Check struct {
	ID    string // DOC001…
	Slug  string // kueue-crds…
	Title string // what it checks, one line
}

// The checks, in the order they run. Identifiers never change meaning; a
// retired check's identifier is not reused.
var (
	CheckNotRun          = Check{"DOC000", "check-not-run", "a read the checks need failed or timed out"}
	CheckKueueCRDs       = Check{"DOC001", "kueue-crds", "Kueue's CRDs are installed, established, and serve " + kueueVersion}
	CheckKueueVersion    = Check{"DOC002", "kueue-version", "Kueue is at least " + MinKueueVersion + ", the version the provider speaks"}
	CheckKueueWebhooks   = Check{"DOC003", "kueue-webhooks", "Kueue's admission webhooks answer (a server-side dry-run create of a ResourceFlavor)"}
	CheckProvisioningAPI = Check{"DOC004", "provisioning-api", "the ProvisioningRequest API is served, and Kueue saw it, when a provisioning admission check exists"}
	CheckAdmissionCheck  = Check{"DOC005", "admission-check-inactive", "every AdmissionCheck is Active"}
	CheckClusterQueue    = Check{"DOC006", "clusterqueue-inactive", "every ClusterQueue is Active"}
	CheckLocalQueue      = Check{"DOC007", "localqueue-inactive", "every LocalQueue is Active"}
	CheckLocalQueueNS    = Check{"DOC008", "localqueue-namespace-not-selected", "every LocalQueue's namespace is selected by its ClusterQueue"}
	CheckFlavorMissing   = Check{"DOC009", "flavor-missing", "every flavor a ClusterQueue names exists"}
	CheckFlavorPool      = Check{"DOC010", "flavor-without-pool", "every flavor in use is backed by a GKE node pool that exists"}
	CheckPoolRunning     = Check{"DOC011", "pool-not-running", "every node pool's GKE status is RUNNING"}
	CheckPoolTaints      = Check{"DOC012", "pool-taint-not-tolerated", "every taint of a flavor's pool is tolerated by the flavor"}
	CheckWorkloadPending = Check{"DOC013", "workload-pending", "no workload waits longer than the pending threshold"}
	CheckDefaultDeny     = Check{"DOC014", "default-deny-widened", "no other NetworkPolicy lets a team namespace's pods do more than the platform's holes"}
)

// Checks lists every check, for the docs and `mlplatform doctor --list`.
var Checks = []Check{
	CheckNotRun, CheckKueueCRDs, CheckKueueVersion, CheckKueueWebhooks, CheckProvisioningAPI, CheckAdmissionCheck,
	CheckClusterQueue, CheckLocalQueue, CheckLocalQueueNS, CheckFlavorMissing, CheckFlavorPool, CheckPoolRunning,
	CheckPoolTaints, CheckWorkloadPending, CheckDefaultDeny,
}

// Finding is one thing doctor found wrong.
type Finding struct {
	ID       string   `json:"id"`
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Object names what is wrong, as "Kind name" or "Kind namespace/name".
	Object  string `json:"object"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Result is what a run found.
type Result struct {
	// Checks counts what was checked: one per check and object (each queue,
	// flavor, pool, workload, and the installation checks).
	Checks   int       `json:"checks"`
	Findings []Finding `json:"findings"`
	// Notes are facts that are not findings (what could not be known, and why).
	Notes []string `json:"notes,omitempty"`
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
	f.res.Findings = append(f.res.Findings, Finding{ID: c.ID, Check: c.Slug, Severity: sev, Object: object, Message: message, Fix: fix})
}

func (f findings) note(s string) { f.res.Notes = append(f.res.Notes, s) }

// sortFindings orders findings most severe first, then by check, then by object.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.rank(), b.Severity.rank()), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Object, b.Object))
	})
}
