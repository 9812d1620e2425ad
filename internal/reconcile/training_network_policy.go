package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// npKind names NetworkPolicies in ledger keys and messages.
const npKind = "NetworkPolicy"

// policies are the platform-named NetworkPolicies of one namespace, sorted
// by what they are to this resource instance.
type policies struct {
	// mine are those the instance manages: recorded in its ledger or, when
	// it recorded none (state of an earlier release, or just imported), those
	// the platform created or, where there are none, the platform-named ones
	// an import took over (marked by the first apply). They are recorded.
	mine []networkingv1.NetworkPolicy
	// others are the rest: another resource's or someone else's.
	others []networkingv1.NetworkPolicy
	// replaced are the UIDs the instance recorded, by name, where the object
	// there now is another.
	replaced map[string]string
}

// sortPolicies sorts objs (a namespace's platform-named policies) for the
// instance whose ledger is l. fresh is set for a create, which recorded
// nothing and takes nothing over. note says whether objects that replaced
// recorded ones are noted in the ledger (reads and deletes; a write fails
// on them instead), left whether a delete found them.
func sortPolicies(l *Ledger, ns string, objs []networkingv1.NetworkPolicy, fresh, note, left bool) policies {
	p := policies{replaced: map[string]string{}}
	keys := make([]string, len(netpol.Names))
	for i, n := range netpol.Names {
		keys[i] = kubeKey(npKind, Ref{Namespace: ns, Name: n})
	}
	if !fresh && !l.recordedAny(keys...) {
		var marked, unmarked []networkingv1.NetworkPolicy
		for _, o := range objs {
			if Created(&o) {
				marked = append(marked, o)
			} else {
				unmarked = append(unmarked, o)
			}
		}
		p.mine = marked
		if len(marked) == 0 {
			p.mine = unmarked
		}
		for _, o := range objs {
			if slices.ContainsFunc(p.mine, func(m networkingv1.NetworkPolicy) bool { return m.Name == o.Name }) {
				l.recordKube(npKind, Ref{Namespace: ns, Name: o.Name}, &o)
			} else {
				p.others = append(p.others, o)
			}
		}
		return p
	}
	for _, o := range objs {
		r := Ref{Namespace: ns, Name: o.Name}
		switch st, rec := l.kubeStanding(npKind, r, &o); st {
		case Recorded:
			p.mine = append(p.mine, o)
		case Replaced:
			if note {
				l.note(kubeForeign(npKind, r, rec, &o, left))
			}
			p.replaced[o.Name] = rec
			p.others = append(p.others, o)
		default:
			p.others = append(p.others, o)
		}
	}
	return p
}

// inNamespace lists the objects in the namespace that carry a platform name
// (and are not being deleted).
func (t TrainingNetworkPolicies) inNamespace(ctx context.Context, ns string) ([]networkingv1.NetworkPolicy, error) {
	list, err := t.API(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list NetworkPolicies in %s: %w", ns, err)
	}
	var out []networkingv1.NetworkPolicy
	for _, o := range list.Items {
		if slices.Contains(netpol.Names, o.Name) && o.DeletionTimestamp == nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// Observe reads the objects the instance manages back into a spec
// (netpol.Read); found is false when none of them exists. It is the read
// path (a refresh): the objects come from List when it is set, which holds
// every policy, of which the platform-named ones are picked out; without a
// list (or when it was refused) the namespace is listed itself.
func (t TrainingNetworkPolicies) Observe(ctx context.Context, ref Ref, _ spec.TrainingNetworkPolicy) (spec.TrainingNetworkPolicy, bool, error) {
	objs, ok := t.listed(ctx, ref.Namespace)
	if !ok {
		return t.observe(ctx, ref)
	}
	mine := sortPolicies(ledgerOf(ctx), ref.Namespace, objs, false, true, false).mine
	return netpol.Read(ref.Namespace, mine), len(mine) > 0, nil
}

// listed picks the namespace's platform-named objects out of List; ok is
// false when there is no List, or it failed or was refused (then Observe
// lists the namespace itself).
func (t TrainingNetworkPolicies) listed(ctx context.Context, ns string) (named []networkingv1.NetworkPolicy, ok bool) {
	all, ok, err := t.List.Items(ctx)
	if !ok || err != nil {
		return nil, false
	}
	for _, name := range netpol.Names {
		if o, listed := all[ns+"/"+name]; listed && o.DeletionTimestamp == nil {
			named = append(named, *o)
		}
	}
	return named, true
}

// observe reads the instance's objects with a LIST of the namespace.
func (t TrainingNetworkPolicies) observe(ctx context.Context, ref Ref) (spec.TrainingNetworkPolicy, bool, error) {
	objs, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return spec.TrainingNetworkPolicy{}, false, err
	}
	mine := sortPolicies(ledgerOf(ctx), ref.Namespace, objs, false, true, false).mine
	return netpol.Read(ref.Namespace, mine), len(mine) > 0, nil
}

// Create writes the policies. An object of a platform name that it would
// write fails the create, before any write, whoever made it (another
// resource's is not this one's); platform-named objects the configuration
// does not render are left alone.
func (t TrainingNetworkPolicies) Create(ctx context.Context, ref Ref, desired spec.TrainingNetworkPolicy) (Result[spec.TrainingNetworkPolicy], error) {
	got, err := t.apply(ctx, ref, desired, true)
	res := Result[spec.TrainingNetworkPolicy]{Observed: got}
	if err != nil {
		// Some policies may be there: recorded, so the next apply completes them.
		if obs, found, oerr := t.observe(ctx, ref); oerr == nil && found {
			res.Observed, res.Partial = obs, true
		}
	}
	return res, err
}

// Update makes the instance's policies match desired: it writes each
// rendered object whose content differs (server-side apply, forced), creates
// the missing ones, deletes its objects no longer rendered, and returns what
// the server then holds. An object of a platform name that is not the
// instance's (someone else made it, or made it again after the instance's
// was deleted) is not written over.
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
	objs, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return spec.TrainingNetworkPolicy{}, err
	}
	l := ledgerOf(ctx)
	p := sortPolicies(l, ref.Namespace, objs, creating, false, false)
	rendered := netpol.Render(desired)
	want := netpol.Hashes(rendered)
	for i := range p.others {
		o := &p.others[i]
		if _, ok := want[o.Name]; !ok {
			continue // not written: left alone
		}
		r := Ref{Namespace: ref.Namespace, Name: o.Name}
		if rec := p.replaced[o.Name]; rec != "" {
			return spec.TrainingNetworkPolicy{}, replacedError(npKind, r, rec, o)
		}
		return spec.TrainingNetworkPolicy{}, notOwned(npKind, r, o)
	}
	mine := map[string]*networkingv1.NetworkPolicy{}
	for i := range p.mine {
		mine[p.mine[i].Name] = &p.mine[i]
	}
	api := t.API(ref.Namespace)
	for _, o := range rendered {
		cur, ok := mine[o.Name]
		switch {
		case !ok:
			if err := t.create(ctx, api, o); err != nil {
				return spec.TrainingNetworkPolicy{}, err
			}
		case netpol.Hash(cur.Spec) != want[o.Name] || !Created(cur):
			if err := t.write(ctx, api, o, cur.UID); err != nil {
				return spec.TrainingNetworkPolicy{}, err
			}
		}
	}
	for _, o := range p.mine {
		if _, keep := want[o.Name]; !keep {
			if err := deletePolicy(ctx, l, api, o); err != nil {
				return spec.TrainingNetworkPolicy{}, err
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

// create creates o with a POST, which fails where an object of its name
// exists (made since the namespace was listed: not this instance's), and
// records it.
func (t TrainingNetworkPolicies) create(ctx context.Context, api networkingclient.NetworkPolicyInterface, o networkingv1.NetworkPolicy) error {
	ac, err := policyApplyConfiguration(o)
	if err != nil {
		return err
	}
	r := Ref{Namespace: o.Namespace, Name: o.Name}
	_, err = createPart(ctx, api, npKind, r, kubeKey(npKind, r), ac)
	return err
}

func policyApplyConfiguration(o networkingv1.NetworkPolicy) (*networkingac.NetworkPolicyApplyConfiguration, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var ac networkingac.NetworkPolicyApplyConfiguration
	if err := json.Unmarshal(b, &ac); err != nil {
		return nil, err
	}
	return &ac, nil
}

// write server-side applies o to the object with UID uid. Rules another
// writer added to a part the platform does not own (e.g. ingress rules on an
// egress-only policy) survive an apply, so a result that still differs is
// replaced by an update.
func (t TrainingNetworkPolicies) write(ctx context.Context, api networkingclient.NetworkPolicyInterface, o networkingv1.NetworkPolicy, uid types.UID) error {
	ac, err := policyApplyConfiguration(o)
	if err != nil {
		return err
	}
	got, err := api.Apply(ctx, ac.WithUID(uid), metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true})
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

// deletePolicy deletes the instance's object o (only that object: a UID
// precondition) and forgets it.
func deletePolicy(ctx context.Context, l *Ledger, api networkingclient.NetworkPolicyInterface, o networkingv1.NetworkPolicy) error {
	r := Ref{Namespace: o.Namespace, Name: o.Name}
	if err := deleteUID(ctx, api, npKind, r, o.UID); err != nil {
		return err
	}
	l.forget(kubeKey(npKind, r))
	return nil
}

// Delete deletes the instance's objects in the namespace (the default deny
// last, so the namespace is never briefly left with holes and no deny).
// Objects of platform names that are not the instance's are left.
func (t TrainingNetworkPolicies) Delete(ctx context.Context, ref Ref, _ spec.TrainingNetworkPolicy) error {
	t.List.Invalidate()
	defer t.List.Invalidate()
	objs, err := t.inNamespace(ctx, ref.Namespace)
	if err != nil {
		return err
	}
	l := ledgerOf(ctx)
	mine := sortPolicies(l, ref.Namespace, objs, false, true, true).mine
	slices.SortStableFunc(mine, func(a, b networkingv1.NetworkPolicy) int {
		return boolInt(a.Name == netpol.DefaultDeny) - boolInt(b.Name == netpol.DefaultDeny)
	})
	api := t.API(ref.Namespace)
	for _, o := range mine {
		if err := deletePolicy(ctx, l, api, o); err != nil {
			return err
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
