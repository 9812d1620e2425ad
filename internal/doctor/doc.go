// Package doctor checks the live platform: the Kueue installation, the
// Kueue objects' conditions, the flavors against the GKE node pools that
// back them, and workloads that wait too long. It reads each kind with one
// LIST (one GetCluster for GKE; for Compute Engine one regions.get per
// region of the GPU pools, one projects.get per project, one
// subnetworks.get), whatever the platform's size, and says
// what it finds in plain words, with what to do.
//
// Gather does the reads (Snapshot); Analyze turns a Snapshot into findings
// and is pure, so every check is unit-tested on a Snapshot built by hand.
// Command is `mlplatform doctor`.
package doctor
