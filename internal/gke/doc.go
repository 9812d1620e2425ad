// Package gke talks to GKE's ClusterManager API through the official gRPC client: cached reads, and
// node-pool mutations serialized per cluster, retried while GKE is busy and waited for until done.
package gke
