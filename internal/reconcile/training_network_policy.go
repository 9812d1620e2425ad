package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	networkingac "k8s.io/client-go/applyconfigurations/networking/v1"
	networkingclient "k8s.io/client-go/kubernetes/typed/networking/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TrainingNetworkPolicies reconciles a spec.TrainingNetworkPolicy: the
// NetworkPolicy objects netpol.Render makes of it, in its namespace. Only
// objects named in netpol.Names are read, changed or deleted: those the
// platform created (labelled managed-by mlplatform), or, after an import,
// those it took over. Any other policy in the namespace is left alone.
type TrainingNetworkPolicies struct {
	API func(namespace string) networkingclient.NetworkPolicyInterface
	// List, when set, serves Observe and Widenings from one LIST of every
	// NetworkPolicy in all namespaces per provider process (kube.Listed):
	// the platform's, and the others Widenings evaluates. Apply and Delete
	// list the namespace themselves and invalidate it around their writes.
	List *kube.ListCache[*networkingv1.NetworkPolicy]
}

var _ Reconciler[Ref, spec.TrainingNetworkPolicy, spec.TrainingNetworkPolicy] = TrainingNetworkPolicies{}

// NewTrainingNetworkPolicies reconciles through c.
func NewTrainingNetworkPolicies(c *kube.Client) TrainingNetworkPolicies {
	return TrainingNetworkPolicies{
		API:  c.Core.NetworkingV1().NetworkPolicies,
		List: kube.Listed(c, "NetworkPolicy", kube.ListFunc[*networkingv1.NetworkPolicy](c.Core.NetworkingV1().NetworkPolicies("").List, metav1.ListOptions{})),
	}
}

// inNamespace lists the objects in the namespace that carry a platform name:
// marked are those the platform created (its managed-by label), unmarked
// the others (someone else's, or imported and not applied yet).
func (t TrainingNetworkPolicies) inNamespace(ctx context.Context, ns string) (marked, unmarked []networkingv1.NetworkPolicy, err error) {
	list, err := t.API(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("list NetworkPolicies in %s: %w", ns, err)
	}
	for _, o := range list.Items {
		switch {
		case !slices.Contains(netpol.Names, o.Name) || o.DeletionTimestamp != nil:
		case Created(&o):
			marked = append(marked, o)
		default:
			unmarked = append(unmarked, o)
		}
	}
	return marked, unmarked, nil
}

// managed is the set of objects a policy manages: those the platform
// created; where there are none, the platform-named objects an import took
// over (they are marked by the first apply).
func managed(marked, unmarked []networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
	if len(marked) > 0 {
		return marked
	}
	return unmarked
}

// Observe reads the objects back into a spec (netpol.Read); found is false
// when none of them exists. It is the read path (a refresh): the
// objects come from List when it is set, which holds every policy: the
// marked ones are picked out; a namespace with none of them (gone, or
// imported and not applied yet) is listed itself.
func (t TrainingNetworkPolicies) Observe(ctx context.Context, ref Ref, _ spec.TrainingNetworkPolicy) (spec.TrainingNetworkPolicy, bool, error) {
	if objs, ok := t.listed(ctx, ref.Namespace); ok && len(objs) > 0 {
		return netpol.Read(ref.Namespace, objs), true, nil
	}
	return t.observe(ctx, ref)
}

// listed picks the namespace's marked objects out of List; ok is false when
// there is no List, or it failed or was refused (then Observe lists the
// namespace itself).
func (t TrainingNetworkPolicies) listed(ctx context.Context, ns string) (marked []networkingv1.NetworkPolicy, ok bool) {
	all, ok, err := t.List.Items(ctx)
	if !ok || err != nil {
		return nil, false
	}
	for _, name := range netpol.Names {
		if o, listed := all[ns+"/"+name]; listed && o.DeletionTimestamp == nil && Created(o) {
			marked = append(marked, *o)
		}
	}
	return marked, true
}

// observe reads the managed objects with a LIST of the namespace.
func (t TrainingNetworkPolicies) observe(ctx context.Context, ref Ref) (spec.TrainingNetworkPolicy, bool, error) {
	marked, unmarked, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return spec.TrainingNetworkPolicy{}, false, err
	}
	objs := managed(marked, unmarked)
	return netpol.Read(ref.Namespace, objs), len(objs) > 0, nil
}

// Create writes the policies. An object of a platform name that it would
// write and that the platform did not create fails the create, before any
// write; platform-named objects the configuration does not render are left
// alone.
func (t TrainingNetworkPolicies) Create(ctx context.Context, ref Ref, desired spec.TrainingNetworkPolicy) (Result[spec.TrainingNetworkPolicy], error) {
	got, err := t.apply(ctx, ref, desired, true)
	return Result[spec.TrainingNetworkPolicy]{Observed: got}, err
}

// Update makes the managed policies match desired: it writes each rendered
// object whose content differs (server-side apply, forced), deletes managed
// objects no longer rendered, and returns what the server then holds. Once
// the platform has created some of a namespace's policies, an object of a
// platform name that someone else made is not written over.
func (t TrainingNetworkPolicies) Update(ctx context.Context, ref Ref, _, desired spec.TrainingNetworkPolicy) (Result[spec.TrainingNetworkPolicy], error) {
	got, err := t.apply(ctx, ref, desired, false)
	return Result[spec.TrainingNetworkPolicy]{Observed: got}, err
}

// Diff names the policy objects whose content differs from what desired
// renders, or that desired no longer renders.
func (t TrainingNetworkPolicies) Diff(desired, actual spec.TrainingNetworkPolicy) []string {
	return diffRendered(netpol.Hashes(netpol.Render(desired)), actual.Rendered)
}

func diffRendered(want, got map[string]string) []string {
	var differ []string
	for name, h := range want {
		if got[name] != h {
			differ = append(differ, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			differ = append(differ, name)
		}
	}
	slices.Sort(differ)
	return differ
}

// WaitReady returns at once: NetworkPolicies have no controller status.
func (t TrainingNetworkPolicies) WaitReady(context.Context, Ref, spec.TrainingNetworkPolicy) error {
	return nil
}

func (t TrainingNetworkPolicies) apply(ctx context.Context, ref Ref, desired spec.TrainingNetworkPolicy, creating bool) (spec.TrainingNetworkPolicy, error) {
	desired.Namespace = ref.Namespace
	t.List.Invalidate()
	defer t.List.Invalidate()
	marked, unmarked, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return spec.TrainingNetworkPolicy{}, err
	}
	rendered := netpol.Render(desired)
	want := netpol.Hashes(rendered)
	objs := marked
	if !creating && len(marked) == 0 {
		objs = unmarked // imported: take over the platform-named objects
	} else {
		for i := range unmarked {
			if _, ok := want[unmarked[i].Name]; ok {
				return spec.TrainingNetworkPolicy{}, notOwned("NetworkPolicy", Ref{Namespace: ref.Namespace, Name: unmarked[i].Name}, &unmarked[i])
			}
		}
	}
	actual := netpol.Hashes(objs)
	isMarked := map[string]bool{}
	for i := range objs {
		isMarked[objs[i].Name] = Created(&objs[i])
	}
	api := t.API(ref.Namespace)
	for _, o := range rendered {
		if actual[o.Name] == want[o.Name] && isMarked[o.Name] {
			continue
		}
		if err := t.write(ctx, api, o); err != nil {
			return spec.TrainingNetworkPolicy{}, err
		}
	}
	for _, o := range objs {
		if _, keep := want[o.Name]; !keep {
			if err := api.Delete(ctx, o.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return spec.TrainingNetworkPolicy{}, fmt.Errorf("delete NetworkPolicy %s/%s: %w", ref.Namespace, o.Name, err)
			}
		}
	}
	got, _, err := t.observe(ctx, ref)
	if err != nil {
		return got, err
	}
	if differ := diffRendered(want, got.Rendered); len(differ) > 0 {
		return got, &SettledError{Kind: "NetworkPolicies in", Name: ref.Namespace, Fields: differ}
	}
	return got, nil
}

// write server-side applies o. Rules another writer added to a part the
// platform does not own (e.g. ingress rules on an egress-only policy)
// survive an apply, so a result that still differs is replaced by an update.
func (t TrainingNetworkPolicies) write(ctx context.Context, api networkingclient.NetworkPolicyInterface, o networkingv1.NetworkPolicy) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var ac networkingac.NetworkPolicyApplyConfiguration
	if err := json.Unmarshal(b, &ac); err != nil {
		return err
	}
	got, err := api.Apply(ctx, &ac, metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("apply NetworkPolicy %s/%s: %w", o.Namespace, o.Name, err)
	}
	if netpol.Hash(got.Spec) == netpol.Hash(o.Spec) {
		return nil
	}
	got.Spec = o.Spec
	if _, err := api.Update(ctx, got, metav1.UpdateOptions{FieldManager: kube.FieldManager}); err != nil {
		return fmt.Errorf("restore NetworkPolicy %s/%s: %w", o.Namespace, o.Name, err)
	}
	return nil
}

// Delete deletes the managed objects in the namespace (the default deny
// last, so the namespace is never briefly left with holes and no deny).
func (t TrainingNetworkPolicies) Delete(ctx context.Context, ref Ref, _ spec.TrainingNetworkPolicy) error {
	t.List.Invalidate()
	defer t.List.Invalidate()
	marked, unmarked, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return err
	}
	objs := managed(marked, unmarked)
	slices.SortStableFunc(objs, func(a, b networkingv1.NetworkPolicy) int {
		return boolInt(a.Name == netpol.DefaultDeny) - boolInt(b.Name == netpol.DefaultDeny)
	})
	for _, o := range objs {
		err := t.API(ref.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete NetworkPolicy %s/%s: %w", ref.Namespace, o.Name, err)
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
