package fakegcp

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/option"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/compute"
)

// The official Compute Engine client (REST) reads the fake's regions,
// projects and subnetworks, and gets Compute's error codes.
func TestComputeThroughTheOfficialClient(t *testing.T) {
	t.Parallel()
	srv := New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	ctx := context.Background()
	c, err := compute.New(ctx, option.WithEndpoint("http://"+srv.ComputeAddr()), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	srv.Compute.SetRegionQuota("p", "us-central1", "PREEMPTIBLE_NVIDIA_H100_GPUS", 16)
	srv.Compute.SetRegionUsage("p", "us-central1", "PREEMPTIBLE_NVIDIA_H100_GPUS", 8)
	srv.Compute.SetPrivateGoogleAccess("p", "us-central1", "default", false)
	if err := srv.Compute.SetQuotas("p", "global/GPUS_ALL_REGIONS=24, us-east4/NVIDIA_L4_GPUS=2"); err != nil {
		t.Fatal(err)
	}
	type quota struct {
		Limit, Usage float64
	}
	limits := func(get func() (map[string]quota, error)) map[string]quota {
		t.Helper()
		m, err := get()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	region := func(r string) func() (map[string]quota, error) {
		return func() (map[string]quota, error) {
			reg, err := c.Region(ctx, "p", r)
			m := map[string]quota{}
			for _, q := range reg.GetQuotas() {
				if q.GetMetric() == "PREEMPTIBLE_NVIDIA_H100_GPUS" || q.GetMetric() == "NVIDIA_L4_GPUS" {
					m[q.GetMetric()] = quota{q.GetLimit(), q.GetUsage()}
				}
			}
			return m, err
		}
	}
	if diff := cmp.Diff(map[string]quota{"PREEMPTIBLE_NVIDIA_H100_GPUS": {16, 8}, "NVIDIA_L4_GPUS": {256, 0}}, limits(region("us-central1"))); diff != "" {
		t.Errorf("us-central1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]quota{"PREEMPTIBLE_NVIDIA_H100_GPUS": {256, 0}, "NVIDIA_L4_GPUS": {2, 0}}, limits(region("us-east4"))); diff != "" {
		t.Errorf("us-east4 (-want +got):\n%s", diff)
	}
	pr, err := c.Project(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	var global float64
	for _, q := range pr.GetQuotas() {
		if q.GetMetric() == "GPUS_ALL_REGIONS" {
			global = q.GetLimit()
		}
	}
	sn, err := c.Subnetwork(ctx, "p", "us-central1", "default")
	if err != nil {
		t.Fatal(err)
	}
	sn2, err := c.Subnetwork(ctx, "p", "us-east4", "default")
	if err != nil {
		t.Fatal(err)
	}
	if global != 24 || sn.GetPrivateIpGoogleAccess() || !sn2.GetPrivateIpGoogleAccess() || pr.GetName() != "p" {
		t.Errorf("GPUS_ALL_REGIONS %v, PGA us-central1 %v us-east4 %v, project %q", global, sn.GetPrivateIpGoogleAccess(), sn2.GetPrivateIpGoogleAccess(), pr.GetName())
	}
	if _, err := c.Region(ctx, "p", "Not_A_Region"); httpCode(err) != http.StatusNotFound {
		t.Errorf("unknown region: %v", err)
	}
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		srv.Compute.Refuse(code)
		if _, err := c.Region(ctx, "p", "us-central1"); httpCode(err) != code {
			t.Errorf("refused with %d: got %v", code, err)
		}
	}
	srv.Compute.Refuse(0)
	if diff := cmp.Diff(map[string]int{"compute.regions.get": 5, "compute.projects.get": 1, "compute.subnetworks.get": 2}, srv.Compute.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if err := srv.Compute.SetQuotas("p", "us-central1/NVIDIA_L4_GPUS"); err == nil {
		t.Error("a quota without a limit was accepted")
	}
}

func httpCode(err error) int {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		return ae.HTTPCode()
	}
	return 0
}
