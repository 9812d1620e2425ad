package gcpperm

import (
	"slices"
	"strings"
	"testing"

	_ "cloud.google.com/go/container/apiv1/containerpb" // registers google.container.v1
	_ "cloud.google.com/go/iam/admin/apiv1/adminpb"     // registers google.iam.admin.v1
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Every entry names a method the Google client libraries serve, once, with
// a permission of the service it belongs to; every permission is held by
// one of the documented roles.
func TestTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Table {
		if seen[r.Method] {
			t.Errorf("%s listed twice", r.Method)
		}
		seen[r.Method] = true
		service, method, ok := strings.Cut(strings.TrimPrefix(r.Method, "/"), "/")
		if !ok {
			t.Errorf("%q is not a full gRPC method name", r.Method)
			continue
		}
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
		if err != nil {
			t.Errorf("%s: no such service: %v", r.Method, err)
			continue
		}
		if sd, ok := d.(protoreflect.ServiceDescriptor); !ok || sd.Methods().ByName(protoreflect.Name(method)) == nil {
			t.Errorf("%s: the service has no method %s", r.Method, method)
		}
		prefix := map[string]string{"google.container.v1.ClusterManager": "container.", "google.iam.admin.v1.IAM": "iam.serviceAccounts."}[service]
		for _, p := range r.Permissions {
			if prefix == "" || !strings.HasPrefix(p, prefix) {
				t.Errorf("%s: permission %s is not of its service (%q)", r.Method, p, prefix)
			}
		}
		if len(r.Permissions) == 0 || r.On == "" || r.Why == "" {
			t.Errorf("%s: permissions, resource and reason are all required: %+v", r.Method, r)
		}
	}
	var covered []string
	for _, role := range Roles {
		covered = append(covered, role.Covers...)
	}
	var uncovered []string
	for _, p := range Permissions() {
		if !slices.Contains(covered, p) {
			uncovered = append(uncovered, p)
		}
	}
	if diff := cmp.Diff([]string(nil), uncovered); diff != "" {
		t.Errorf("permissions no documented role holds (-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		method string
		want   []string
	}{
		"node pool create":  {"/google.container.v1.ClusterManager/CreateNodePool", []string{"container.clusters.update"}},
		"node pool list":    {"/google.container.v1.ClusterManager/ListNodePools", []string{"container.clusters.get"}},
		"set policy":        {"/google.iam.admin.v1.IAM/SetIamPolicy", []string{"iam.serviceAccounts.setIamPolicy"}},
		"not called":        {"/google.container.v1.ClusterManager/DeleteCluster", nil},
		"not a method name": {"CreateNodePool", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, _ := Lookup(tc.method)
			if diff := cmp.Diff(tc.want, r.Permissions); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tc.method, diff)
			}
		})
	}
}
