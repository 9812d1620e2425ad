package doctortest

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The plan of internal/report's real_cost_change case (terraform plan
// against the control plane): it raises the Spot pool rc-h100-spot's
// max_nodes 2 → 3 and the flex-start pool rc-h100-flex's 2 → 4, 8 H100 per
// node each, in the sandbox's cluster: 32 preemptible H100 before, 56 after.
var costChangePlan = filepath.Join("..", "..", "report", "testdata", "real_cost_change.json")

// TestAccDoctorGPUQuota sets the fake's Compute Engine quotas against the
// pools of the cluster (two H100 pools, Spot and flex-start, 4 nodes of 8
// GPUs each at most; two L4 pools, 4 nodes of 1) and of a saved plan. Each
// case exits as doctor's findings do (6), and doctor is clean once the
// quota fits again:
//   - over: PREEMPTIBLE_NVIDIA_H100_GPUS 16 against the 64 the H100 pools
//     may scale to, found with the numbers;
//   - within: 64, no finding;
//   - GPUS_ALL_REGIONS 40 against all 72 GPUs;
//   - the plan: with no H100 pool in the cluster and the quota at 40, doctor
//     finds nothing, and doctor --plan finds the plan's 56 before apply;
//   - could not read: Compute answers 401, then 403, with its error body:
//     DOC000 says "could not read" and what to do, and no quota verdict.
func TestAccDoctorGPUQuota(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	compute := p.env.GCP.Compute
	project, region := p.env.Project, doctor.RegionOf(p.env.Location)
	t.Cleanup(func() { compute.ResetQuotas(); compute.Refuse(0) })
	object := func(metric, where string) string {
		return "quota " + metric + " (" + where + ", project " + project + ")"
	}
	p.until("a clean platform", clean)

	t.Run("the plan raises max_nodes past quota", func(t *testing.T) {
		compute.SetRegionQuota(project, region, "PREEMPTIBLE_NVIDIA_H100_GPUS", 40)
		defer compute.ResetQuotas()
		if _, out, res := p.until("no finding without the plan", clean); has(res, "DOC024", "") != nil {
			t.Errorf("without --plan: %s", out)
		}
		code, out, res := p.until("the plan's pools over quota", func(_ int, _ string, res jsonResult) bool {
			return has(res, "DOC024", "") != nil
		}, "--plan", costChangePlan)
		t.Logf("doctor --plan, exit %d:\n%s", code, out)
		f := has(res, "DOC024", object("PREEMPTIBLE_NVIDIA_H100_GPUS", region))
		want := "pools rc-h100-flex and rc-h100-spot may scale to 56 H100 in " + region + " (project " + project + "); PREEMPTIBLE_NVIDIA_H100_GPUS is 40: " +
			"nodes past 40 GPUs stay Pending (16 over, 2 nodes of 8 GPUs)"
		if code != doctor.ExitFindings || len(res.Findings) != 1 || f == nil || f.Message != want ||
			!strings.Contains(f.Fix, "request PREEMPTIBLE_NVIDIA_H100_GPUS of at least 56 in "+region) {
			t.Errorf("want exit 6 and one DOC024 %q; got exit %d:\n%s", want, code, out)
		}
	})

	p.gpuPool(h100Pool, spec.CapacitySpot)
	p.gpuPool(flexH100, spec.CapacityFlexStart)
	p.until("clean with the H100 pools", clean)

	t.Run("pools over the regional quota", func(t *testing.T) {
		compute.SetRegionQuota(project, region, "PREEMPTIBLE_NVIDIA_H100_GPUS", 16)
		code, out, res := p.until("the H100 pools over quota", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC024", "") != nil })
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "DOC024", object("PREEMPTIBLE_NVIDIA_H100_GPUS", region))
		want := "pools " + h100Pool + " and " + flexH100 + " may scale to 64 H100 in " + region + " (project " + project +
			"); PREEMPTIBLE_NVIDIA_H100_GPUS is 16: nodes past 16 GPUs stay Pending (48 over, 6 nodes of 8 GPUs)"
		if code != doctor.ExitFindings || len(res.Findings) != 1 || f == nil || f.Message != want || f.Severity != doctor.SeverityWarning {
			t.Errorf("want exit 6 and one DOC024 warning %q; got exit %d:\n%s", want, code, out)
		}
	})

	t.Run("within quota", func(t *testing.T) {
		compute.SetRegionQuota(project, region, "PREEMPTIBLE_NVIDIA_H100_GPUS", 64)
		code, out, _ := p.until("within quota", clean)
		if code != doctor.ExitOK {
			t.Errorf("want exit 0; got %d:\n%s", code, out)
		}
	})

	t.Run("GPUS_ALL_REGIONS", func(t *testing.T) {
		compute.SetProjectQuota(project, "GPUS_ALL_REGIONS", 40)
		defer compute.ResetQuotas()
		code, out, res := p.until("over the global quota", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC024", "") != nil })
		f := has(res, "DOC024", object("GPUS_ALL_REGIONS", "all regions"))
		want := "may scale to 72 GPUs in all regions (project " + project + "); GPUS_ALL_REGIONS is 40: nodes past 40 GPUs stay Pending (32 over)"
		if code != doctor.ExitFindings || len(res.Findings) != 1 || f == nil || !strings.HasSuffix(f.Message, want) ||
			!strings.HasPrefix(f.Message, "pools "+flexPool+", "+h100Pool+", "+flexH100+" and "+gpuPool) {
			t.Errorf("want exit 6 and one DOC024 ending %q; got exit %d:\n%s", want, code, out)
		}
	})

	t.Run("could not read", func(t *testing.T) {
		for code, fix := range map[int]string{
			http.StatusUnauthorized: "the Google credentials were refused",
			http.StatusForbidden:    "grant the identity doctor runs as compute.regions.get, compute.projects.get and compute.subnetworks.get on project " + project,
		} {
			compute.SetRegionQuota(project, region, "PREEMPTIBLE_NVIDIA_H100_GPUS", 0) // unread, this is never compared
			compute.Refuse(code)
			exit, out, res := p.until("the refused read", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC000", "") != nil })
			t.Logf("Compute answers %d; doctor exits %d:\n%s", code, exit, out)
			f := has(res, "DOC000", "Compute Engine quotas of region "+region+" in project "+project)
			if exit != doctor.ExitFindings || f == nil || !strings.HasPrefix(f.Message, "could not read Compute Engine quotas of region "+region) ||
				!strings.Contains(f.Message, "so DOC024 gpu-quota could not run") || !strings.Contains(f.Fix, fix) ||
				!strings.Contains(f.Fix, "a quota it could not read is not zero") {
				t.Errorf("Compute answers %d: want exit 6 and DOC000 'could not read' with %q; got exit %d:\n%s", code, fix, exit, out)
			}
			if has(res, "DOC024", "") != nil || strings.Contains(out, "is 0:") {
				t.Errorf("Compute answers %d: an unread quota gave a verdict:\n%s", code, out)
			}
			compute.Refuse(0)
			compute.ResetQuotas()
			p.until("clean once Compute answers", clean)
		}
	})
}

// TestAccDoctorClusterPrerequisites breaks each setting the platform relies
// on in the fake's cluster (and its subnetwork), one at a time: doctor
// finds it with its fix (exit 6), and is clean once it is mended.
func TestAccDoctorClusterPrerequisites(t *testing.T) {
	p := newPlatform(t)
	p.shared()    // doc-flex: a flex-start pool with queued provisioning
	p.teams(0, 1) // the default training network policy: Google APIs through private.googleapis.com
	project, location, name := p.env.Project, p.env.Location, p.env.Cluster
	region := doctor.RegionOf(location)
	var saved *containerpb.Cluster
	edit := func(f func(c *containerpb.Cluster)) {
		t.Helper()
		if err := p.env.GCP.Container.EditCluster(project, location, name, f); err != nil {
			t.Fatal(err)
		}
	}
	edit(func(c *containerpb.Cluster) { saved = proto.Clone(c).(*containerpb.Cluster) })
	restore := func() {
		edit(func(c *containerpb.Cluster) {
			c.WorkloadIdentityConfig = proto.Clone(saved.WorkloadIdentityConfig).(*containerpb.WorkloadIdentityConfig)
			c.NetworkConfig = proto.Clone(saved.NetworkConfig).(*containerpb.NetworkConfig)
			c.NetworkPolicy, c.CurrentMasterVersion = nil, saved.CurrentMasterVersion
		})
		p.env.GCP.Compute.SetPrivateGoogleAccess(project, region, "default", true)
	}
	t.Cleanup(restore)
	p.until("a clean platform", clean)
	gcloud := "gcloud container clusters update " + name + " --location " + location
	for _, c := range []struct {
		name, id, object, message, fix string
		sev                            doctor.Severity
		break_, mend                   func()
	}{
		{name: "no workload pool", id: "DOC025", object: "cluster " + p.cluster(), sev: doctor.SeverityError,
			message: "the cluster has no Workload Identity pool", fix: gcloud + " --workload-pool=" + project + ".svc.id.goog",
			break_: func() { edit(func(c *containerpb.Cluster) { c.WorkloadIdentityConfig = nil }) }},
		{name: "enforcement off", id: "DOC026", object: "cluster " + p.cluster(), sev: doctor.SeverityError,
			message: "the cluster enforces no NetworkPolicy", fix: gcloud + " --update-addons=NetworkPolicy=ENABLED",
			break_: func() {
				edit(func(c *containerpb.Cluster) {
					c.NetworkConfig.DatapathProvider = containerpb.DatapathProvider_LEGACY_DATAPATH
				})
			},
			// mended with Calico this time: either enforces
			mend: func() {
				edit(func(c *containerpb.Cluster) {
					c.NetworkPolicy = &containerpb.NetworkPolicy{Provider: containerpb.NetworkPolicy_CALICO, Enabled: true}
				})
			}},
		{name: "Private Google Access off", id: "DOC027", object: "subnetwork projects/" + project + "/regions/" + region + "/subnetworks/default",
			sev: doctor.SeverityWarning, message: "let pods reach Google APIs only through private.googleapis.com",
			fix:    "gcloud compute networks subnets update default --region " + region + " --enable-private-ip-google-access",
			break_: func() { p.env.GCP.Compute.SetPrivateGoogleAccess(project, region, "default", false) }},
		{name: "version too old", id: "DOC028", object: "cluster " + p.cluster(), sev: doctor.SeverityError,
			message: "the control plane runs GKE 1.31.6-gke.1020000; flex-start and queued provisioning GPU pools (" + flexPool + ") need 1.32.2-gke.1652000 or later",
			fix:     "gcloud container clusters upgrade " + name + " --location " + location + " --master --cluster-version 1.32.2-gke.1652000",
			break_:  func() { edit(func(c *containerpb.Cluster) { c.CurrentMasterVersion = "1.31.6-gke.1020000" }) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.break_()
			code, out, res := p.until(c.name, func(_ int, _ string, res jsonResult) bool { return has(res, c.id, "") != nil })
			t.Logf("exit %d:\n%s", code, out)
			f := has(res, c.id, c.object)
			if code != doctor.ExitFindings || len(res.Findings) != 1 || f == nil || f.Severity != c.sev ||
				!strings.Contains(f.Message, c.message) || !strings.HasPrefix(f.Fix, c.fix) {
				t.Errorf("want exit 6 and one %s %s on %q, %q, fix %q; got exit %d:\n%s", c.id, c.sev, c.object, c.message, c.fix, code, out)
			}
			if c.mend != nil {
				c.mend()
			} else {
				restore()
			}
			if code, out, _ := p.until(c.name+" mended", clean); code != doctor.ExitOK {
				t.Errorf("mended: exit %d:\n%s", code, out)
			}
			restore()
		})
	}
}
