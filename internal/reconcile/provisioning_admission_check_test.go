package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func dws() spec.ProvisioningAdmissionCheck {
	return spec.ProvisioningAdmissionCheck{
		Name: "dws", ProvisioningClass: spec.QueuedProvisioningClass, ManagedResources: []string{"nvidia.com/gpu"},
		RetryStrategy: spec.DefaultRetryStrategy, PodSetNodeSelectors: []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector},
	}
}

func TestDiffProvisioningRequestConfig(t *testing.T) {
	t.Parallel()
	with := func(f func(*spec.ProvisioningAdmissionCheck)) spec.ProvisioningAdmissionCheck {
		p := dws()
		f(&p)
		return p
	}
	cases := map[string]struct {
		actual spec.ProvisioningAdmissionCheck
		want   []string
	}{
		"in sync": {actual: dws()},
		"managed resources are a set": {
			actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.ManagedResources = []string{"nvidia.com/gpu"} }),
		},
		"class":          {actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.ProvisioningClass = "x" }), want: []string{"provisioning_class"}},
		"resource added": {actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.ManagedResources = append(p.ManagedResources, "cpu") }), want: []string{"managed_resources"}},
		"parameter":      {actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.Parameters = map[string]string{"a": "b"} }), want: []string{"parameters"}},
		"retries":        {actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.RetryStrategy.BackoffLimitCount = 5 }), want: []string{"retry_strategy"}},
		"node selector removed": {
			actual: with(func(p *spec.ProvisioningAdmissionCheck) { p.PodSetNodeSelectors = nil }), want: []string{"pod_set_node_selector_update"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffProvisioningRequestConfig(dws(), tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("sets", func(t *testing.T) {
		t.Parallel()
		a := spec.ProvisioningAdmissionCheck{ManagedResources: []string{"a", "b"}}
		b := spec.ProvisioningAdmissionCheck{ManagedResources: []string{"b", "a"}}
		if d := DiffProvisioningRequestConfig(a, b); len(d) > 0 {
			t.Errorf("order mattered: %v", d)
		}
	})
}

func TestDiffAdmissionCheck(t *testing.T) {
	t.Parallel()
	want := dws().AdmissionCheck()
	other := want
	other.Parameters = &spec.AdmissionCheckParameters{APIGroup: "kueue.x-k8s.io", Kind: "ProvisioningRequestConfig", Name: "other"}
	cases := map[string]struct {
		actual spec.AdmissionCheck
		want   []string
	}{
		"in sync":          {actual: dws().AdmissionCheck()},
		"other config":     {actual: other, want: []string{"parameters"}},
		"no parameters":    {actual: spec.AdmissionCheck{Name: "dws", ControllerName: want.ControllerName}, want: []string{"parameters"}},
		"other controller": {actual: spec.AdmissionCheck{Name: "dws", ControllerName: "x", Parameters: want.Parameters}, want: []string{"controller_name"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffAdmissionCheck(want, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// fakeAPI is an in-memory ObjectAPI: Create and Apply store the object
// (an apply configuration through JSON, as the server would), each object
// made gets a UID of its own, the UID preconditions of Apply and Delete hold,
// and every call is logged.
type fakeAPI[O metav1.Object, AC any] struct {
	kind string
	mu   *sync.Mutex
	log  *[]string
	objs map[string]O
	new  func() O
}

var fakeUIDs atomic.Int64

func (f fakeAPI[O, AC]) record(verb, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.log = append(*f.log, verb+" "+f.kind+" "+name)
}

func (f fakeAPI[O, AC]) gr() schema.GroupResource {
	return schema.GroupResource{Group: "kueue.x-k8s.io", Resource: f.kind}
}

func (f fakeAPI[O, AC]) Get(_ context.Context, name string, _ metav1.GetOptions) (O, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objs[name]
	if !ok {
		var zero O
		return zero, apierrors.NewNotFound(f.gr(), name)
	}
	return o, nil
}

func (f fakeAPI[O, AC]) Create(_ context.Context, o O, _ metav1.CreateOptions) (O, error) {
	f.record("create", o.GetName())
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.objs[o.GetName()]; ok {
		var zero O
		return zero, apierrors.NewAlreadyExists(f.gr(), o.GetName())
	}
	o.SetUID(types.UID(fmt.Sprint("uid-", fakeUIDs.Add(1))))
	f.objs[o.GetName()] = o
	return o, nil
}

func (f fakeAPI[O, AC]) Apply(_ context.Context, ac AC, _ metav1.ApplyOptions) (O, error) {
	o := f.new()
	data, err := json.Marshal(ac)
	if err == nil {
		err = json.Unmarshal(data, o)
	}
	if err != nil {
		return o, err
	}
	f.record("apply", o.GetName())
	f.mu.Lock()
	defer f.mu.Unlock()
	uid := types.UID(fmt.Sprint("uid-", fakeUIDs.Add(1)))
	if cur, ok := f.objs[o.GetName()]; ok {
		uid = cur.GetUID()
	}
	if o.GetUID() != "" && o.GetUID() != uid {
		return o, apierrors.NewConflict(f.gr(), o.GetName(), fmt.Errorf("UID in precondition: %s, UID in object meta: %s", o.GetUID(), uid))
	}
	o.SetUID(uid)
	f.objs[o.GetName()] = o
	return o, nil
}

func (f fakeAPI[O, AC]) Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (O, error) {
	var zero O
	return zero, fmt.Errorf("patch not expected")
}

func (f fakeAPI[O, AC]) Delete(_ context.Context, name string, opts metav1.DeleteOptions) error {
	f.record("delete", name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if cur, ok := f.objs[name]; ok && opts.Preconditions != nil && opts.Preconditions.UID != nil && *opts.Preconditions.UID != cur.GetUID() {
		return apierrors.NewConflict(f.gr(), name, fmt.Errorf("precondition failed"))
	}
	delete(f.objs, name)
	return nil
}

type fakeProvisioning struct {
	rec    ProvisioningAdmissionChecks
	log    *[]string
	checks map[string]*kueuev1beta2.AdmissionCheck
	cfgs   map[string]*kueuev1beta2.ProvisioningRequestConfig
}

func newFakeProvisioning() fakeProvisioning {
	mu, log := &sync.Mutex{}, &[]string{}
	f := fakeProvisioning{log: log, checks: map[string]*kueuev1beta2.AdmissionCheck{}, cfgs: map[string]*kueuev1beta2.ProvisioningRequestConfig{}}
	checks := fakeAPI[*kueuev1beta2.AdmissionCheck, *kueueac.AdmissionCheckApplyConfiguration]{
		kind: "AdmissionCheck", mu: mu, log: log, objs: f.checks, new: func() *kueuev1beta2.AdmissionCheck { return &kueuev1beta2.AdmissionCheck{} }}
	cfgs := fakeAPI[*kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration]{
		kind: "ProvisioningRequestConfig", mu: mu, log: log, objs: f.cfgs, new: func() *kueuev1beta2.ProvisioningRequestConfig { return &kueuev1beta2.ProvisioningRequestConfig{} }}
	f.rec = ProvisioningAdmissionChecks{CheckWithConfig[spec.ProvisioningAdmissionCheck, *kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration]{
		Check: spec.ProvisioningAdmissionCheck.AdmissionCheck,
		Checks: AdmissionChecks{Kind: "AdmissionCheck", Build: kueue.AdmissionCheck, Read: kueue.AdmissionCheckSpec, DiffSpec: DiffAdmissionCheck, Poll: time.Millisecond,
			API: func(string) ObjectAPI[*kueuev1beta2.AdmissionCheck, *kueueac.AdmissionCheckApplyConfiguration] {
				return checks
			}},
		Configs: ProvisioningRequestConfigs{Kind: "ProvisioningRequestConfig", Build: kueue.ProvisioningRequestConfig, Read: kueue.ProvisioningRequestConfigSpec,
			DiffSpec: DiffProvisioningRequestConfig, Poll: time.Millisecond,
			API: func(string) ObjectAPI[*kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration] {
				return cfgs
			}},
	}}
	return f
}

// The config is applied before the check that points at it and deleted
// after it; an unchanged pair is not written; a missing half means the pair
// is not there (so Terraform re-creates it).
func TestProvisioningAdmissionChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ref := Ref{Name: "dws"}
	f := newFakeProvisioning()

	res, err := f.rec.Update(ctx, ref, spec.ProvisioningAdmissionCheck{}, dws())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dws(), res.Observed); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if _, err := f.rec.Update(ctx, ref, dws(), dws()); err != nil { // in sync: no write
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"create ProvisioningRequestConfig dws", "create AdmissionCheck dws"}, *f.log); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if _, found, err := f.rec.Observe(ctx, ref, dws()); err != nil || !found {
		t.Errorf("Observe: found=%v err=%v, want found", found, err)
	}

	delete(f.checks, "dws") // out of band
	l := NewLedger(nil)
	if _, found, err := f.rec.Observe(WithLedger(ctx, l), ref, dws()); err != nil || !found {
		t.Errorf("Observe without the check: found=%v err=%v, want found (the config is there)", found, err)
	}
	if diff := cmp.Diff([]string{"AdmissionCheck dws"}, l.Missing()); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}

	*f.log = nil
	if _, err := f.rec.Update(ctx, ref, dws(), dws()); err != nil {
		t.Fatal(err)
	}
	if err := f.rec.Delete(ctx, ref, dws()); err != nil {
		t.Fatal(err)
	}
	want := []string{"create AdmissionCheck dws", "delete AdmissionCheck dws", "delete ProvisioningRequestConfig dws"}
	if diff := cmp.Diff(want, *f.log); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if _, found, err := f.rec.Observe(ctx, ref, dws()); err != nil || found {
		t.Errorf("Observe after delete: found=%v err=%v", found, err)
	}
}
