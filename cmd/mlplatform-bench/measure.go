package main

// What a run measures besides time: the plan process's rusage, the objects
// the platform holds in the cluster and the fake, and what was run.

import (
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/api/iterator"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
)

// readRusage sums the provider processes' CPU and takes their largest peak RSS.
func readRusage(path string) (maxRSS int64, cpu time.Duration, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("no provider rusage recorded (%w): did terraform run the wrapper?", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var pid, rssKiB, user, sys int64
		if _, err := fmt.Sscan(line, &pid, &rssKiB, &user, &sys); err != nil {
			return 0, 0, fmt.Errorf("rusage line %q: %w", line, err)
		}
		maxRSS = max(maxRSS, rssKiB*1024)
		cpu += time.Duration(user+sys) * time.Microsecond
	}
	return maxRSS, cpu, nil
}

// kubeObjects counts the Kubernetes objects the platform manages, on the server.
func (b *bencher) kubeObjects(ctx context.Context) (int, error) {
	lo := metav1.ListOptions{}
	n := 0
	nss, err := b.kube.CoreV1().Namespaces().List(ctx, lo)
	if err != nil {
		return 0, err
	}
	for _, ns := range nss.Items {
		if strings.HasPrefix(ns.Name, "team-") {
			n++
		}
	}
	ksas, err := b.kube.CoreV1().ServiceAccounts("").List(ctx, lo)
	if err != nil {
		return 0, err
	}
	for _, sa := range ksas.Items {
		if strings.HasPrefix(sa.Namespace, "team-") && sa.Name == "trainer" {
			n++
		}
	}
	nps, err := b.kube.NetworkingV1().NetworkPolicies("").List(ctx, metav1.ListOptions{LabelSelector: netpol.ManagedByLabel + "=" + netpol.ManagedBy})
	if err != nil {
		return 0, err
	}
	n += len(nps.Items)
	k := b.kueue.KueueV1beta2()
	counts := []func() (int, error){
		func() (int, error) {
			l, err := k.ClusterQueues().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.LocalQueues("").List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.ResourceFlavors().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.Cohorts().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.AdmissionChecks().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.ProvisioningRequestConfigs().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
		func() (int, error) {
			l, err := k.WorkloadPriorityClasses().List(ctx, lo)
			return lenOr(l, err, func() int { return len(l.Items) })
		},
	}
	for _, c := range counts {
		m, err := c()
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

func lenOr[L any](_ L, err error, n func() int) (int, error) {
	if err != nil {
		return 0, err
	}
	return n(), nil
}

// gcpObjects counts the node pools of the cluster and the Google service
// accounts of the project.
func (b *bencher) gcpObjects(ctx context.Context) (int, error) {
	g, err := gke.New(ctx, b.env.GCP.ClientOptions()...)
	if err != nil {
		return 0, err
	}
	defer func() { _ = g.Close() }() // a client's connection; the counts are read
	cluster := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", b.env.Project, b.env.Location, b.env.Cluster)
	pools, err := g.CM.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: cluster})
	if err != nil {
		return 0, err
	}
	ic, err := iam.New(ctx, b.env.GCP.ClientOptions()...)
	if err != nil {
		return 0, err
	}
	defer func() { _ = ic.Close() }()
	n := len(pools.GetNodePools())
	it := ic.Admin.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + b.env.Project})
	for {
		_, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		n++
	}
}

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	// internal/bench is the benchmark, not the provider it measures.
	if exec.Command("git", "diff", "--quiet", "HEAD", "--", "internal", ":(exclude)internal/bench", "provider", "resources", "datasources", "main.go", "go.mod").Run() != nil {
		c += "-dirty"
	}
	return c
}

// providerBuild names the measured provider binary by its path, a hash of
// its content and, when its Go build information has it (not with
// -buildvcs=false), the commit it was built from, so results of two binaries
// measured in one session can be told apart.
func providerBuild(flagValue, path string) string {
	id := flagValue
	if data, err := os.ReadFile(path); err == nil {
		id += fmt.Sprintf(" (sha256 %.12x", sha256.Sum256(data))
	} else {
		return id
	}
	if info, err := buildinfo.ReadFile(path); err == nil {
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", with uncommitted changes"
				}
			}
		}
		if rev != "" {
			id += fmt.Sprintf(", built from %.7s%s", rev, modified)
		}
	}
	return id + ")"
}

func tfVersion(tf string) string {
	out, err := exec.Command(tf, "version", "-json").Output()
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err != nil || json.Unmarshal(out, &v) != nil {
		return filepath.Base(tf)
	}
	return filepath.Base(tf) + " " + v.Version
}
