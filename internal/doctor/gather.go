package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// KueueNamespace is where Kueue's manifests and chart install the manager.
const KueueNamespace = "kueue-system"

// ProbeFlavor is the name of the ResourceFlavor the webhook probe dry-run
// creates (never stored).
const ProbeFlavor = "mlplatform-doctor-probe"

// Sources are the clients doctor reads through.
type Sources struct {
	Kube *kube.Client
	GKE  *gke.Client // nil: the GKE checks are not run (a note says so)
	// Cluster is the GKE cluster's resource name,
	// projects/P/locations/L/clusters/C.
	Cluster string
	// Compute reads the project's GPU quotas and the cluster's subnetwork
	// (nil: DOC024 and DOC027's subnetwork read do not run; a note says so).
	Compute ComputeReader
}

// Options bound a run.
type Options struct {
	// CheckTimeout bounds each read (and the webhook probe). Default 10s.
	CheckTimeout time.Duration
	// PendingThreshold is how long a workload may wait for admission before
	// it is a finding. Default 30m.
	PendingThreshold time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MultiKueueWorkers asks each MultiKueue worker, with the manager's
	// credentials from its kubeconfig Secret in kueue-system, what they may
	// do there (DOC019). Off by default: it is the one read of a Secret.
	MultiKueueWorkers bool
	// IdleThreshold is how long a GPU node may have no pod requesting its
	// GPUs before it is a finding (DOC020). Default 30m: the cluster
	// autoscaler removes a node nobody needs after 10 minutes
	// (--scale-down-unneeded-time) and waits 10 minutes after a scale-up
	// before it considers scale-down (--scale-down-delay-after-add), so a
	// GPU node idle for 30 minutes is one it should have removed and did not.
	IdleThreshold time.Duration
	// FlexDeadlineWarning is how long before a flex-start node's
	// max_run_duration doctor warns about the workload still on it
	// (DOC023). Default 1h: at least the interval of an hourly scheduled
	// check, so one run sees the node before GKE reclaims it.
	FlexDeadlineWarning time.Duration
	// Prices is the price table idle capacity is priced with (the zero
	// Table: pricing.Default()), the report's table.
	Prices pricing.Table
	// IdleUSDPerHour: idle GPU capacity (DOC020–DOC022) is a finding only
	// when together it costs more than this, in USD per hour; at or below
	// it, doctor notes it. 0 (the default): any idle capacity is a finding.
	IdleUSDPerHour float64
	// Plan is a saved plan (terraform show -json): its GPU pools count
	// against the GPU quota with the cluster's (DOC024), before apply.
	Plan *tfplan.Plan
}

func (o Options) withDefaults() Options {
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = 10 * time.Second
	}
	if o.PendingThreshold <= 0 {
		o.PendingThreshold = 30 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IdleThreshold <= 0 {
		o.IdleThreshold = DefaultIdleThreshold
	}
	if o.FlexDeadlineWarning <= 0 {
		o.FlexDeadlineWarning = DefaultFlexDeadlineWarning
	}
	if o.Prices.Source() == "" {
		o.Prices = pricing.Default()
	}
	return o
}

// Read is the outcome of one request: Err is nil when it succeeded.
type Read struct {
	What    string        // what was read, e.g. "ClusterQueues"
	Err     error         // nil on success
	Elapsed time.Duration // how long it took
	Fix     string        // what to do when it failed, when more can be said than the default
}

func (r Read) ok() bool { return r.Err == nil }

// probeAnswer is nil when the webhook probe's answer shows the webhooks
// answered: stored, or refused by the API server for its own reasons (the
// object exists, is invalid, or a webhook denied it); otherwise the error (a
// webhook the API server could not call, no RBAC to create).
func probeAnswer(err error) error {
	if apierrors.IsAlreadyExists(err) || apierrors.IsInvalid(err) || apierrors.IsForbidden(err) && strings.Contains(err.Error(), "admission webhook") {
		return nil
	}
	return err
}

// Snapshot is everything the checks look at, read with one request per kind.
type Snapshot struct {
	Now          time.Time
	Cluster      string
	CheckTimeout time.Duration

	CRDs     []apiextv1.CustomResourceDefinition
	CRDsRead Read

	// KueueDeployments are the Deployments in kueue-system (Kueue's manager,
	// when it runs in the cluster).
	KueueDeployments []appsv1.Deployment
	DeploymentsRead  Read

	// KueueConfig is Kueue's ConfigMap in kueue-system (nil when there is
	// none): the configuration Kueue runs with, and its release label.
	KueueConfig     *corev1.ConfigMap
	KueueConfigRead Read

	// Webhook is the dry-run create of a ResourceFlavor.
	Webhook Read

	Namespaces      []corev1.Namespace
	NamespacesRead  Read
	ClusterQueues   []kueuev1beta2.ClusterQueue
	CQRead          Read
	LocalQueues     []kueuev1beta2.LocalQueue
	LQRead          Read
	Flavors         []kueuev1beta2.ResourceFlavor
	FlavorsRead     Read
	AdmissionChecks []kueuev1beta2.AdmissionCheck
	ACRead          Read
	Cohorts         []kueuev1beta2.Cohort
	CohortsRead     Read
	Topologies      []kueuev1beta2.Topology
	TopologiesRead  Read
	// ProvisioningConfigs and MultiKueueConfigs are the parameters of
	// provisioning and MultiKueue admission checks.
	ProvisioningConfigs     []kueuev1beta2.ProvisioningRequestConfig
	ProvisioningConfigsRead Read
	MultiKueueConfigs       []kueuev1beta2.MultiKueueConfig
	MultiKueueConfigsRead   Read
	// MultiKueueClusters are a MultiKueue manager's workers; Workers what
	// each answered when asked what the manager may do there (only with
	// Options.MultiKueueWorkers).
	MultiKueueClusters     []kueuev1beta2.MultiKueueCluster
	MultiKueueClustersRead Read
	Workers                []WorkerAccess
	// ServiceAccounts are every ServiceAccount of every namespace: those
	// bound to a Google service account are the Workload Identity bindings.
	ServiceAccounts     []corev1.ServiceAccount
	ServiceAccountsRead Read
	Workloads           []kueuev1beta2.Workload
	WorkloadsRead       Read
	// NetworkPolicies are every NetworkPolicy of every namespace: the
	// platform's in team namespaces, and the others there.
	NetworkPolicies     []networkingv1.NetworkPolicy
	NetworkPoliciesRead Read

	// Nodes are the cluster's GPU nodes (those GKE labels with their
	// accelerator); Pods every pod bound to a node, finished ones too (the
	// last one to finish on a node says since when it has been idle);
	// DisruptionBudgets every PodDisruptionBudget (one that allows no
	// disruption keeps the autoscaler from draining a node).
	Nodes                 []corev1.Node
	NodesRead             Read
	Pods                  []corev1.Pod
	PodsRead              Read
	DisruptionBudgets     []policyv1.PodDisruptionBudget
	DisruptionBudgetsRead Read

	// GKECluster is the cluster as GKE's GetCluster returns it, its node
	// pools with it (Pools): one read per cluster.
	GKECluster *containerpb.Cluster
	Pools      []*containerpb.NodePool
	PoolsRead  Read // What is "" when there is no GKE client
	// GCP is what was read of Compute Engine (quotas, the subnetwork).
	GCP GCPSnapshot
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ErrUnreachable is returned (wrapped) when not one Kubernetes read succeeded.
var ErrUnreachable = errors.New("the Kubernetes API server did not answer")

// ErrRefused is returned (wrapped) when the API server answered every
// Kubernetes read with 401 Unauthorized or 403 Forbidden.
var ErrRefused = errors.New("the Kubernetes API server refused every read doctor needs")

// Gather reads the platform: one LIST per kind, one dry-run create, one
// GetCluster (and, with a Compute client, gatherGCP's reads). It reads no Secret, unless opts.MultiKueueWorkers asks it to
// read each MultiKueue worker's kubeconfig Secret and ask the worker
// (gatherWorkers). Each request is bounded by opts.CheckTimeout, all of them
// by ctx. A failed read is recorded in the Snapshot (the checks that need
// it report DOC000); Gather fails only when no Kubernetes read succeeded
// (ErrUnreachable, or ErrRefused when the server refused the credentials).
func Gather(ctx context.Context, src Sources, opts Options) (*Snapshot, error) {
	opts = opts.withDefaults()
	s := &Snapshot{Now: opts.Now(), Cluster: src.Cluster, CheckTimeout: opts.CheckTimeout}
	k := src.Kube
	read := func(what string, f func(ctx context.Context) error) Read {
		rctx, cancel := context.WithTimeout(ctx, opts.CheckTimeout)
		defer cancel()
		start := time.Now()
		err := f(rctx)
		r := Read{What: what, Err: err, Elapsed: time.Since(start)}
		if kube.DeadlineReached(rctx, err) && ctx.Err() == nil {
			r.Err = &TimeoutError{What: what, After: opts.CheckTimeout, Err: err}
		}
		return r
	}
	s.CRDsRead = read("CustomResourceDefinitions", func(ctx context.Context) error {
		l, err := k.Dynamic.Resource(crdGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, u := range l.Items {
			var crd apiextv1.CustomResourceDefinition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd); err != nil {
				return fmt.Errorf("decode CRD %s: %w", u.GetName(), err)
			}
			if strings.HasSuffix(crd.Name, "."+kueuev1beta2.SchemeGroupVersion.Group) || crd.Name == provisioningRequestCRD || otherPolicyKinds[crd.Name] != "" || isFrameworkCRD(crd) {
				s.CRDs = append(s.CRDs, crd)
			}
		}
		return nil
	})
	s.DeploymentsRead = read("Deployments in "+KueueNamespace, func(ctx context.Context) error {
		l, err := k.Core.AppsV1().Deployments(KueueNamespace).List(ctx, metav1.ListOptions{})
		if err == nil {
			s.KueueDeployments = l.Items
		}
		return err
	})
	s.KueueConfigRead = read("ConfigMap "+KueueNamespace+"/"+KueueConfigMap, func(ctx context.Context) error {
		// A LIST selecting the one ConfigMap by name (the RBAC grants list
		// of that name only); none is not an error: Kueue installed another
		// way, or configured otherwise.
		l, err := k.Core.CoreV1().ConfigMaps(KueueNamespace).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + KueueConfigMap})
		if err != nil {
			return err
		}
		for i := range l.Items {
			if l.Items[i].Name == KueueConfigMap {
				s.KueueConfig = &l.Items[i]
			}
		}
		return nil
	})
	s.Webhook = read("Kueue's webhooks", func(ctx context.Context) error {
		probe := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: ProbeFlavor}}
		_, err := k.Kueue.KueueV1beta2().ResourceFlavors().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return probeAnswer(err)
	})
	s.NamespacesRead = read("Namespaces", func(ctx context.Context) error {
		l, err := k.Core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.Namespaces = l.Items
		}
		return err
	})
	q := k.Kueue.KueueV1beta2()
	s.CQRead = read("ClusterQueues", func(ctx context.Context) error {
		l, err := q.ClusterQueues().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.ClusterQueues = l.Items
		}
		return err
	})
	s.LQRead = read("LocalQueues", func(ctx context.Context) error {
		l, err := q.LocalQueues("").List(ctx, metav1.ListOptions{})
		if err == nil {
			s.LocalQueues = l.Items
		}
		return err
	})
	s.FlavorsRead = read("ResourceFlavors", func(ctx context.Context) error {
		l, err := q.ResourceFlavors().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.Flavors = l.Items
		}
		return err
	})
	s.ACRead = read("AdmissionChecks", func(ctx context.Context) error {
		l, err := q.AdmissionChecks().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.AdmissionChecks = l.Items
		}
		return err
	})
	s.CohortsRead = read("Cohorts", func(ctx context.Context) error {
		l, err := q.Cohorts().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.Cohorts = l.Items
		}
		return err
	})
	s.TopologiesRead = read("Topologies", func(ctx context.Context) error {
		l, err := q.Topologies().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.Topologies = l.Items
		}
		return err
	})
	s.ProvisioningConfigsRead = read("ProvisioningRequestConfigs", func(ctx context.Context) error {
		l, err := q.ProvisioningRequestConfigs().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.ProvisioningConfigs = l.Items
		}
		return err
	})
	s.MultiKueueConfigsRead = read("MultiKueueConfigs", func(ctx context.Context) error {
		l, err := q.MultiKueueConfigs().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.MultiKueueConfigs = l.Items
		}
		return err
	})
	s.MultiKueueClustersRead = read("MultiKueueClusters", func(ctx context.Context) error {
		l, err := q.MultiKueueClusters().List(ctx, metav1.ListOptions{})
		if err == nil {
			s.MultiKueueClusters = l.Items
		}
		return err
	})
	if opts.MultiKueueWorkers && s.MultiKueueClustersRead.ok() {
		gatherWorkers(ctx, s, src, opts.CheckTimeout)
	}
	s.ServiceAccountsRead = read("ServiceAccounts", func(ctx context.Context) error {
		l, err := k.Core.CoreV1().ServiceAccounts("").List(ctx, metav1.ListOptions{})
		if err == nil {
			s.ServiceAccounts = l.Items
		}
		return err
	})
	s.WorkloadsRead = read("Workloads", func(ctx context.Context) error {
		l, err := q.Workloads("").List(ctx, metav1.ListOptions{})
		if err == nil {
			s.Workloads = l.Items
		}
		return err
	})
	s.NetworkPoliciesRead = read("NetworkPolicies", func(ctx context.Context) error {
		l, err := k.Core.NetworkingV1().NetworkPolicies("").List(ctx, metav1.ListOptions{})
		if err == nil {
			s.NetworkPolicies = l.Items
		}
		return err
	})
	s.NodesRead = read("GPU Nodes", func(ctx context.Context) error {
		// GKE labels every GPU node with its accelerator: the selector keeps
		// the list to GPU nodes, one request however many CPU nodes there are.
		l, err := k.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: spec.AcceleratorLabel})
		if err == nil {
			s.Nodes = l.Items
		}
		return err
	})
	s.PodsRead = read("Pods bound to nodes", func(ctx context.Context) error {
		// One LIST of every pod bound to a node (a field selector the API
		// server evaluates): a pod cannot be selected by its node's labels,
		// and one request per GPU node would grow with the cluster.
		l, err := k.Core.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
		if err == nil {
			s.Pods = l.Items
		}
		return err
	})
	s.DisruptionBudgetsRead = read("PodDisruptionBudgets", func(ctx context.Context) error {
		l, err := k.Core.PolicyV1().PodDisruptionBudgets("").List(ctx, metav1.ListOptions{})
		if err == nil {
			s.DisruptionBudgets = l.Items
		}
		return err
	})
	if src.GKE != nil && src.Cluster != "" {
		s.PoolsRead = read("GKE cluster "+src.Cluster, func(ctx context.Context) error {
			// GetCluster, not ListNodePools: the cluster's settings
			// (DOC025–DOC028) and its node pools in one read.
			c, err := src.GKE.CM.GetCluster(ctx, &containerpb.GetClusterRequest{Name: src.Cluster})
			if err == nil {
				s.GKECluster, s.Pools = c, c.GetNodePools()
			}
			return err
		})
		gatherGCP(ctx, s, src, opts, read)
	}
	if !s.CRDsRead.ok() && !s.NamespacesRead.ok() && !s.CQRead.ok() && !s.LQRead.ok() {
		err := s.NamespacesRead.Err
		if apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) {
			return s, fmt.Errorf("%w (%s): %w; use credentials that may list Namespaces and Kueue's objects "+
				"(--kubeconfig and --kube-context, or Google credentials for --project, --location, --cluster)", ErrRefused, k.Host, err)
		}
		return s, fmt.Errorf("%w (%s): %w; check that the cluster is up and that --kubeconfig and --kube-context "+
			"(or --project, --location, --cluster) point at it", ErrUnreachable, k.Host, err)
	}
	return s, nil
}

// TimeoutError is a read that did not finish within the check timeout.
type TimeoutError struct {
	What  string
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s did not answer within %s (%v)", e.What, e.After, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// KueueConfiguration is the configuration Kueue runs with, as its ConfigMap
// holds it ("" when doctor found none).
func (s *Snapshot) KueueConfiguration() string {
	if s.KueueConfig == nil {
		return ""
	}
	return s.KueueConfig.Data[KueueConfigMapKey]
}
