package doctortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// The small platform: two GPU pools in the fake (an L4 pool, and a
// queued-provisioning flex-start pool), their flavors (node_labels and
// tolerations as mlplatform_gpu_pool's node_selector and
// workload_tolerations give them), the flex-start admission check, and per
// team a labelled namespace with the platform's default-deny NetworkPolicies,
// a ClusterQueue selecting it with quota on both flavors (the provisioning
// check on the flex flavor) and a LocalQueue.
const (
	gpuPool   = "doc-l4"
	flexPool  = "doc-flex"
	dwsCheck  = "doc-dws"
	teamLabel = "mlplatform.dev/team"
)

type platform struct {
	t    *testing.T
	env  *testenv.Env
	core kubernetes.Interface
	kq   kueueclient.Interface
	gke  *container.ClusterManagerClient
	ctx  context.Context
	// now is the clock doctor measures ages against (nil: time.Now). The
	// API server stamps creationTimestamp itself, so a test that needs a
	// node created hours ago moves doctor's clock forward instead.
	now func() time.Time
}

func newPlatform(t *testing.T) *platform {
	t.Helper()
	env := acctest.Env(t)
	core, kq := acctest.Kube(t)
	ctx := context.Background()
	g, err := container.NewClusterManagerClient(ctx, env.GCP.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return &platform{t: t, env: env, core: core, kq: kq, gke: g, ctx: ctx}
}

func (p *platform) cluster() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", p.env.Project, p.env.Location, p.env.Cluster)
}

func nsName(i int) string { return fmt.Sprintf("doc-team-%d", i) }

func ignoreExists(t *testing.T, err error) {
	t.Helper()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// shared creates the pools, flavors and admission check (idempotent).
func (p *platform) shared() {
	t := p.t
	p.createPool(gpuPool, false)
	p.createPool(flexPool, true)
	ignoreExists(t, p.createFlavor(gpuPool))
	ignoreExists(t, p.createFlavor(flexPool))
	_, err := p.kq.KueueV1beta2().ProvisioningRequestConfigs().Create(p.ctx, &kueuev1beta2.ProvisioningRequestConfig{
		ObjectMeta: metav1.ObjectMeta{Name: dwsCheck},
		Spec: kueuev1beta2.ProvisioningRequestConfigSpec{ProvisioningClassName: "queued-provisioning.gke.io",
			ManagedResources: []corev1.ResourceName{"nvidia.com/gpu"}},
	}, metav1.CreateOptions{})
	ignoreExists(t, err)
	_, err = p.kq.KueueV1beta2().AdmissionChecks().Create(p.ctx, &kueuev1beta2.AdmissionCheck{
		ObjectMeta: metav1.ObjectMeta{Name: dwsCheck},
		Spec: kueuev1beta2.AdmissionCheckSpec{ControllerName: kueuev1beta2.ProvisioningRequestControllerName,
			Parameters: &kueuev1beta2.AdmissionCheckParametersReference{APIGroup: kueuev1beta2.SchemeGroupVersion.Group, Kind: "ProvisioningRequestConfig", Name: dwsCheck}},
	}, metav1.CreateOptions{})
	ignoreExists(t, err)
}

// createFlavor is mlplatform_resource_flavor with node_labels and
// tolerations from the pool.
func (p *platform) createFlavor(pool string) error {
	tols := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	if pool == flexPool {
		tols = append(tols, corev1.Toleration{Key: "cloud.google.com/gke-queued", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	_, err := p.kq.KueueV1beta2().ResourceFlavors().Create(p.ctx, &kueuev1beta2.ResourceFlavor{
		ObjectMeta: metav1.ObjectMeta{Name: pool},
		Spec:       kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": pool}, Tolerations: tols},
	}, metav1.CreateOptions{})
	return err
}

// createPool creates a GPU pool in the fake, as gcloud would, and waits
// until it is RUNNING (no-op when it exists).
func (p *platform) createPool(name string, queued bool) {
	t := p.t
	np := &containerpb.NodePool{Name: name,
		Config: &containerpb.NodeConfig{MachineType: "g2-standard-8", Spot: !queued, FlexStart: &queued,
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}}},
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 4, LocationPolicy: containerpb.NodePoolAutoscaling_ANY},
	}
	if queued {
		np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
		np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	}
	_, err := p.gke.CreateNodePool(p.ctx, &containerpb.CreateNodePoolRequest{Parent: p.cluster(), NodePool: np})
	if err != nil && !strings.Contains(err.Error(), "AlreadyExists") && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create node pool %s: %v", name, err)
	}
	p.waitPool(name, true)
}

func (p *platform) deletePool(name string) {
	if _, err := p.gke.DeleteNodePool(p.ctx, &containerpb.DeleteNodePoolRequest{Name: p.cluster() + "/nodePools/" + name}); err != nil {
		p.t.Fatal(err)
	}
	p.waitPool(name, false)
}

func (p *platform) waitPool(name string, running bool) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		np, err := p.gke.GetNodePool(p.ctx, &containerpb.GetNodePoolRequest{Name: p.cluster() + "/nodePools/" + name})
		switch {
		case running && err == nil && np.GetStatus() == containerpb.NodePool_RUNNING:
			return
		case !running && err != nil && strings.Contains(err.Error(), "NotFound"):
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("node pool %s did not become %s", name, map[bool]string{true: "RUNNING", false: "deleted"}[running])
}

// teams creates teams [from, to) (idempotent).
func (p *platform) teams(from, to int) {
	t := p.t
	q := func(n string) resource.Quantity { return resource.MustParse(n) }
	for i := from; i < to; i++ {
		name := nsName(i)
		_, err := p.core.CoreV1().Namespaces().Create(p.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{teamLabel: name}}}, metav1.CreateOptions{})
		ignoreExists(t, err)
		quota := func(flavor, gpus string) kueuev1beta2.FlavorQuotas {
			return kueuev1beta2.FlavorQuotas{Name: kueuev1beta2.ResourceFlavorReference(flavor), Resources: []kueuev1beta2.ResourceQuota{
				{Name: "cpu", NominalQuota: q("8")}, {Name: "nvidia.com/gpu", NominalQuota: q(gpus)}}}
		}
		_, err = p.kq.KueueV1beta2().ClusterQueues().Create(p.ctx, &kueuev1beta2.ClusterQueue{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: kueuev1beta2.ClusterQueueSpec{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{teamLabel: name}},
				ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu", "nvidia.com/gpu"},
					Flavors: []kueuev1beta2.FlavorQuotas{quota(gpuPool, "2"), quota(flexPool, "4")}}},
				AdmissionChecksStrategy: &kueuev1beta2.AdmissionChecksStrategy{AdmissionChecks: []kueuev1beta2.AdmissionCheckStrategyRule{
					{Name: dwsCheck, OnFlavors: []kueuev1beta2.ResourceFlavorReference{flexPool}}}},
			},
		}, metav1.CreateOptions{})
		ignoreExists(t, err)
		// its default deny and holes, as mlplatform_training_network_policy makes them
		for _, np := range netpol.Render(spec.DefaultTrainingNetworkPolicy(name)) {
			_, err = p.core.NetworkingV1().NetworkPolicies(name).Create(p.ctx, &np, metav1.CreateOptions{})
			ignoreExists(t, err)
		}
		_, err = p.kq.KueueV1beta2().LocalQueues(name).Create(p.ctx, &kueuev1beta2.LocalQueue{
			ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name},
			Spec:       kueuev1beta2.LocalQueueSpec{ClusterQueue: kueuev1beta2.ClusterQueueReference(name)},
		}, metav1.CreateOptions{})
		ignoreExists(t, err)
	}
}

// deleteFlavor deletes a flavor out of band, as kubectl delete does, and
// waits until it is gone or held by Kueue's finalizer.
func (p *platform) deleteFlavor(name string) {
	if err := p.kq.KueueV1beta2().ResourceFlavors().Delete(p.ctx, name, metav1.DeleteOptions{}); err != nil {
		p.t.Fatal(err)
	}
}

// forgetFlavor removes Kueue's finalizer from a deleted flavor, so it is
// really gone (as after kubectl patch --type=merge -p '{"metadata":{"finalizers":null}}').
func (p *platform) forgetFlavor(name string) {
	_, err := p.kq.KueueV1beta2().ResourceFlavors().Patch(p.ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := p.kq.KueueV1beta2().ResourceFlavors().Get(p.ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("flavor %s is still there", name)
}

// run is `mlplatform doctor` with the provider settings as flags (no
// environment), and extra flags.
func (p *platform) run(extra ...string) (code int, stdout, stderr string, res jsonResult) {
	args := []string{"--kubeconfig", p.env.Kubeconfig, "--project", p.env.Project, "--location", p.env.Location,
		"--cluster", p.env.Cluster, "--container-endpoint", p.env.GCP.Addr(), "--insecure-endpoints",
		"--compute-endpoint", p.env.GCP.ComputeAddr()}
	args = append(args, extra...)
	var out, errOut bytes.Buffer
	code = doctor.CommandAt(p.ctx, args, &out, &errOut, func(string) string { return "" }, p.clock())
	if code == doctor.ExitOK || code == doctor.ExitFindings {
		var js bytes.Buffer
		jargs := append(append([]string{}, args...), "--format", "json")
		doctor.CommandAt(p.ctx, jargs, &js, &bytes.Buffer{}, func(string) string { return "" }, p.clock())
		if err := json.Unmarshal(js.Bytes(), &res); err != nil {
			p.t.Fatalf("doctor --format json: %v\n%s", err, js.String())
		}
	}
	return code, out.String(), errOut.String(), res
}

type jsonResult struct {
	Checks   int                   `json:"checks"`
	Passed   bool                  `json:"passed"`
	Findings []doctor.Finding      `json:"findings"`
	Notes    []string              `json:"notes"`
	GPUPools []doctor.GPUPoolUsage `json:"gpu_pools"`
	Idle     *doctor.IdleCost      `json:"idle"`
}

func (p *platform) clock() func() time.Time {
	if p.now == nil {
		return time.Now
	}
	return p.now
}

// until runs doctor until ok says its result is what the test waits for
// (Kueue reports conditions asynchronously), and the text run's exit code
// agrees with the JSON run's result, and returns that run.
func (p *platform) until(what string, ok func(code int, out string, res jsonResult) bool, extra ...string) (int, string, jsonResult) {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		code, out, errOut, res := p.run(extra...)
		// The text and the JSON run are two runs: a workload may cross the
		// pending threshold between them. Only a pair that agrees counts.
		agree := res.Passed == (code == doctor.ExitOK)
		if agree && ok(code, out, res) {
			return code, out, res
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: doctor did not say so within 90 s; last run exited %d:\n%s%s", what, code, out, errOut)
		}
		time.Sleep(time.Second)
	}
}

// noProbe fails t when the webhook probe's ResourceFlavor was stored: the
// probe is a server-side dry run, and leaves nothing, answered or not.
func (p *platform) noProbe(t *testing.T) {
	t.Helper()
	if _, err := p.kq.KueueV1beta2().ResourceFlavors().Get(p.ctx, doctor.ProbeFlavor, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after doctor ran, getting ResourceFlavor %s returned %v, want NotFound: the webhook probe must be a dry run", doctor.ProbeFlavor, err)
	}
}

func clean(code int, _ string, _ jsonResult) bool { return code == doctor.ExitOK }

func has(res jsonResult, id, object string) *doctor.Finding {
	for i, f := range res.Findings {
		if f.ID == id && (object == "" || f.Object() == object) {
			return &res.Findings[i]
		}
	}
	return nil
}
