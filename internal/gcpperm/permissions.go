// Package gcpperm is the Google Cloud side of the provider's least
// privilege: which IAM permission each RPC the provider makes needs, and the
// predefined roles that hold them. The fake (internal/fakegcp) does not
// enforce IAM, so the table is what is checked: TestAccLeastPrivilege
// (resources/) records every RPC the provider makes through the fake during
// an acceptance run and fails on one the table does not list.
//
// Sources (Google's reference, each method's "Authorization requires the
// following IAM permission"):
//   - GKE: https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions
//     and the method pages under https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/
//     (node pool writes need container.clusters.update on the cluster; there
//     is no container.nodePools.* permission).
//   - IAM: https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts
//     (one page per method).
//   - Roles: https://cloud.google.com/iam/docs/roles-permissions/container and
//     https://cloud.google.com/iam/docs/roles-permissions/iam.
package gcpperm

// RPC is one gRPC method the provider calls and what IAM must allow for it.
type RPC struct {
	Method      string   // full gRPC method name, as the server sees it
	Permissions []string // IAM permissions, on the resource named
	On          string   // the resource the permission is checked on
	Why         string   // what the provider calls it for
}

// Table is every RPC the provider may make to Google Cloud.
var Table = []RPC{
	{Method: "/google.container.v1.ClusterManager/GetCluster", Permissions: []string{"container.clusters.get"}, On: "the cluster",
		Why: "the cluster's endpoint and CA (no kubeconfig), its workload pool"},
	{Method: "/google.container.v1.ClusterManager/ListNodePools", Permissions: []string{"container.clusters.get"}, On: "the cluster",
		Why: "a plan reads every node pool with one list"},
	{Method: "/google.container.v1.ClusterManager/GetNodePool", Permissions: []string{"container.clusters.get"}, On: "the cluster",
		Why: "reads of one pool, after a write"},
	{Method: "/google.container.v1.ClusterManager/CreateNodePool", Permissions: []string{"container.clusters.update"}, On: "the cluster",
		Why: "mlplatform_gpu_pool create"},
	{Method: "/google.container.v1.ClusterManager/UpdateNodePool", Permissions: []string{"container.clusters.update"}, On: "the cluster",
		Why: "mlplatform_gpu_pool update (labels, taints, ...; one field per request)"},
	{Method: "/google.container.v1.ClusterManager/SetNodePoolAutoscaling", Permissions: []string{"container.clusters.update"}, On: "the cluster",
		Why: "mlplatform_gpu_pool autoscaling"},
	{Method: "/google.container.v1.ClusterManager/SetNodePoolSize", Permissions: []string{"container.clusters.update"}, On: "the cluster",
		Why: "mlplatform_gpu_pool size without autoscaling"},
	{Method: "/google.container.v1.ClusterManager/DeleteNodePool", Permissions: []string{"container.clusters.update"}, On: "the cluster",
		Why: "mlplatform_gpu_pool destroy"},
	{Method: "/google.container.v1.ClusterManager/GetOperation", Permissions: []string{"container.operations.get"}, On: "the project",
		Why: "waiting for a node pool operation"},
	{Method: "/google.iam.admin.v1.IAM/ListServiceAccounts", Permissions: []string{"iam.serviceAccounts.list"}, On: "the project",
		Why: "a plan reads the project's service accounts with one list"},
	{Method: "/google.iam.admin.v1.IAM/GetServiceAccount", Permissions: []string{"iam.serviceAccounts.get"}, On: "the service account",
		Why: "mlplatform_workload_identity reads its Google service account"},
	{Method: "/google.iam.admin.v1.IAM/CreateServiceAccount", Permissions: []string{"iam.serviceAccounts.create"}, On: "the project",
		Why: "create_google_service_account"},
	{Method: "/google.iam.admin.v1.IAM/PatchServiceAccount", Permissions: []string{"iam.serviceAccounts.update"}, On: "the service account",
		Why: "the service account's description (the provider's marker)"},
	{Method: "/google.iam.admin.v1.IAM/DeleteServiceAccount", Permissions: []string{"iam.serviceAccounts.delete"}, On: "the service account",
		Why: "destroy of a service account the provider created"},
	{Method: "/google.iam.admin.v1.IAM/GetIamPolicy", Permissions: []string{"iam.serviceAccounts.getIamPolicy"}, On: "the service account",
		Why: "the Workload Identity binding (roles/iam.workloadIdentityUser) of the team's Kubernetes service account"},
	{Method: "/google.iam.admin.v1.IAM/SetIamPolicy", Permissions: []string{"iam.serviceAccounts.setIamPolicy"}, On: "the service account",
		Why: "adds or removes only that binding, with the policy's etag"},
}

// Role is a predefined role that holds some of the permissions.
type Role struct {
	Name, Title string
	Covers      []string // the permissions of Table it holds
	Note        string
}

// Roles are the predefined roles that together hold every permission of
// Table (from Google's roles reference, see the package comment), the
// narrowest that do: roles/container.developer and roles/container.viewer
// lack container.clusters.update, so they cannot write node pools.
var Roles = []Role{
	{Name: "roles/container.clusterAdmin", Title: "Kubernetes Engine Cluster Admin",
		Covers: []string{"container.clusters.get", "container.clusters.update", "container.operations.get"},
		Note: "Management of clusters and node pools, but no access to Kubernetes API objects (the provider's Kubernetes " +
			"access is RBAC: internal/rbac). A pool with a node service_account of its own also needs " +
			"roles/iam.serviceAccountUser (iam.serviceAccounts.actAs) on that account."},
	{Name: "roles/iam.serviceAccountAdmin", Title: "Service Account Admin",
		Covers: []string{"iam.serviceAccounts.list", "iam.serviceAccounts.get", "iam.serviceAccounts.create",
			"iam.serviceAccounts.update", "iam.serviceAccounts.delete", "iam.serviceAccounts.getIamPolicy", "iam.serviceAccounts.setIamPolicy"},
		Note: "Only for mlplatform_workload_identity. Grant it on the project, or, with service accounts you create yourself, " +
			"without create and delete on each account (a custom role of the other permissions)."},
}

// Permissions are the distinct permissions of Table, in table order: a
// custom role's permission list.
func Permissions() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range Table {
		for _, p := range r.Permissions {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Lookup is the table's entry for a full gRPC method name.
func Lookup(method string) (RPC, bool) {
	for _, r := range Table {
		if r.Method == method {
			return r, true
		}
	}
	return RPC{}, false
}
