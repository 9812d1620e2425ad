// Package doctor checks the live platform: the Kueue installation, the
// Kueue objects' conditions, the flavors against the GKE node pools that
// back them, and workloads that wait too long. It reads each kind with one
// LIST (one ListNodePools for GKE), whatever the platform's size, and says
// what it finds in plain words, with what to do.
//
// Gather does the reads (Snapshot); Analyze turns a Snapshot into findings
// and is pure, so every check is unit-tested on a Snapshot built by hand.
// Command is `mlplatform doctor`.
package doctor
