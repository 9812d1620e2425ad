package doctor

import _ "embed" // the RBAC manifest

// RBAC is the read-only access doctor needs, as Kubernetes manifests: a
// ClusterRole to list each kind it reads, a Role to list Kueue's
// Deployments and its ConfigMap in kueue-system, and bindings to a placeholder user
// (`mlplatform doctor --rbac`; the checks guide shows it). It grants no
// Secret: --multikueue-workers needs get on the workers' kubeconfig
// Secrets, which the manifest leaves to the user to grant by name.
//
//go:embed doctor-rbac.yaml
var RBAC string
