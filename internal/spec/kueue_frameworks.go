package spec

import "slices"

// KueueFramework is one of Kueue's built-in job integrations: the name
// Kueue's configuration lists in integrations.frameworks, and the API of the
// kind it manages (empty Group for the core and pod-based integrations).
type KueueFramework struct {
	Name     string // integrations.frameworks entry, e.g. "jobset.x-k8s.io/jobset"
	Group    string // API group of the managed kind, e.g. "jobset.x-k8s.io"
	Resource string // its resource, e.g. "jobsets"
	Kind     string // its kind, e.g. "JobSet"
	// Installed is true for kinds that come with a controller installed
	// beside Kueue (JobSet, Kubeflow, Ray, ...), false for the built-in
	// Kubernetes kinds (Job, Pod, Deployment, StatefulSet).
	Installed bool
	// MultiKueue is true when Kueue has a MultiKueue adapter for the
	// kind, so a manager dispatches it to workers (Kueue v0.19
	// pkg/controller/jobs/*: MultiKueueAdapter in RegisterIntegration).
	MultiKueue bool
}

// KueueFrameworks are the integrations Kueue v0.19 registers
// (pkg/controller/jobs/*/..._controller.go FrameworkName; a test reads them
// from the pinned Kueue's source), in the order of Kueue's Helm chart.
var KueueFrameworks = []KueueFramework{
	{Name: "batch/job", Group: "batch", Resource: "jobs", Kind: "Job", MultiKueue: true},
	{Name: "kubeflow.org/mpijob", Group: "kubeflow.org", Resource: "mpijobs", Kind: "MPIJob", Installed: true, MultiKueue: true},
	{Name: "ray.io/rayjob", Group: "ray.io", Resource: "rayjobs", Kind: "RayJob", Installed: true, MultiKueue: true},
	{Name: "ray.io/rayservice", Group: "ray.io", Resource: "rayservices", Kind: "RayService", Installed: true, MultiKueue: true},
	{Name: "ray.io/raycluster", Group: "ray.io", Resource: "rayclusters", Kind: "RayCluster", Installed: true, MultiKueue: true},
	{Name: "jobset.x-k8s.io/jobset", Group: "jobset.x-k8s.io", Resource: "jobsets", Kind: "JobSet", Installed: true, MultiKueue: true},
	{Name: "kubeflow.org/paddlejob", Group: "kubeflow.org", Resource: "paddlejobs", Kind: "PaddleJob", Installed: true, MultiKueue: true},
	{Name: "kubeflow.org/pytorchjob", Group: "kubeflow.org", Resource: "pytorchjobs", Kind: "PyTorchJob", Installed: true, MultiKueue: true},
	{Name: "kubeflow.org/tfjob", Group: "kubeflow.org", Resource: "tfjobs", Kind: "TFJob", Installed: true, MultiKueue: true},
	{Name: "kubeflow.org/xgboostjob", Group: "kubeflow.org", Resource: "xgboostjobs", Kind: "XGBoostJob", Installed: true, MultiKueue: true},
	{Name: "kubeflow.org/jaxjob", Group: "kubeflow.org", Resource: "jaxjobs", Kind: "JAXJob", Installed: true, MultiKueue: true},
	{Name: "workload.codeflare.dev/appwrapper", Group: "workload.codeflare.dev", Resource: "appwrappers", Kind: "AppWrapper", Installed: true, MultiKueue: true},
	{Name: "trainer.kubeflow.org/trainjob", Group: "trainer.kubeflow.org", Resource: "trainjobs", Kind: "TrainJob", Installed: true, MultiKueue: true},
	{Name: "sparkoperator.k8s.io/sparkapplication", Group: "sparkoperator.k8s.io", Resource: "sparkapplications", Kind: "SparkApplication", Installed: true},
	{Name: "pod", Group: "", Resource: "pods", Kind: "Pod", MultiKueue: true},
	{Name: "deployment", Group: "apps", Resource: "deployments", Kind: "Deployment"},
	{Name: "statefulset", Group: "apps", Resource: "statefulsets", Kind: "StatefulSet", MultiKueue: true},
	{Name: "leaderworkerset.x-k8s.io/leaderworkerset", Group: "leaderworkerset.x-k8s.io", Resource: "leaderworkersets", Kind: "LeaderWorkerSet", Installed: true, MultiKueue: true},
}

// KueueFrameworkNames are the names of KueueFrameworks, in order.
func KueueFrameworkNames() []string {
	names := make([]string, len(KueueFrameworks))
	for i, f := range KueueFrameworks {
		names[i] = f.Name
	}
	return names
}

// LookupKueueFramework finds a built-in integration by name.
func LookupKueueFramework(name string) (KueueFramework, bool) {
	i := slices.IndexFunc(KueueFrameworks, func(f KueueFramework) bool { return f.Name == name })
	if i < 0 {
		return KueueFramework{}, false
	}
	return KueueFrameworks[i], true
}
