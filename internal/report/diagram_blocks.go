package report

import "fmt"

// diagramBlocks is the diagram's section of the Markdown report.
func diagramBlocks(r Report) []any {
	if r.Diagram == "" {
		return nil
	}
	return []any{mermaid{heading{2, "Platform diagram"}, r.Diagram}}
}

// diagramHowTo says how to read the diagram, in the Markdown report only.
func diagramHowTo(r Report) []string {
	if r.Diagram == "" {
		return nil
	}
	return []string{mdOnly + "Platform diagram: team namespace → LocalQueue → ClusterQueue → flavor → pool, after the plan, each cohort's " +
		"ClusterQueues in a box (and each cluster in one when the plan has several). A ClusterQueue → flavor edge carries its nominal " +
		gpuResource + " quota, a flavor → pool edge what the pool provides (max_nodes × allocatable_gpus_per_node) for each pool the flavor stands for; " +
		"a dotted edge: whether the flavor stands for the pool is " + unknownText + ". What the plan changes is orange (a → b on a thick edge), " +
		"new objects green, removed ones grey and dashed, an object another names that is not in the plan red and dashed, the objects of a check finding red. " +
		fmt.Sprintf("Folding: a cohort with more than %d ClusterQueues draws its unchanged ones, which no finding names, as one node \"N ClusterQueues\", "+
			"with their LocalQueues and team namespaces as \"N LocalQueues\" and \"N team namespaces\"; its edges carry the sum (Σ) of their quota. "+
			"When more than %d changed ClusterQueues remain, they fold alike into \"N ClusterQueues (changed)\". A ClusterQueue fed by more than %d team namespaces "+
			"folds them the same way. An object a finding names is never folded.", foldAbove, foldAbove, foldAbove)}
}
