// Package reconcile makes the cluster and the cloud match the platform's
// spec, one kind at a time, through the one Reconciler contract (contract.go).
// It knows nothing of Terraform: its errors state facts, and callers word them.
package reconcile
