package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Widenings returns what the NetworkPolicies in desired's namespace that
// are not this resource instance's allow its pods beyond the holes desired
// declares (netpol.Widenings), one per such policy that allows anything
// more. The instance's are told from the others as the reconciler does (its
// ledger, or for state without identities the platform's marker): a policy
// made by hand under a platform name is one of the others. It only reads:
// the platform never changes another's policy. The policies come from List
// when it is set (the LIST the plan's reads make anyway), else (or when
// that list failed or was refused) from a LIST of the namespace, as Observe
// does.
func (t TrainingNetworkPolicies) Widenings(ctx context.Context, desired spec.TrainingNetworkPolicy) ([]netpol.Widening, error) {
	objs, err := t.all(ctx, desired.Namespace)
	if err != nil {
		return nil, err
	}
	var named, others []networkingv1.NetworkPolicy
	for _, o := range objs {
		switch {
		case o.DeletionTimestamp != nil:
		case slices.Contains(netpol.Names, o.Name):
			named = append(named, o)
		default:
			others = append(others, o)
		}
	}
	others = append(others, sortPolicies(NewLedger(ledgerOf(ctx).IDs()), desired.Namespace, named, false, false, false).others...)
	if len(others) == 0 {
		return nil, nil
	}
	return netpol.Widenings(desired.Namespace, netpol.Render(desired), others)
}

// all is every NetworkPolicy in ns.
func (t TrainingNetworkPolicies) all(ctx context.Context, ns string) ([]networkingv1.NetworkPolicy, error) {
	byName, ok, err := t.List.Items(ctx)
	if !ok || err != nil {
		list, err := t.API(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("list NetworkPolicies in %s: %w", ns, err)
		}
		return list.Items, nil
	}
	var out []networkingv1.NetworkPolicy
	for key, o := range byName {
		if strings.HasPrefix(key, ns+"/") {
			out = append(out, *o)
		}
	}
	return out, nil
}
