package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Before the first apply (issue 30): the project's GPU quota against what
// the pools may scale to (DOC024), and the cluster's own settings the
// platform relies on (DOC025–DOC028). Kueue's presence and release are
// DOC001 and DOC002.

// ComputeReader is what doctor reads of Compute Engine
// (internal/compute over cloud.google.com/go/compute/apiv1).
type ComputeReader interface {
	Region(ctx context.Context, project, region string) (*computepb.Region, error)
	Project(ctx context.Context, project string) (*computepb.Project, error)
	Subnetwork(ctx context.Context, project, region, name string) (*computepb.Subnetwork, error)
}

// GCPSnapshot is what doctor read of Compute Engine: one regions.get per
// region the GPU pools are in, one projects.get per project, and the
// cluster's subnetwork (one subnetworks.get per cluster).
type GCPSnapshot struct {
	Computed    bool                         // a Compute Engine client was given
	Regions     map[string]*computepb.Region // by "project/region"
	RegionReads map[string]Read
	Projects    map[string]*computepb.Project
	ProjectRead map[string]Read
	Subnet      *computepb.Subnetwork
	SubnetRead  Read // What "" when not read
	SubnetName  string
}

// quotaPool is one GPU pool as the quota check counts it: live (the
// cluster's) or planned (the saved plan's, which wins over the live one of
// the same name).
type quotaPool struct {
	key, name, project, region, accelerator, capacity string
	gpusPerNode, maxNodes                             int64
	queued                                            bool
}

// poolsForQuota are the GPU pools that may scale: the cluster's, with the
// plan's over them (a pool the plan creates or changes counts as planned;
// one it deletes does not count). Pools whose count, type or max is known
// only after apply are left out, and named in a note.
func (s *Snapshot) poolsForQuota(plan *tfplan.Plan) (pools []quotaPool, unknown []string) {
	byKey := map[string]quotaPool{}
	if s.PoolsRead.ok() && s.PoolsRead.What != "" {
		live, _ := s.Live()
		for _, p := range model.FromLive(live).Pools {
			if !p.GPUs {
				continue
			}
			q := fromModelPool(p)
			byKey[q.key] = q
		}
	}
	if plan != nil {
		for _, p := range model.FromPlan(*plan, tfplan.Before).Pools {
			delete(byKey, fromModelPool(p).key)
		}
		for _, p := range model.FromPlan(*plan, tfplan.After).Pools {
			typ, typOK := p.GPUType()
			n, nOK := p.GPUCount()
			m, mOK := p.MaxNodes()
			if !typOK || !nOK || !mOK || p.Capacity() == "" || p.Unknown.Any("project", "location") {
				unknown = append(unknown, cmp.Or(p.Address, p.Spec.Name))
				continue
			}
			q := fromModelPool(p)
			q.accelerator, q.gpusPerNode, q.maxNodes = typ, n, m
			byKey[q.key] = q
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		pools = append(pools, byKey[k])
	}
	return pools, unknown
}

func fromModelPool(p *model.Pool) quotaPool {
	s := p.Spec
	return quotaPool{
		key:  fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", s.Project, s.Location, s.Cluster, s.Name),
		name: s.Name, project: s.Project, region: RegionOf(s.Location), accelerator: s.GPU.Type, capacity: s.Capacity,
		gpusPerNode: int64(s.GPU.Count), maxNodes: int64(s.Autoscaling.MaxNodes), queued: s.QueuedProvisioning,
	}
}

// RegionOf is the region of a location: us-central1 for us-central1-c.
func RegionOf(location string) string {
	if strings.Count(location, "-") == 2 {
		return location[:strings.LastIndex(location, "-")]
	}
	return location
}

// gatherGCP reads the cluster's project quotas and subnetwork after the
// cluster itself: one regions.get per region of the GPU pools (the
// cluster's and the plan's), one projects.get per project, one
// subnetworks.get for the cluster.
func gatherGCP(ctx context.Context, s *Snapshot, src Sources, opts Options, read func(string, func(context.Context) error) Read) {
	g := &s.GCP
	if src.Compute == nil {
		return
	}
	g.Computed = true
	g.Regions, g.RegionReads = map[string]*computepb.Region{}, map[string]Read{}
	g.Projects, g.ProjectRead = map[string]*computepb.Project{}, map[string]Read{}
	pools, _ := s.poolsForQuota(opts.Plan)
	for _, p := range pools {
		k := p.project + "/" + p.region
		if _, done := g.RegionReads[k]; !done && p.project != "" && p.region != "" {
			r := read(fmt.Sprintf("Compute Engine quotas of region %s in project %s", p.region, p.project), func(ctx context.Context) error {
				r, err := src.Compute.Region(ctx, p.project, p.region)
				g.Regions[k] = r
				return err
			})
			if r.Err != nil {
				r.Fix = computeFix(r.Err, p.project, "quota")
			}
			g.RegionReads[k] = r
		}
		if _, done := g.ProjectRead[p.project]; !done && p.project != "" {
			r := read("Compute Engine quotas of project "+p.project, func(ctx context.Context) error {
				pr, err := src.Compute.Project(ctx, p.project)
				g.Projects[p.project] = pr
				return err
			})
			if r.Err != nil {
				r.Fix = computeFix(r.Err, p.project, "quota")
			}
			g.ProjectRead[p.project] = r
		}
	}
	if c := s.GKECluster; c != nil {
		project, region, name := subnetOf(c, s.Cluster)
		if name != "" {
			g.SubnetName = fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", project, region, name)
			g.SubnetRead = read("Compute Engine subnetwork "+g.SubnetName, func(ctx context.Context) error {
				sn, err := src.Compute.Subnetwork(ctx, project, region, name)
				g.Subnet = sn
				return err
			})
			if g.SubnetRead.Err != nil {
				g.SubnetRead.Fix = computeFix(g.SubnetRead.Err, project, "Private Google Access")
			}
		}
	}
}

// subnetOf is the cluster's subnetwork: networkConfig.subnetwork
// (projects/P/regions/R/subnetworks/S), else its subnetwork name in the
// cluster's region.
func subnetOf(c *containerpb.Cluster, clusterName string) (project, region, name string) {
	if parts := strings.Split(c.GetNetworkConfig().GetSubnetwork(), "/"); len(parts) == 6 && parts[0] == "projects" {
		return parts[1], parts[3], parts[5]
	}
	parts := strings.Split(clusterName, "/")
	if len(parts) != 6 || c.GetSubnetwork() == "" {
		return "", "", ""
	}
	return parts[1], RegionOf(parts[3]), c.GetSubnetwork()
}

// --- DOC024: GPU quota against what the pools may scale to -------------------

// Accelerator is a GPU type's Compute Engine quota metric (the regional
// one; its preemptible twin is "PREEMPTIBLE_" + Metric) and a short name
// for findings. Metric names: Compute Engine's "GPU quota" table
// (https://cloud.google.com/compute/resource-usage#gpu_quota) and the
// Quota.metric enum of cloud.google.com/go/compute v1.75.0 (computepb),
// which lists NVIDIA_{A100,A100_80GB,L4,T4,V100,P100,P4,K80}_GPUS and their
// PREEMPTIBLE_ twins, and PREEMPTIBLE_NVIDIA_H100_GPUS. Not verified
// against Google's documents here (not in the enum): NVIDIA_H100_GPUS,
// NVIDIA_H100_MEGA_GPUS, NVIDIA_H200_GPUS, NVIDIA_B200_GPUS,
// NVIDIA_GB200_GPUS; the names follow the table's pattern and are the ones
// independent public gcloud scripts query (regions describe, 2026-12-02),
// which corroborates but is no authority. A region that lists no such metric
// gets a note, never a verdict.
type Accelerator struct {
	Metric string
	Short  string
}

// Accelerators maps GKE's accelerator types to their quota.
var Accelerators = map[string]Accelerator{
	"nvidia-h100-80gb":      {"NVIDIA_H100_GPUS", "H100"},
	"nvidia-h100-mega-80gb": {"NVIDIA_H100_MEGA_GPUS", "H100 Mega"},
	"nvidia-h200-141gb":     {"NVIDIA_H200_GPUS", "H200"},
	"nvidia-b200":           {"NVIDIA_B200_GPUS", "B200"},
	"nvidia-gb200":          {"NVIDIA_GB200_GPUS", "GB200"},
	"nvidia-tesla-a100":     {"NVIDIA_A100_GPUS", "A100"},
	"nvidia-a100-80gb":      {"NVIDIA_A100_80GB_GPUS", "A100 80GB"},
	"nvidia-l4":             {"NVIDIA_L4_GPUS", "L4"},
	"nvidia-tesla-t4":       {"NVIDIA_T4_GPUS", "T4"},
	"nvidia-tesla-v100":     {"NVIDIA_V100_GPUS", "V100"},
	"nvidia-tesla-p100":     {"NVIDIA_P100_GPUS", "P100"},
	"nvidia-tesla-p4":       {"NVIDIA_P4_GPUS", "P4"},
}

// GlobalGPUMetric is the project's quota on GPUs in all regions together.
const GlobalGPUMetric = "GPUS_ALL_REGIONS"

// preemptible reports whether a capacity type draws on preemptible quota.
// Spot VMs do when the project has preemptible quota, else on the standard
// one (Compute Engine, "Create and use Spot VMs": "To prevent Spot VMs from
// consuming your quotas for standard VMs' CPUs, GPUs, and disks, consider
// requesting preemptible quota"); flex-start VMs "consume preemptible
// quota" (Google Cloud blog, "Introducing Flex-start VMs", 2025-09-25).
// Reservation pools run on capacity their reservation already holds
// quota for: not counted.
func preemptible(capacity string) bool {
	return capacity == spec.CapacitySpot || capacity == spec.CapacityFlexStart
}

func quotaOf(qs []*computepb.Quota, metric string) *computepb.Quota {
	for _, q := range qs {
		if q.GetMetric() == metric {
			return q
		}
	}
	return nil
}

type quotaDemand struct {
	project, where, metric, short string
	gpus                          int64
	pools                         []string
	perNode                       int64 // GPUs per node when every pool has the same, else 0
	quota                         *computepb.Quota
	fellBack                      bool // spot or flex-start pools on the standard quota: the region has no preemptible quota
}

func (a analysis) quota() {
	s := a.s
	g := s.GCP
	if s.PoolsRead.What == "" {
		return // no GKE: the platform note names what did not run
	}
	if !g.Computed {
		a.f.note("Compute Engine was not read (with --insecure-endpoints, doctor reads it only at --compute-endpoint or MLPLATFORM_COMPUTE_ENDPOINT, " +
			"the sandbox's), so " + CheckGPUQuota.ID + " (GPU quota) and " + CheckPrivateGoogleAccess.ID + " (Private Google Access) did not run")
		return
	}
	if !a.needs(s.PoolsRead, CheckGPUQuota) {
		return
	}
	pools, unknown := s.poolsForQuota(a.opts.Plan)
	if len(unknown) > 0 {
		a.f.note("the GPU quota check (" + CheckGPUQuota.ID + ") leaves out pools whose GPU type, count, capacity or max_nodes the plan knows only after apply: " + listSome(unknown, 5))
	}
	demands := map[string]*quotaDemand{}
	global := map[string]*quotaDemand{}
	add := func(m map[string]*quotaDemand, key string, d quotaDemand, p quotaPool) {
		x := m[key]
		if x == nil {
			x = &d
			x.perNode = p.gpusPerNode
			m[key] = x
		}
		x.gpus += p.maxNodes * p.gpusPerNode
		x.fellBack = x.fellBack || d.fellBack
		x.pools = append(x.pools, p.name)
		if x.perNode != p.gpusPerNode {
			x.perNode = 0
		}
	}
	for _, p := range pools {
		if p.capacity == spec.CapacityReservation || p.gpusPerNode == 0 {
			continue
		}
		acc, ok := Accelerators[p.accelerator]
		if !ok {
			a.f.note(fmt.Sprintf("pool %s: doctor does not know the quota metric of accelerator %s, so its GPUs are not counted against a regional quota", p.name, p.accelerator))
			continue
		}
		rk := p.project + "/" + p.region
		if r := g.RegionReads[rk]; !a.needs(r, CheckGPUQuota) {
			continue
		}
		region := g.Regions[rk]
		metric, fell := acc.Metric, false
		if preemptible(p.capacity) {
			if q := quotaOf(region.GetQuotas(), "PREEMPTIBLE_"+acc.Metric); q != nil && q.GetLimit() > 0 {
				metric = "PREEMPTIBLE_" + acc.Metric
			} else {
				fell = true
			}
		}
		q := quotaOf(region.GetQuotas(), metric)
		if q == nil {
			a.f.note(fmt.Sprintf("region %s of project %s lists no %s quota (pool %s, %s): the accelerator may not be offered there; "+
				"doctor gives no quota verdict for it", p.region, p.project, metric, p.name, p.accelerator))
			continue
		}
		add(demands, rk+"/"+metric, quotaDemand{project: p.project, where: p.region, metric: metric, short: acc.Short, quota: q, fellBack: fell}, p)
		if r := g.ProjectRead[p.project]; a.needs(r, CheckGPUQuota) {
			if gq := quotaOf(g.Projects[p.project].GetQuotas(), GlobalGPUMetric); gq != nil {
				add(global, p.project, quotaDemand{project: p.project, where: "all regions", metric: GlobalGPUMetric, short: "", quota: gq}, p)
			}
		}
	}
	for _, m := range []map[string]*quotaDemand{demands, global} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			a.quotaVerdict(m[k])
		}
	}
}

func (a analysis) quotaVerdict(d *quotaDemand) {
	limit := int64(d.quota.GetLimit())
	if d.gpus <= limit {
		a.f.pass(1)
		return
	}
	slices.Sort(d.pools)
	d.pools = slices.Compact(d.pools)
	names := "pool " + d.pools[0]
	if len(d.pools) > 1 {
		names = "pools " + strings.Join(d.pools[:len(d.pools)-1], ", ") + " and " + d.pools[len(d.pools)-1]
	}
	what := "GPUs"
	if d.short != "" {
		what = d.short
	}
	over := d.gpus - limit
	msg := fmt.Sprintf("%s may scale to %d %s in %s (project %s); %s is %d: nodes past %d GPUs stay Pending (%d over",
		names, d.gpus, what, d.where, d.project, d.metric, limit, limit, over)
	if d.perNode > 0 {
		msg += fmt.Sprintf(", %s of %d GPUs", plural(int((over+d.perNode-1)/d.perNode), "node"), d.perNode)
	}
	msg += ")"
	if u := int64(d.quota.GetUsage()); u > 0 {
		msg += fmt.Sprintf("; %d of it is in use now", u)
	}
	if d.fellBack {
		msg += "; the region has no preemptible quota for them, so Spot and flex-start nodes draw on the standard " + d.metric
	}
	where := "in " + d.where
	if d.where == "all regions" {
		where = "for the project"
	}
	fix := fmt.Sprintf("request %s of at least %d %s (Google Cloud console: IAM & Admin > Quotas & System Limits, service compute.googleapis.com), "+
		"or lower the pools' autoscaling.max_nodes so they sum to at most %d GPUs", d.metric, d.gpus, where, limit)
	a.f.add(CheckGPUQuota, SeverityWarning, fmt.Sprintf("quota %s (%s, project %s)", d.metric, d.where, d.project), msg, fix)
}

// computeFix is what to do when a Compute Engine read was refused: a quota
// that cannot be read is never taken for zero.
func computeFix(err error, project, verdict string) string {
	code := 0
	var ae *apierror.APIError
	var ge *googleapi.Error
	switch {
	case errors.As(err, &ae) && ae.HTTPCode() > 0:
		code = ae.HTTPCode()
	case errors.As(err, &ge):
		code = ge.Code
	}
	noVerdict := "; until then doctor gives no " + verdict + " verdict"
	if verdict == "quota" {
		noVerdict += " (a quota it could not read is not zero)"
	}
	switch code {
	case http.StatusUnauthorized:
		return "the Google credentials were refused (an expired or revoked token): renew them (gcloud auth application-default login, " +
			"or a fresh GOOGLE_OAUTH_ACCESS_TOKEN) and run doctor again" + noVerdict
	case http.StatusForbidden:
		return "grant the identity doctor runs as compute.regions.get, compute.projects.get and compute.subnetworks.get on project " + project +
			" (roles/compute.viewer) and run doctor again" + noVerdict
	}
	return "check the Google credentials and that Compute Engine answers (the error says which); run doctor again" + noVerdict
}

// --- DOC025–DOC028: the cluster's prerequisites ---------------------------------

// MinFlexStartVersion is the oldest GKE version whose GPU node pools can
// use flex-start (GKE, "About GPU obtainability with flex-start"; the facts
// sheet). The provider's queued provisioning is flex-start through
// ProvisioningRequests, so it needs the same (GKE's own minimum for queued
// provisioning alone is older: UNVERIFIED, not relied on).
const MinFlexStartVersion = "1.32.2-gke.1652000"

func (a analysis) prerequisites() {
	s := a.s
	if s.PoolsRead.What == "" {
		return
	}
	if !a.needs(s.PoolsRead, CheckWorkloadIdentity, CheckNetworkPolicyEnforced, CheckPrivateGoogleAccess, CheckGKEVersion) || s.GKECluster == nil {
		return
	}
	c := s.GKECluster
	loc, name := clusterParts(s.Cluster)
	gcloud := fmt.Sprintf("gcloud container clusters update %s --location %s", name, loc)
	if pool := c.GetWorkloadIdentityConfig().GetWorkloadPool(); pool == "" {
		a.f.add(CheckWorkloadIdentity, SeverityError, "cluster "+s.Cluster,
			"the cluster has no Workload Identity pool (workloadIdentityConfig.workloadPool is empty): mlplatform_workload_identity bindings fail "+
				"(IAM answers \"Identity Pool does not exist\") and training pods act as the nodes' service account",
			fmt.Sprintf("%s --workload-pool=%s.svc.id.goog, then run the GPU pools' nodes with the GKE metadata server (the provider's gpu_pool workload_identity, on by default)", gcloud, projectOf(s.Cluster)))
	} else {
		a.f.pass(1)
	}
	if c.GetNetworkConfig().GetDatapathProvider() == containerpb.DatapathProvider_ADVANCED_DATAPATH || c.GetNetworkPolicy().GetEnabled() {
		a.f.pass(1)
	} else {
		a.f.add(CheckNetworkPolicyEnforced, SeverityError, "cluster "+s.Cluster,
			"the cluster enforces no NetworkPolicy (networkConfig.datapathProvider is not ADVANCED_DATAPATH, Dataplane V2, and networkPolicy.enabled, Calico, is false): "+
				"the team namespaces' default deny and every training network policy are stored but do nothing",
			gcloud+" --update-addons=NetworkPolicy=ENABLED, then "+gcloud+" --enable-network-policy (Calico; it recreates the nodes); "+
				"or create the cluster with --enable-dataplane-v2, which enforces NetworkPolicies and cannot be turned on later")
	}
	a.privateGoogleAccess()
	a.gkeVersion(c)
}

// privateGoogleAccess: where a training network policy lets pods reach
// Google APIs only through private.googleapis.com or
// restricted.googleapis.com, the cluster's subnetwork needs Private Google
// Access for nodes without external addresses to get there.
func (a analysis) privateGoogleAccess() {
	s, g := a.s, a.s.GCP
	var relying []string
	live, _ := s.Live()
	sides := []*model.Platform{model.FromLive(live)}
	if a.opts.Plan != nil {
		sides = append(sides, model.FromPlan(*a.opts.Plan, tfplan.After))
	}
	for _, pl := range sides {
		for _, p := range pl.Policies {
			if p.Spec.GoogleAPIs != "" && p.Spec.GoogleAPIs != "none" && !p.Unknown.Any("google_apis") {
				relying = append(relying, cmp.Or(p.Spec.Namespace, p.Address))
			}
		}
	}
	slices.Sort(relying)
	relying = slices.Compact(relying)
	if len(relying) == 0 {
		a.f.pass(1)
		return
	}
	if !g.Computed || g.SubnetRead.What == "" {
		return // the quota check's note says Compute was not read
	}
	if !a.needs(g.SubnetRead, CheckPrivateGoogleAccess) {
		return
	}
	if g.Subnet.GetPrivateIpGoogleAccess() {
		a.f.pass(1)
		return
	}
	sn := strings.Split(g.SubnetName, "/")
	a.f.add(CheckPrivateGoogleAccess, SeverityWarning, "subnetwork "+g.SubnetName,
		fmt.Sprintf("the training network policies of %s let pods reach Google APIs only through private.googleapis.com or restricted.googleapis.com "+
			"(199.36.153.8/30, 199.36.153.4/30), but subnetwork %s has Private Google Access off (privateIpGoogleAccess false): "+
			"from nodes without external addresses those calls (Cloud Storage, Artifact Registry, tokens) time out", listSome(relying, 5), g.SubnetName),
		fmt.Sprintf("gcloud compute networks subnets update %s --region %s --enable-private-ip-google-access (and resolve *.googleapis.com to the VIP in Cloud DNS)",
			sn[len(sn)-1], sn[3]))
}

func (a analysis) gkeVersion(c *containerpb.Cluster) {
	var flex []string
	for _, p := range a.allPools() {
		if p.capacity == spec.CapacityFlexStart || p.queued {
			flex = append(flex, p.name)
		}
	}
	v := c.GetCurrentMasterVersion()
	if len(flex) == 0 {
		a.f.pass(1)
		return
	}
	older, ok := gkeVersionLess(v, MinFlexStartVersion)
	switch {
	case !ok:
		a.f.note(fmt.Sprintf("GKE version %q is not one doctor can compare with %s, the oldest that runs flex-start and queued provisioning (pools %s)", v, MinFlexStartVersion, listSome(flex, 5)))
	case older:
		loc, name := clusterParts(a.s.Cluster)
		a.f.add(CheckGKEVersion, SeverityError, "cluster "+a.s.Cluster,
			fmt.Sprintf("the control plane runs GKE %s; flex-start and queued provisioning GPU pools (%s) need %s or later: GKE refuses to create them",
				v, listSome(flex, 5), MinFlexStartVersion),
			fmt.Sprintf("gcloud container clusters upgrade %s --location %s --master --cluster-version %s (or later), then upgrade the node pools", name, loc, MinFlexStartVersion))
	default:
		a.f.pass(1)
	}
}

// allPools are the pools of the cluster and of the plan.
func (a analysis) allPools() []quotaPool {
	p, _ := a.s.poolsForQuota(a.opts.Plan)
	return p
}

func clusterParts(cluster string) (location, name string) {
	parts := strings.Split(cluster, "/")
	if len(parts) != 6 {
		return "", cluster
	}
	return parts[3], parts[5]
}

func projectOf(cluster string) string {
	parts := strings.Split(cluster, "/")
	if len(parts) != 6 {
		return "PROJECT"
	}
	return parts[1]
}

// gkeVersionLess compares GKE versions such as 1.33.5-gke.1080000: the
// Kubernetes version, then GKE's build number.
func gkeVersionLess(a, b string) (less, ok bool) {
	pa, okA := parseGKEVersion(a)
	pb, okB := parseGKEVersion(b)
	if !okA || !okB {
		return false, false
	}
	return slices.Compare(pa, pb) < 0, true
}

func parseGKEVersion(v string) ([]int, bool) {
	kube, build, _ := strings.Cut(v, "-gke.")
	var out []int
	for _, p := range strings.Split(kube, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	if len(out) != 3 {
		return nil, false
	}
	n := 0
	if build != "" {
		var err error
		if n, err = strconv.Atoi(build); err != nil {
			return nil, false
		}
	}
	return append(out, n), true
}
