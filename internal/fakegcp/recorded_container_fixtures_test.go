package fakegcp_test

// Fixture tables for recorded_container_test.go. Every value here was taken
// from real GKE traffic recorded by Config Connector's tests, in the public
// repository GoogleCloudPlatform/k8s-config-connector, under
// pkg/test/resourcefixture/testdata/basic/container/v1beta1/containernodepool/
// (the _http.log files: real traffic, not their mock). The logs are not
// vendored: these are our own tables, with the recorded names replaced by
// ours (project my-proj, zone us-central1-a, cluster cluster-sample, pool
// nodepool-sample), integer enums written by name, and only the fields the
// fake is asked to reproduce. Fields that must differ are listed once, in
// gkeRecordedIgnored (recorded_container_test.go).

const (
	recRoot    = "containernodepool/_http.log"                           // v1beta1, Terraform-based controller
	recKubelet = "containernodepool-kubeletconfig/_http.log"             // v1, direct controller
	recQueued  = "containernodepool-queuedprovisioning/_http.log"        // v1, direct controller, newest GKE fields
	recTaint   = "containernodepoolremovetaint/_http.log"                // v1, direct controller, GKE 1.30.5
	recRootNew = "containernodepool/_http.log"                           // v1beta1, newer layout of recRoot, GKE 1.30.5
	recSubnet  = "containernodepool-subnetworkref/_http.log"             // v1beta1, Terraform-based controller (stored version 2411ad0c), GKE 1.30.5
	recAMF     = "containernodepool-advanced-machine-features/_http.log" // v1beta1, Terraform-based controller (stored version 1892c90d), GKE 1.30.5
	recPrefix  = "pkg/test/resourcefixture/testdata/basic/container/v1beta1/containernodepool/"
	recCluster = "projects/my-proj/locations/us-central1-a/clusters/cluster-sample"
	recPool    = recCluster + "/nodePools/nodepool-sample"
)

// Requests, as the recorded JSON bodies (adapted names only).
const (
	// recKubelet: POST .../clusters (the cluster the pools live in), reduced
	// to what the fake needs: name, initial node count, the default pool's
	// scopes.
	reqCreateCluster = `{"parent": "projects/my-proj/locations/us-central1-a", "cluster": {
		"name": "cluster-sample", "initialNodeCount": 1,
		"nodeConfig": {"oauthScopes": [
			"https://www.googleapis.com/auth/devstorage.read_only",
			"https://www.googleapis.com/auth/logging.write",
			"https://www.googleapis.com/auth/monitoring",
			"https://www.googleapis.com/auth/service.management.readonly",
			"https://www.googleapis.com/auth/servicecontrol",
			"https://www.googleapis.com/auth/trace.append"]}}}`

	// recKubelet: POST .../nodePools.
	reqCreateKubeletPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample", "initialNodeCount": 1,
		"config": {"kubeletConfig": {
			"cpuCfsQuota": true, "cpuCfsQuotaPeriod": "100ms", "cpuManagerPolicy": "none",
			"imageGcHighThresholdPercent": 70, "imageGcLowThresholdPercent": 50,
			"imageMaximumGcAge": "1h0m0s", "imageMinimumGcAge": "1m0s", "podPidsLimit": "1024"}}}}`

	// recKubelet: PUT .../nodePools/nodepool-sample (one field group).
	reqUpdateKubelet = `{"name": "` + recPool + `", "kubeletConfig": {
		"cpuCfsQuota": true, "cpuCfsQuotaPeriod": "100ms", "cpuManagerPolicy": "none",
		"imageGcHighThresholdPercent": 80, "imageGcLowThresholdPercent": 60,
		"imageMaximumGcAge": "2h0m0s", "imageMinimumGcAge": "2m0s", "podPidsLimit": "2048"}}`

	// recQueued: POST .../nodePools.
	reqCreateQueuedPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample",
		"autoscaling": {"enabled": true, "maxNodeCount": 3},
		"config": {"reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}},
		"queuedProvisioning": {"enabled": true}}}`

	// recQueued: POST .../nodePools/nodepool-sample:setSize.
	reqResizeQueued = `{"name": "` + recPool + `", "nodeCount": 2}`

	// recRoot: POST .../nodePools (v1beta1; the same body is valid v1).
	reqCreateAutoscaledPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample",
		"autoscaling": {"enabled": true, "maxNodeCount": 3, "minNodeCount": 1},
		"config": {"oauthScopes": [
			"https://www.googleapis.com/auth/devstorage.read_only",
			"https://www.googleapis.com/auth/logging.write",
			"https://www.googleapis.com/auth/monitoring",
			"https://www.googleapis.com/auth/service.management.readonly",
			"https://www.googleapis.com/auth/servicecontrol",
			"https://www.googleapis.com/auth/trace.append"]}}}`

	// recRoot: PUT .../clusters/cluster-sample with update.desiredNodePoolId
	// and update.desiredNodePoolAutoscaling (how the Terraform-based
	// controller sets autoscaling). The provider calls SetNodePoolAutoscaling
	// instead; the autoscaling body is the recorded one.
	reqSetAutoscaling = `{"name": "` + recPool + `", "autoscaling": {"enabled": true, "maxNodeCount": 5, "minNodeCount": 1}}`

	// recTaint: POST .../nodePools: an autoscaled pool with two
	// NO_SCHEDULE taints.
	reqCreateTaintedPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample",
		"autoscaling": {"enabled": true, "maxNodeCount": 3, "minNodeCount": 1},
		"config": {"taints": [
			{"effect": "NO_SCHEDULE", "key": "taintA", "value": "anythingA"},
			{"effect": "NO_SCHEDULE", "key": "taintB", "value": "anythingB"}]}}}`

	// recTaint: PUT .../nodePools/nodepool-sample with the taints field
	// group: the whole list the pool is to have (taintB removed).
	reqUpdateTaints = `{"name": "` + recPool + `", "taints": {"taints": [
		{"effect": "NO_SCHEDULE", "key": "taintA", "value": "anythingA"}]}}`

	// recSubnet: POST .../nodePools: a one-node pool. The recorded pool also
	// named the test's own subnetwork (networkConfig.subnetwork), left out
	// here: the provider does not set it and the fake has only default.
	reqCreateSubnetPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample", "initialNodeCount": 1}}`

	// recSubnet: POST .../nodePools/nodepool-sample:setSize (update.yaml
	// sets nodeCount 2); the same body as gke.Client.SetNodePoolSize sends.
	reqResizeSubnet = `{"name": "` + recPool + `", "nodeCount": 2}`

	// recAMF: POST .../nodePools, as create.yaml and the GET that follows
	// give it: autoscaled 1..3, an n4-standard-2 machine, one taint. (The
	// recorded pool also had advancedMachineFeatures, which the provider
	// does not send; left out.)
	reqCreateAMFPool = `{"parent": "` + recCluster + `", "nodePool": {
		"name": "nodepool-sample", "initialNodeCount": 1,
		"autoscaling": {"enabled": true, "maxNodeCount": 3, "minNodeCount": 1},
		"config": {"machineType": "n4-standard-2", "taints": [
			{"effect": "NO_SCHEDULE", "key": "originalKey", "value": "originalValue"}]}}}`

	// recAMF: PUT .../clusters/cluster-sample with desiredNodePoolAutoscaling
	// (enabled, max 5, min 1, totalMinNodeCount 0), as in recRoot; sent
	// here the provider's way, SetNodePoolAutoscaling.
	reqSetAutoscalingAMF = `{"name": "` + recPool + `", "autoscaling": {"enabled": true, "maxNodeCount": 5, "minNodeCount": 1}}`

	// recAMF: PUT .../nodePools/nodepool-sample with the taints field
	// group (the recorded body names the pool by its short name; ours by
	// the full name, as the v1 API and the provider do).
	reqUpdateAMFTaints = `{"name": "` + recPool + `", "taints": {"taints": [
		{"effect": "NO_SCHEDULE", "key": "newKey", "value": "newValue"}]}}`
)

// Responses, as recorded (adapted names only).
const (
	// recKubelet: the POST .../clusters response.
	respCreateClusterOp = `{"name": "operation-x", "operationType": "CREATE_CLUSTER", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recKubelet: GET .../operations/ID once the cluster was created.
	respClusterOpDone = `{"name": "operation-x", "operationType": "CREATE_CLUSTER", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a",
		"progress": {"metrics": [{"name": "CLUSTER_CONFIGURING", "intValue": "8"}]}}`

	// recQueued: GET .../nodePools/nodepool-sample before it exists. (The
	// older recKubelet recorded `nodePool "<full name>" not found`; the
	// newer recQueued is the one reproduced.)
	respPoolNotFound = `{"code": 404, "status": "NOT_FOUND",
		"message": "Not found: node pool \"nodepool-sample\" not found."}`

	// recKubelet: POST .../nodePools response (and recQueued, recRoot: the
	// same shape; recQueued recorded status PENDING).
	respCreatePoolOp = `{"name": "operation-x", "operationType": "CREATE_NODE_POOL", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recKubelet: PUT .../nodePools/nodepool-sample (kubelet_config) response.
	respUpdateKubeletOp = `{"name": "operation-x", "operationType": "UPGRADE_NODES", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recKubelet, recQueued: DELETE .../nodePools/nodepool-sample response.
	respDeletePoolOp = `{"name": "operation-x", "operationType": "DELETE_NODE_POOL", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recRoot: the PUT .../clusters (desiredNodePoolAutoscaling) response.
	respSetAutoscalingOp = `{"name": "operation-x", "operationType": "UPDATE_CLUSTER", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recTaint: the PUT .../nodePools/nodepool-sample (taints) response:
	// UPGRADE_NODES, as for kubelet_config; recRootNew records the same
	// type for its taints update (status PENDING there). Only the older
	// containernodepool-removetaint/_http.log (v1beta1) has no
	// operationType at all on that update; the fake follows the others.
	respUpdateTaintsOp = `{"name": "operation-x", "operationType": "UPGRADE_NODES", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`

	// recRootNew: GET .../operations/ID of the autoscaling update (PUT
	// .../clusters/cluster-sample, desiredNodePoolAutoscaling) once DONE.
	respSetAutoscalingOpDone = `{"name": "operation-x", "operationType": "UPDATE_CLUSTER", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a",
		"progress": {"metrics": [{"name": "NODES_TOTAL", "intValue": "0"}]}}`

	// recRootNew: GET .../operations/ID of the taints update once DONE.
	respUpdateTaintsOpDone = `{"name": "operation-x", "operationType": "UPGRADE_NODES", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a",
		"progress": {"metrics": [{"name": "NODES_TOTAL", "intValue": "0"}]}}`

	// recSubnet: the :setSize response and its GetOperation once DONE:
	// no operationType at all (nor progress), in both.
	respResizeSubnetOp = `{"name": "operation-x", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`
	respResizeSubnetOpDone = `{"name": "operation-x", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a"}`

	// recAMF: GetOperation of the autoscaling update (PUT .../clusters)
	// once DONE: UPDATE_CLUSTER, no progress recorded.
	respSetAutoscalingOpDoneAMF = `{"name": "operation-x", "operationType": "UPDATE_CLUSTER", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a"}`

	// recAMF: the taints PUT response and its GetOperation once DONE: no
	// operationType (as in containernodepool-removetaint, also v1beta1;
	// recTaint and recRootNew record UPGRADE_NODES for the same group).
	respUpdateAMFTaintsOp = `{"name": "operation-x", "status": "RUNNING",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "zone": "us-central1-a"}`
	respUpdateAMFTaintsOpDone = `{"name": "operation-x", "status": "DONE",
		"selfLink": "x", "targetLink": "x", "startTime": "x", "endTime": "x", "zone": "us-central1-a"}`

	// recQueued: the :setSize response on a queued-provisioning pool.
	respResizeQueued = `{"code": 400, "status": "INVALID_ARGUMENT",
		"message": "Manual resizing of queued provisioning node pool (nodepool-sample) to a value other than 0 is not allowed."}`
)

// recConfigDefaults is the node config GKE reports for a pool created
// without machine type, disk or scopes (recKubelet and recQueued agree),
// with %s for the kubelet_config the pool has.
const recConfigDefaults = `
	"bootDisk": {"diskType": "pd-balanced", "sizeGb": "100"},
	"diskSizeGb": 100, "diskType": "pd-balanced",
	"effectiveCgroupMode": "EFFECTIVE_CGROUP_MODE_V2",
	"imageType": "COS_CONTAINERD",
	"machineType": "e2-medium",
	"metadata": {"disable-legacy-endpoints": "true"},
	"oauthScopes": [
		"https://www.googleapis.com/auth/devstorage.read_only",
		"https://www.googleapis.com/auth/logging.write",
		"https://www.googleapis.com/auth/monitoring",
		"https://www.googleapis.com/auth/service.management.readonly",
		"https://www.googleapis.com/auth/servicecontrol",
		"https://www.googleapis.com/auth/trace.append"],
	"resourceLabels": {"goog-gke-node-pool-provisioning-model": "on-demand"},
	"serviceAccount": "default",
	"shieldedInstanceConfig": {"enableIntegrityMonitoring": true},
	"windowsNodeConfig": {}`

// recPoolServerFields is what GKE adds to every pool in a zonal cluster in
// us-central1-a (recKubelet, recQueued).
const recPoolServerFields = `
	"locations": ["us-central1-a"],
	"management": {"autoRepair": true, "autoUpgrade": true},
	"maxPodsConstraint": {"maxPodsPerNode": "110"},
	"networkConfig": {
		"networkTierConfig": {"networkTier": "NETWORK_TIER_DEFAULT"},
		"podIpv4CidrBlock": "x", "podIpv4RangeUtilization": 0.001, "podRange": "x",
		"subnetwork": "projects/my-proj/regions/us-central1/subnetworks/default"},
	"podIpv4CidrSize": 24,
	"instanceGroupUrls": ["x"], "selfLink": "x", "etag": "x", "version": "x",
	"status": "RUNNING"`

var (
	// recKubelet: the cluster's default-pool as listed in GET .../clusters.
	respDefaultPool = `{"name": "default-pool", "initialNodeCount": 1,
		"config": {` + recConfigDefaults + `,
			"kubeletConfig": {"insecureKubeletReadonlyPortEnabled": false, "maxParallelImagePulls": 2}},
		"upgradeSettings": {"maxSurge": 1, "strategy": "SURGE"},` + recPoolServerFields + `}`

	// recKubelet: GET .../nodePools/nodepool-sample after CREATE_NODE_POOL.
	respKubeletPool = `{"name": "nodepool-sample",
		"config": {` + recConfigDefaults + `,
			"kubeletConfig": {"cpuCfsQuota": true, "cpuCfsQuotaPeriod": "100ms", "cpuManagerPolicy": "none",
				"imageGcHighThresholdPercent": 70, "imageGcLowThresholdPercent": 50,
				"imageMaximumGcAge": "1h0m0s", "imageMinimumGcAge": "1m0s",
				"insecureKubeletReadonlyPortEnabled": false, "maxParallelImagePulls": 3, "podPidsLimit": "1024"}},
		"upgradeSettings": {"maxSurge": 1, "strategy": "SURGE"},` + recPoolServerFields + `}`

	// recKubelet: GET .../nodePools/nodepool-sample after UPGRADE_NODES.
	respKubeletPoolUpdated = `{"name": "nodepool-sample",
		"config": {` + recConfigDefaults + `,
			"kubeletConfig": {"cpuCfsQuota": true, "cpuCfsQuotaPeriod": "100ms", "cpuManagerPolicy": "none",
				"imageGcHighThresholdPercent": 80, "imageGcLowThresholdPercent": 60,
				"imageMaximumGcAge": "2h0m0s", "imageMinimumGcAge": "2m0s",
				"insecureKubeletReadonlyPortEnabled": false, "maxParallelImagePulls": 3, "podPidsLimit": "2048"}},
		"upgradeSettings": {"maxSurge": 1, "strategy": "SURGE"},` + recPoolServerFields + `}`

	// recQueued: GET .../nodePools/nodepool-sample after CREATE_NODE_POOL:
	// autoscaler location policy ANY, the gke-queued taint, SHORT_LIVED
	// upgrades, "on-demand" without flex_start.
	respQueuedPool = `{"name": "nodepool-sample",
		"autoscaling": {"enabled": true, "locationPolicy": "ANY", "maxNodeCount": 3},
		"config": {` + recConfigDefaults + `,
			"kubeletConfig": {"insecureKubeletReadonlyPortEnabled": false, "maxParallelImagePulls": 2},
			"reservationAffinity": {"consumeReservationType": "NO_RESERVATION"},
			"taints": [{"effect": "NO_SCHEDULE", "key": "cloud.google.com/gke-queued", "value": "true"}],
			"nodeImageConfig": {"image": "x", "imageProject": "gke-node-images"}},
		"kubeletCertInfo": {"tpmBootstrapCertExpireTime": "x"},
		"queuedProvisioning": {"enabled": true},
		"upgradeSettings": {"strategy": "SHORT_LIVED"},` + recPoolServerFields + `}`

	// recRoot: the autoscaling of GET .../nodePools/nodepool-sample, after
	// CREATE_NODE_POOL and after the autoscaling update. Only this part is
	// compared: that recording's normaliser left out server-owned fields
	// (selfLink, version, locations, instanceGroupUrls) the newer
	// recordings have.
	respRootAutoscalingCreated = `{"enabled": true, "maxNodeCount": 3, "minNodeCount": 1}`
	respRootAutoscalingUpdated = `{"enabled": true, "maxNodeCount": 5, "minNodeCount": 1}`

	// recTaint: GET .../nodePools/nodepool-sample after CREATE_NODE_POOL
	// (%s: the taints) and after the taints update: the update replaces
	// the list (taintB gone, also in containernodepool-removetaint), it does
	// not merge. An autoscaled pool reads back location policy BALANCED.
	respTaintPool = `{"name": "nodepool-sample",
		"autoscaling": {"enabled": true, "locationPolicy": "BALANCED", "maxNodeCount": 3, "minNodeCount": 1},
		"config": {` + recConfigDefaults + `,
			"kubeletConfig": {"insecureKubeletReadonlyPortEnabled": false, "maxParallelImagePulls": 2},
			"nodeImageConfig": {"image": "x", "imageProject": "gke-node-images"},
			"taints": [%s]},
		"kubeletCertInfo": {"tpmBootstrapCertExpireTime": "x"},
		"upgradeSettings": {"maxSurge": 1, "strategy": "SURGE"},` + recPoolServerFields + `}`
	recTaintA = `{"effect": "NO_SCHEDULE", "key": "taintA", "value": "anythingA"}`
	recTaintB = `{"effect": "NO_SCHEDULE", "key": "taintB", "value": "anythingB"}`

	// recSubnet: initialNodeCount of GET .../nodePools/nodepool-sample after
	// CREATE_NODE_POOL and after the :setSize to 2 (DONE): GKE reports the
	// new size as initialNodeCount. Only this field is compared (the
	// recording's pool has no locations and networkConfig.enablePrivateNodes
	// false; the rest is recKubelet's shape).
	respSubnetPoolCreated = `{"initialNodeCount": 1}`
	respSubnetPoolResized = `{"initialNodeCount": 2}`

	// recAMF: the compared part of GET .../nodePools/nodepool-sample (see
	// amfView) after CREATE_NODE_POOL and after both updates. An
	// n4-standard-2 pool defaults to hyperdisk-balanced boot disks; the
	// autoscaling has no locationPolicy in this recording.
	respAMFPool = `{"initialNodeCount": 1,
		"autoscaling": {"enabled": true, "maxNodeCount": %d, "minNodeCount": 1},
		"config": {"machineType": "n4-standard-2",
			"bootDisk": {"diskType": "hyperdisk-balanced", "sizeGb": "100"},
			"diskSizeGb": 100, "diskType": "hyperdisk-balanced",
			"taints": [%s]}}`
	recAMFTaintOld = `{"effect": "NO_SCHEDULE", "key": "originalKey", "value": "originalValue"}`
	recAMFTaintNew = `{"effect": "NO_SCHEDULE", "key": "newKey", "value": "newValue"}`
)
