package kueue

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestAdmissionCheckRoundTrip(t *testing.T) {
	t.Parallel()
	in := spec.ProvisioningAdmissionCheck{Name: "dws"}.AdmissionCheck()
	data, err := json.Marshal(AdmissionCheck(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"AdmissionCheck","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"dws"},"spec":{"controllerName":"kueue.x-k8s.io/provisioning-request",` +
		`"parameters":{"apiGroup":"kueue.x-k8s.io","kind":"ProvisioningRequestConfig","name":"dws"}}}`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("apply configuration (-want +got):\n%s", diff)
	}
	var obj kueuev1beta2.AdmissionCheck
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, AdmissionCheckSpec(&obj)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// The retry strategy is always sent (Kueue would default it otherwise), and
// a server object without one reads as Kueue's defaults.
func TestProvisioningRequestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in       spec.ProvisioningAdmissionCheck
		wantJSON string
	}{
		"GKE DWS defaults": {
			in: spec.ProvisioningAdmissionCheck{Name: "dws", ProvisioningClass: spec.QueuedProvisioningClass, ManagedResources: []string{"nvidia.com/gpu"},
				RetryStrategy: spec.DefaultRetryStrategy, PodSetNodeSelectors: []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector}},
			wantJSON: `{"kind":"ProvisioningRequestConfig","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"dws"},"spec":{` +
				`"provisioningClassName":"queued-provisioning.gke.io","managedResources":["nvidia.com/gpu"],` +
				`"retryStrategy":{"backoffLimitCount":3,"backoffBaseSeconds":60,"backoffMaxSeconds":1800},` +
				`"podSetUpdates":{"nodeSelector":[{"key":"autoscaling.gke.io/provisioning-request","valueFromProvisioningClassDetail":"ResizeRequestName"}]}}}`,
		},
		"no retries, parameters, every resource, no node selector": {
			in: spec.ProvisioningAdmissionCheck{Name: "cap", ProvisioningClass: "check-capacity.autoscaling.x-k8s.io",
				Parameters: map[string]string{"ValidUntilSeconds": "600"}, RetryStrategy: spec.RetryStrategy{BackoffBaseSeconds: 10, BackoffMaxSeconds: 20}},
			wantJSON: `{"kind":"ProvisioningRequestConfig","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"cap"},"spec":{` +
				`"provisioningClassName":"check-capacity.autoscaling.x-k8s.io","parameters":{"ValidUntilSeconds":"600"},` +
				`"retryStrategy":{"backoffLimitCount":0,"backoffBaseSeconds":10,"backoffMaxSeconds":20}}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(ProvisioningRequestConfig(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantJSON, string(data)); diff != "" {
				t.Errorf("apply configuration (-want +got):\n%s", diff)
			}
			var obj kueuev1beta2.ProvisioningRequestConfig
			if err := json.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.in, ProvisioningRequestConfigSpec(&obj)); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("unset retry strategy reads as Kueue's defaults", func(t *testing.T) {
		t.Parallel()
		obj := &kueuev1beta2.ProvisioningRequestConfig{Spec: kueuev1beta2.ProvisioningRequestConfigSpec{ProvisioningClassName: "c"}}
		if diff := cmp.Diff(spec.DefaultRetryStrategy, ProvisioningRequestConfigSpec(obj).RetryStrategy); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
