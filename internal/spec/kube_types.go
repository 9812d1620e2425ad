package spec

import (
	"slices"
	"sort"
	"strings"
)

// Taint is a node taint (Kubernetes core/v1 Taint without timeAdded).
type Taint struct {
	Key    string
	Value  string
	Effect string // NoSchedule | PreferNoSchedule | NoExecute
}

// Toleration is a pod toleration (Kubernetes core/v1 Toleration).
type Toleration struct {
	Key               string
	Operator          string // Equal (default) | Exists
	Value             string
	Effect            string // "" (all) | NoSchedule | PreferNoSchedule | NoExecute
	TolerationSeconds *int64
}

// TaintEffects are the effects a taint may have.
var TaintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// TolerationOperators are the operators a toleration may use.
var TolerationOperators = []string{"Equal", "Exists"}

// maxFlavorItems is Kueue's limit on a ResourceFlavor's labels, taints and tolerations.
const maxFlavorItems = 8

func validateLabels(errs *FieldErrors, path Path, labels map[string]string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p := QualifiedNameProblem(k); p != "" {
			errs.add(append(slices.Clone(path), Key(k)), "Invalid Label Key", "label key %q is not valid: %s.", k, p)
		} else if p := LabelValueProblem(labels[k]); p != "" {
			errs.add(append(slices.Clone(path), Key(k)), "Invalid Label Value", "label %q has value %q, which is not valid: %s.", k, labels[k], p)
		}
	}
}

func validateTaints(errs *FieldErrors, path Path, taints []Taint) {
	for i, t := range taints {
		p := append(slices.Clone(path), i)
		if problem := QualifiedNameProblem(t.Key); problem != "" {
			errs.add(append(slices.Clone(p), "key"), "Invalid Taint Key", "taint key %q is not valid: %s.", t.Key, problem)
		}
		if problem := LabelValueProblem(t.Value); problem != "" {
			errs.add(append(slices.Clone(p), "value"), "Invalid Taint Value", "taint value %q is not valid: %s.", t.Value, problem)
		}
		if !slices.Contains(TaintEffects, t.Effect) {
			errs.add(append(p, "effect"), "Invalid Taint Effect", "taint effect %q is not one of %s.", t.Effect, strings.Join(TaintEffects, ", "))
		}
	}
}

func validateTolerations(errs *FieldErrors, path Path, tols []Toleration) {
	for i, t := range tols {
		p := append(slices.Clone(path), i)
		if t.Key != "" {
			if problem := QualifiedNameProblem(t.Key); problem != "" {
				errs.add(append(slices.Clone(p), "key"), "Invalid Toleration Key", "toleration key %q is not valid: %s.", t.Key, problem)
			}
		}
		op := t.Operator
		if op == "" {
			op = "Equal"
		}
		switch {
		case !slices.Contains(TolerationOperators, op):
			errs.add(append(p, "operator"), "Invalid Toleration Operator", "operator %q is not one of Equal, Exists.", t.Operator)
		case t.Key == "" && op != "Exists":
			errs.add(append(p, "operator"), "Toleration Without Key Must Use Exists",
				"a toleration with an empty key matches every taint, which needs operator = \"Exists\"; set a key or use Exists.")
		case op == "Exists" && t.Value != "":
			errs.add(append(p, "value"), "Toleration Value With Exists",
				"operator Exists matches any value, so value must be empty (it is %q); remove value or use operator Equal.", t.Value)
		case op == "Equal" && t.Value != "":
			if problem := LabelValueProblem(t.Value); problem != "" {
				errs.add(append(slices.Clone(p), "value"), "Invalid Toleration Value", "toleration value %q is not valid: %s.", t.Value, problem)
			}
		}
		if t.Effect != "" && !slices.Contains(TaintEffects, t.Effect) {
			errs.add(append(p, "effect"), "Invalid Toleration Effect", "effect %q is not one of %s (or empty for all).", t.Effect, strings.Join(TaintEffects, ", "))
		}
		if t.TolerationSeconds != nil && t.Effect != "NoExecute" {
			errs.add(append(p, "toleration_seconds"), "Toleration Seconds Need NoExecute",
				"toleration_seconds only applies to effect NoExecute (effect is %q); remove it or set effect = \"NoExecute\".", t.Effect)
		}
	}
}

func tooMany(errs *FieldErrors, path Path, n, limit int) {
	if n > limit {
		errs.add(path, "Too Many Entries", "%d entries; Kueue accepts at most %d. Remove %d.", n, limit, n-limit)
	}
}
