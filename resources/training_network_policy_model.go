package resources

import (
	"context"
	"math"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type trainingNetworkPolicyModel struct {
	ID                    types.String `tfsdk:"id"`
	Namespace             types.String `tfsdk:"namespace"`
	AllowSameNamespace    types.Bool   `tfsdk:"allow_same_namespace"`
	DNS                   types.Bool   `tfsdk:"dns"`
	MetadataServer        types.Bool   `tfsdk:"metadata_server"`
	GoogleAPIs            types.String `tfsdk:"google_apis"`
	PublicHTTPSEgress     types.Bool   `tfsdk:"public_https_egress"`
	ExtraEgress           types.List   `tfsdk:"extra_egress"`
	IngressFromNamespaces types.Map    `tfsdk:"ingress_from_namespaces"`
	Policies              types.Map    `tfsdk:"policies"`
}

type extraEgressModel struct {
	CIDRs    types.List   `tfsdk:"cidrs"`
	Ports    types.List   `tfsdk:"ports"`
	Protocol types.String `tfsdk:"protocol"`
}

type ingressFromNamespaceModel struct {
	Ports types.List `tfsdk:"ports"`
}

var (
	portsType       = types.ListType{ElemType: types.Int64Type}
	extraEgressType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"cidrs": types.ListType{ElemType: types.StringType}, "ports": portsType, "protocol": types.StringType,
	}}
	ingressFromNamespaceType = types.ObjectType{AttrTypes: map[string]attr.Type{"ports": portsType}}
)

// toSpec converts a plan or a configuration; null (left out) means the default.
func (m trainingNetworkPolicyModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.TrainingNetworkPolicy {
	s := spec.DefaultTrainingNetworkPolicy(m.Namespace.ValueString())
	s.AllowSameNamespace = boolOr(m.AllowSameNamespace, s.AllowSameNamespace)
	s.DNS = boolOr(m.DNS, s.DNS)
	s.MetadataServer = boolOr(m.MetadataServer, s.MetadataServer)
	s.PublicHTTPSEgress = boolOr(m.PublicHTTPSEgress, s.PublicHTTPSEgress)
	if !m.GoogleAPIs.IsNull() && !m.GoogleAPIs.IsUnknown() {
		s.GoogleAPIs = m.GoogleAPIs.ValueString()
	}
	if !m.ExtraEgress.IsNull() && !m.ExtraEgress.IsUnknown() {
		var rules []extraEgressModel
		diags.Append(elementsInto(m.ExtraEgress.Elements(), &rules)...)
		for _, r := range rules {
			e := spec.EgressRule{Ports: portsOf(ctx, r.Ports, diags), Protocol: "TCP"}
			e.CIDRs = stringList(ctx, r.CIDRs, diags)
			if !r.Protocol.IsNull() && !r.Protocol.IsUnknown() {
				e.Protocol = r.Protocol.ValueString()
			}
			s.ExtraEgress = append(s.ExtraEgress, e)
		}
	}
	if !m.IngressFromNamespaces.IsNull() && !m.IngressFromNamespaces.IsUnknown() {
		var in map[string]ingressFromNamespaceModel
		diags.Append(mapInto(m.IngressFromNamespaces, &in)...)
		s.IngressFromNamespaces = map[string][]int32{}
		for ns, v := range in {
			s.IngressFromNamespaces[ns] = portsOf(ctx, v.Ports, diags)
		}
	}
	return s
}

func portsOf(ctx context.Context, l types.List, diags *diag.Diagnostics) []int32 {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var vs []types.Int64
	diags.Append(elementsInto(l.Elements(), &vs)...)
	out := make([]int32, 0, len(vs))
	for _, v := range vs {
		if v.IsNull() || v.IsUnknown() {
			continue
		}
		p := v.ValueInt64()
		p = min(max(p, math.MinInt32), math.MaxInt32) // Validate reports anything outside 1–65535
		out = append(out, int32(p))
	}
	return out
}

// known says which attributes are fully known, for plan-time validation.
func (m trainingNetworkPolicyModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

// plannedPolicies is the policies attribute the configuration leads to:
// the hash of each object netpol.Render makes of it.
func (m trainingNetworkPolicyModel) plannedPolicies(ctx context.Context, diags *diag.Diagnostics) types.Map {
	if !m.configKnown(ctx) {
		return types.MapUnknown(types.StringType)
	}
	return policiesValue(ctx, netpol.Hashes(netpol.Render(m.toSpec(ctx, diags))), diags)
}

// configKnown reports whether every configured attribute is fully known,
// so the spec is what apply will write.
func (m trainingNetworkPolicyModel) configKnown(ctx context.Context) bool {
	for _, v := range []attr.Value{m.Namespace, m.AllowSameNamespace, m.DNS, m.MetadataServer, m.GoogleAPIs, m.PublicHTTPSEgress, m.ExtraEgress, m.IngressFromNamespaces} {
		if !fullyKnown(ctx, v) {
			return false
		}
	}
	return true
}

func policiesValue(_ context.Context, h map[string]string, _ *diag.Diagnostics) types.Map {
	if h == nil {
		h = map[string]string{}
	}
	return stringMapValue(h)
}

// trainingNetworkPolicyState is what the server holds. Empty lists read as
// null unless prior has them empty (so `[]` and left-out both stay stable).
func trainingNetworkPolicyState(ctx context.Context, s spec.TrainingNetworkPolicy, prior trainingNetworkPolicyModel, diags *diag.Diagnostics) trainingNetworkPolicyModel {
	m := trainingNetworkPolicyModel{
		ID:                 types.StringValue(s.Namespace),
		Namespace:          types.StringValue(s.Namespace),
		AllowSameNamespace: types.BoolValue(s.AllowSameNamespace),
		DNS:                types.BoolValue(s.DNS),
		MetadataServer:     types.BoolValue(s.MetadataServer),
		GoogleAPIs:         types.StringValue(s.GoogleAPIs),
		PublicHTTPSEgress:  types.BoolValue(s.PublicHTTPSEgress),
		Policies:           policiesValue(ctx, s.Rendered, diags),
	}
	var priorRules []extraEgressModel
	if !prior.ExtraEgress.IsNull() && !prior.ExtraEgress.IsUnknown() {
		diags.Append(elementsInto(prior.ExtraEgress.Elements(), &priorRules)...)
	}
	if len(s.ExtraEgress) == 0 {
		m.ExtraEgress = types.ListNull(extraEgressType)
		if !prior.ExtraEgress.IsNull() && !prior.ExtraEgress.IsUnknown() && len(prior.ExtraEgress.Elements()) == 0 {
			m.ExtraEgress = types.ListValueMust(extraEgressType, []attr.Value{})
		}
	} else {
		rules := make([]attr.Value, 0, len(s.ExtraEgress))
		for i, r := range s.ExtraEgress {
			priorPorts := types.ListNull(types.Int64Type)
			if i < len(priorRules) {
				priorPorts = priorRules[i].Ports
			}
			rules = append(rules, types.ObjectValueMust(extraEgressType.AttrTypes, map[string]attr.Value{
				"cidrs": stringListValue(nonNil(r.CIDRs)), "ports": portsState(r.Ports, priorPorts), "protocol": types.StringValue(r.Protocol),
			}))
		}
		m.ExtraEgress = types.ListValueMust(extraEgressType, rules)
	}
	var priorIn map[string]ingressFromNamespaceModel
	if !prior.IngressFromNamespaces.IsNull() && !prior.IngressFromNamespaces.IsUnknown() {
		diags.Append(mapInto(prior.IngressFromNamespaces, &priorIn)...)
	}
	if len(s.IngressFromNamespaces) == 0 {
		m.IngressFromNamespaces = types.MapNull(ingressFromNamespaceType)
		if !prior.IngressFromNamespaces.IsNull() && !prior.IngressFromNamespaces.IsUnknown() && len(prior.IngressFromNamespaces.Elements()) == 0 {
			m.IngressFromNamespaces = types.MapValueMust(ingressFromNamespaceType, map[string]attr.Value{})
		}
	} else {
		in := make(map[string]attr.Value, len(s.IngressFromNamespaces))
		for ns, ports := range s.IngressFromNamespaces {
			priorPorts := types.ListNull(types.Int64Type)
			if p, ok := priorIn[ns]; ok {
				priorPorts = p.Ports
			}
			in[ns] = types.ObjectValueMust(ingressFromNamespaceType.AttrTypes, map[string]attr.Value{"ports": portsState(ports, priorPorts)})
		}
		m.IngressFromNamespaces = types.MapValueMust(ingressFromNamespaceType, in)
	}
	return m
}

func portsState(ports []int32, prior types.List) types.List {
	if len(ports) == 0 && (prior.IsNull() || prior.IsUnknown() || len(prior.Elements()) > 0) {
		return types.ListNull(types.Int64Type)
	}
	vs := make([]attr.Value, 0, len(ports))
	for _, p := range ports {
		vs = append(vs, types.Int64Value(int64(p)))
	}
	return types.ListValueMust(types.Int64Type, vs)
}
