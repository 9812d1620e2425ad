package spec

import (
	"math"
	"sort"
	"unicode/utf8"
)

// GKE Dynamic Workload Scheduler (queued provisioning) through Kueue's
// ProvisioningRequest admission check.
const (
	// ProvisioningControllerName is the controllerName of Kueue's
	// ProvisioningRequest admission check controller.
	ProvisioningControllerName = "kueue.x-k8s.io/provisioning-request"
	// QueuedProvisioningClass is GKE's provisioning class for DWS flex-start
	// with queued provisioning.
	QueuedProvisioningClass = "queued-provisioning.gke.io"
	// ProvisioningRequestNodeSelector is the node label GKE puts on the nodes
	// it provisions for a ProvisioningRequest; its value is the request's
	// ResizeRequestName class detail.
	ProvisioningRequestNodeSelector = "autoscaling.gke.io/provisioning-request"
	// ResizeRequestNameDetail is the provisioning class detail GKE reports
	// the resize request's name in.
	ResizeRequestNameDetail = "ResizeRequestName"
)

// Kueue's defaults and limits for ProvisioningRequestConfig.
const (
	DefaultBackoffLimitCount  = 3
	DefaultBackoffBaseSeconds = 60
	DefaultBackoffMaxSeconds  = 1800
	MaxProvisioningParameters = 100
	MaxProvisioningParamLen   = 255
	MaxManagedResources       = 100
)

// DefaultManagedResources are the resources a provisioning check manages
// unless configured otherwise.
var DefaultManagedResources = []string{"nvidia.com/gpu"}

// RetryStrategy is how Kueue retries a failed ProvisioningRequest.
type RetryStrategy struct {
	BackoffLimitCount  int64 // int32 on the server; wider so out-of-range input is reported
	BackoffBaseSeconds int64
	BackoffMaxSeconds  int64
}

// DefaultRetryStrategy is what Kueue sets when none is given.
var DefaultRetryStrategy = RetryStrategy{BackoffLimitCount: DefaultBackoffLimitCount, BackoffBaseSeconds: DefaultBackoffBaseSeconds, BackoffMaxSeconds: DefaultBackoffMaxSeconds}

// PodSetNodeSelector is an update Kueue makes to the node selector of an
// admitted workload's pods: key ← the value of a provisioning class detail.
type PodSetNodeSelector struct {
	Key                              string
	ValueFromProvisioningClassDetail string
}

// GKEProvisioningNodeSelector pins a workload's pods to the nodes GKE
// provisioned for its request.
var GKEProvisioningNodeSelector = PodSetNodeSelector{Key: ProvisioningRequestNodeSelector, ValueFromProvisioningClassDetail: ResizeRequestNameDetail}

// ProvisioningAdmissionCheck is a Kueue AdmissionCheck handled by the
// ProvisioningRequest controller together with the ProvisioningRequestConfig
// of the same name it points at: before a workload is admitted, Kueue asks the
// cluster autoscaler for its nodes (on GKE: Dynamic Workload Scheduler).
type ProvisioningAdmissionCheck struct {
	Name              string
	ProvisioningClass string
	ManagedResources  []string // empty: every resource is managed
	Parameters        map[string]string
	RetryStrategy     RetryStrategy
	// PodSetNodeSelectors: GKEProvisioningNodeSelector, or none.
	PodSetNodeSelectors []PodSetNodeSelector
}

// AdmissionCheck is a Kueue AdmissionCheck.
type AdmissionCheck struct {
	Name           string
	ControllerName string
	Parameters     *AdmissionCheckParameters
}

// AdmissionCheckParameters references the object that configures a check.
type AdmissionCheckParameters struct {
	APIGroup, Kind, Name string
}

// AdmissionCheck is the AdmissionCheck of p: Kueue's ProvisioningRequest
// controller, configured by the ProvisioningRequestConfig of the same name.
func (p ProvisioningAdmissionCheck) AdmissionCheck() AdmissionCheck {
	return AdmissionCheck{Name: p.Name, ControllerName: ProvisioningControllerName,
		Parameters: &AdmissionCheckParameters{APIGroup: "kueue.x-k8s.io", Kind: "ProvisioningRequestConfig", Name: p.Name}}
}

// Validate mirrors the CRD rules of AdmissionCheck and ProvisioningRequestConfig
// (apis/kueue/v1beta2/admissioncheck_types.go, provisioningrequestconfig_types.go).
func (p ProvisioningAdmissionCheck) Validate() FieldErrors {
	var errs FieldErrors
	// The AdmissionCheck names its config in parameters.name, which Kueue
	// restricts to a DNS-1123 label (AdmissionCheckParametersReference.name:
	// MaxLength=63 and the DNS label Pattern): no dots, at most 63 characters.
	if p.Name == "" {
		errs.add(Path{"name"}, "Missing Name", "the admission check needs a name, e.g. \"dws\" or \"flex-start\".")
	} else if problem := DNSLabelProblem(p.Name); problem != "" {
		errs.add(Path{"name"}, "Invalid Name",
			"%q cannot name a provisioning admission check: %s. The AdmissionCheck refers to its ProvisioningRequestConfig by this name, which Kueue limits to lower-case letters, digits and '-' (no dots), at most 63 characters, e.g. %q.",
			p.Name, problem, suggestLabel(p.Name))
	}
	// provisioningClassName: MinLength=1, MaxLength=253 and the DNS subdomain Pattern.
	if p.ProvisioningClass == "" {
		errs.add(Path{"provisioning_class"}, "Missing Provisioning Class", "provisioning_class is empty; leave it out for %q (GKE Dynamic Workload Scheduler), or name another class, e.g. \"check-capacity.autoscaling.x-k8s.io\".", QueuedProvisioningClass)
	} else if problem := DNSSubdomainProblem(p.ProvisioningClass); problem != "" {
		errs.add(Path{"provisioning_class"}, "Invalid Provisioning Class",
			"%q is not a valid provisioning class name: %s. Class names are DNS names such as %q (GKE's) or \"check-capacity.autoscaling.x-k8s.io\".",
			p.ProvisioningClass, problem, QueuedProvisioningClass)
	}
	// managedResources: MaxItems=100, listType=set of resource names. The
	// CRD does not check their format, but only a valid resource name (a
	// qualified name, k8s.io/kubernetes/pkg/apis/core/validation
	// validateResourceName) can be requested by a pod, so any other never
	// matches.
	tooMany(&errs, Path{"managed_resources"}, len(p.ManagedResources), MaxManagedResources, "managed resources")
	for _, r := range p.ManagedResources {
		if problem := QualifiedNameProblem(r); problem != "" {
			errs.add(Path{"managed_resources"}, "Invalid Resource Name",
				"%q is not a valid resource name: %s. Use the names pods request, e.g. nvidia.com/gpu, or leave managed_resources out for nvidia.com/gpu.", r, problem)
		}
	}
	// parameters: MaxProperties=100; each value a Parameter, MaxLength=255
	// (counted in characters, as the API server counts a CRD's maxLength).
	tooMany(&errs, Path{"parameters"}, len(p.Parameters), MaxProvisioningParameters, "parameters")
	keys := make([]string, 0, len(p.Parameters))
	for k := range p.Parameters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" {
			// The provider's rule: a parameter without a name means nothing to any provisioning class.
			errs.add(Path{"parameters"}, "Empty Parameter Name", "a parameter needs a name, e.g. %v; remove the entry with the empty key.",
				obj(Key("ValidUntilSeconds"), "3600"))
			continue
		}
		if n := utf8.RuneCountInString(p.Parameters[k]); n > MaxProvisioningParamLen {
			errs.add(Path{"parameters", Key(k)}, "Parameter Too Long", "parameter %q has %d characters; Kueue accepts at most %d. Shorten it.", k, n, MaxProvisioningParamLen)
		}
	}
	// retryStrategy: the three are int32 (backoffLimitCount, backoffBaseSeconds,
	// backoffMaxSeconds *int32); a count and durations cannot be negative.
	r := p.RetryStrategy
	for _, f := range []struct {
		attr string
		v    int64
		hint string
	}{
		{"backoff_limit_count", r.BackoffLimitCount, "use 0 to switch retries off"},
		{"backoff_base_seconds", r.BackoffBaseSeconds, "Kueue's default is 60"},
		{"backoff_max_seconds", r.BackoffMaxSeconds, "Kueue's default is 1800"},
	} {
		if f.v < 0 || f.v > math.MaxInt32 {
			errs.add(Path{"retry_strategy", f.attr}, "Retry Setting Out Of Range",
				"%s is %d; it must be between 0 and %d (%s).", f.attr, f.v, math.MaxInt32, f.hint)
		}
	}
	return errs
}
