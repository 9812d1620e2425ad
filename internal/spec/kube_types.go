package spec

import (
	"fmt"
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

// TaintEffects are the effects a taint may have (core/v1 TaintEffect; Kueue's
// ResourceFlavor CRD: "supported taint effect values: 'NoSchedule',
// 'PreferNoSchedule', 'NoExecute'").
var TaintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// TolerationOperators are the operators a toleration may use (Kueue's
// ResourceFlavor CRD: "supported toleration values: 'Equal'(default),
// 'Exists'").
var TolerationOperators = []string{"Equal", "Exists"}

// maxFlavorItems is Kueue's limit on a ResourceFlavor's labels, taints and
// tolerations (apis/kueue/v1beta2/resourceflavor_types.go: nodeLabels
// MaxProperties=8, nodeTaints and tolerations MaxItems=8).
const maxFlavorItems = 8

// Advice shared by the label, taint and toleration messages.
const (
	keyRule = "Keys are NAME or PREFIX/NAME: a name of at most 63 letters, digits, '-', '_' and '.', beginning and ending with a letter or digit, " +
		"after an optional DNS prefix"
	keyAdvice      = keyRule + ", e.g. \"team\" or \"cloud.google.com/gke-nodepool\"."
	taintKeyAdvice = keyRule + ", e.g. \"dedicated\" or \"nvidia.com/gpu\"."
	valueAdvice    = "Values are empty or at most 63 letters, digits, '-', '_' and '.', beginning and ending with a letter or digit, e.g. \"h100-spot\" or \"true\"."
)

// validateLabels checks label keys and values the way the API server does
// (k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateLabels: keys are
// qualified names, values label values), one error per label at its key.
func validateLabels(errs *FieldErrors, path Path, labels map[string]string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p := QualifiedNameProblem(k); p != "" {
			errs.add(at(path, Key(k)), "Invalid Label Key", "label key %q is not valid: %s. %s", k, p, keyAdvice)
		} else if p := LabelValueProblem(labels[k]); p != "" {
			errs.add(at(path, Key(k)), "Invalid Label Value", "label %q has value %q, which is not valid: %s. %s", k, labels[k], p, valueAdvice)
		}
	}
}

// validateTaints checks a ResourceFlavor's node taints as Kueue's
// ResourceFlavor webhook does (pkg/webhooks/resourceflavor_webhook.go
// validateNodeTaints: the key a qualified name, the value a label value,
// unique by key and effect) and its CRD (the effect one of TaintEffects).
func validateTaints(errs *FieldErrors, path Path, taints []Taint) {
	type keyEffect struct{ key, effect string }
	seen := map[keyEffect]int{}
	for i, t := range taints {
		p := at(path, i)
		keyOK, effectOK := true, true
		if t.Key == "" {
			errs.add(at(p, "key"), "Missing Taint Key", "a taint needs a key, e.g. \"nvidia.com/gpu\" or \"cloud.google.com/gke-spot\".")
			keyOK = false
		} else if problem := QualifiedNameProblem(t.Key); problem != "" {
			errs.add(at(p, "key"), "Invalid Taint Key", "taint key %q is not valid: %s. %s", t.Key, problem, taintKeyAdvice)
			keyOK = false
		}
		if problem := LabelValueProblem(t.Value); problem != "" {
			errs.add(at(p, "value"), "Invalid Taint Value", "taint value %q is not valid: %s. %s", t.Value, problem, valueAdvice)
		}
		if t.Effect == "" {
			errs.add(at(p, "effect"), "Missing Taint Effect", "a taint needs an effect: NoSchedule, PreferNoSchedule or NoExecute (GKE's GPU taint is NoSchedule).")
			effectOK = false
		} else if !slices.Contains(TaintEffects, t.Effect) {
			errs.add(at(p, "effect"), "Invalid Taint Effect", "taint effect %q is not one of %s%s.", t.Effect, strings.Join(TaintEffects, ", "), didYouMean(t.Effect, TaintEffects))
			effectOK = false
		}
		if !keyOK || !effectOK {
			continue
		}
		if prev, dup := seen[keyEffect{t.Key, t.Effect}]; dup {
			errs.add(p, "Duplicate Taint",
				"node_taints[%d] already has key %q with effect %s; Kueue accepts one taint per key and effect. Remove this one, or merge the two.", prev, t.Key, t.Effect)
			continue
		}
		seen[keyEffect{t.Key, t.Effect}] = i
	}
}

// validateTolerations checks tolerations as Kueue's ResourceFlavor CRD
// (apis/kueue/v1beta2/resourceflavor_types.go, its XValidation rules) and
// webhook (pkg/webhooks validateTolerations: the key a qualified name) do,
// and as Kubernetes checks the pods they are added to
// (k8s.io/kubernetes/pkg/apis/core/validation ValidateTolerations: with
// operator Equal the value is a label value). One mistake, one error: the
// rules that depend on a field are skipped while that field is wrong.
func validateTolerations(errs *FieldErrors, path Path, tols []Toleration) {
	for i, t := range tols {
		p := at(path, i)
		if t.Key != "" {
			if problem := QualifiedNameProblem(t.Key); problem != "" {
				errs.add(at(p, "key"), "Invalid Toleration Key", "toleration key %q is not valid: %s. %s", t.Key, problem, taintKeyAdvice)
			}
		}
		op := t.Operator
		if op == "" {
			op = "Equal"
		}
		switch {
		case !slices.Contains(TolerationOperators, op):
			errs.add(at(p, "operator"), "Invalid Toleration Operator",
				"operator %q is not one of Equal (the taint's value must match) or Exists (any value)%s; leave operator out for Equal.", t.Operator, didYouMean(t.Operator, TolerationOperators))
		case t.Key == "" && op != "Exists":
			errs.add(at(p, "operator"), "Toleration Without Key Must Use Exists",
				"a toleration without a key matches every taint, which needs %v; set %[1]v, or set the key of the taint to tolerate, e.g. \"nvidia.com/gpu\".",
				set("operator", "Exists"))
		case op == "Exists" && t.Value != "":
			errs.add(at(p, "value"), "Toleration Value With Exists",
				"operator Exists matches any value, so value must be empty (it is %q); remove value or use operator Equal.", t.Value)
		case op == "Equal" && t.Value != "":
			if problem := LabelValueProblem(t.Value); problem != "" {
				errs.add(at(p, "value"), "Invalid Toleration Value", "toleration value %q is not valid: %s. %s", t.Value, problem, valueAdvice)
			}
		}
		effectOK := t.Effect == "" || slices.Contains(TaintEffects, t.Effect)
		if !effectOK {
			errs.add(at(p, "effect"), "Invalid Toleration Effect",
				"effect %q is not one of %s%s; leave effect out to tolerate every effect.", t.Effect, strings.Join(TaintEffects, ", "), didYouMean(t.Effect, TaintEffects))
		}
		if t.TolerationSeconds != nil && effectOK && t.Effect != "NoExecute" {
			errs.add(at(p, "toleration_seconds"), "Toleration Seconds Need NoExecute",
				"toleration_seconds only applies to effect NoExecute (how long a pod stays once the taint appears; effect is %s); remove it or set %v.",
				effectName(t.Effect), set("effect", "NoExecute"))
		}
	}
}

func effectName(e string) string {
	if e == "" {
		return "unset"
	}
	return fmt.Sprintf("%q", e)
}

// didYouMean suggests the allowed value v differs from only in case or
// surrounding spaces, for enumeration messages ("" when none).
func didYouMean(v string, allowed []string) string {
	for _, a := range allowed {
		if v != a && strings.EqualFold(strings.TrimSpace(v), a) {
			return fmt.Sprintf(" (did you mean %q? values are case-sensitive)", a)
		}
	}
	return ""
}

// tooMany reports more than limit entries in path; what names them ("node
// labels"), source is who sets the limit ("Kueue").
func tooMany(errs *FieldErrors, path Path, n, limit int, what string) {
	if n > limit {
		errs.add(path, "Too Many Entries", "%d entries; Kueue accepts at most %d %s. Remove %d.", n, limit, what, n-limit)
	}
}
