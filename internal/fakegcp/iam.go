package fakegcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"sync"

	adminpb "cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

var _ adminpb.IAMServer = (*IAM)(nil)

// IAM fakes the parts of google.iam.admin.v1.IAM a Workload Identity setup
// needs: service accounts and their IAM policies (etag read-modify-write).
type IAM struct {
	adminpb.UnimplementedIAMServer

	// PoolExists decides whether a Workload Identity pool (PROJECT.svc.id.goog)
	// exists; New wires it to Container.HasWorkloadPool. nil = every pool
	// exists. Use SetPoolExists while the server runs.
	PoolExists func(pool string) bool

	mu       sync.Mutex
	accounts map[string]*adminpb.ServiceAccount // key: email
	policies map[string]*iampb.Policy           // key: email
}

func newIAM() *IAM {
	return &IAM{accounts: map[string]*adminpb.ServiceAccount{}, policies: map[string]*iampb.Policy{}}
}

// SetPoolExists replaces PoolExists race-free.
func (s *IAM) SetPoolExists(f func(pool string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.PoolExists = f
}

var (
	accountIDRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{4,28}[a-z0-9])$`)
	saNameRE    = regexp.MustCompile(`^projects/([^/]+)/serviceAccounts/([^/]+)$`)
	wiMemberRE  = regexp.MustCompile(`^serviceAccount:([a-z0-9-]+)\.svc\.id\.goog\[([a-z0-9]([-a-z0-9]*[a-z0-9])?)/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)\]$`)
)

// emptyEtag is what real IAM returns for a resource that never had a policy.
var emptyEtag = []byte{0x00, 0x20, 0x01} // base64 "ACAB"

func newEtag() []byte {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	b[0], b[1] = 0x07, 0x05 // real IAM etags start with \007\005 (BwX... in base64)
	return b
}

// AddServiceAccount seeds a service account ACCOUNT_ID@PROJECT.iam.gserviceaccount.com.
func (s *IAM) AddServiceAccount(project, accountID, displayName string) (*adminpb.ServiceAccount, error) {
	return s.CreateServiceAccount(context.Background(), &adminpb.CreateServiceAccountRequest{
		Name: "projects/" + project, AccountId: accountID,
		ServiceAccount: &adminpb.ServiceAccount{DisplayName: displayName},
	})
}

func (s *IAM) lookupLocked(name string) (*adminpb.ServiceAccount, error) {
	m := saNameRE.FindStringSubmatch(name)
	if m == nil {
		return nil, status.Errorf(codes.InvalidArgument, "Invalid form of account ID %s. Should be [Gaia ID |Email |Unique ID |] of the account", name)
	}
	if sa, ok := s.accounts[m[2]]; ok && (m[1] == "-" || m[1] == sa.ProjectId) {
		return sa, nil
	}
	for _, sa := range s.accounts { // lookup by unique id
		if sa.UniqueId == m[2] {
			return sa, nil
		}
	}
	return nil, status.Errorf(codes.NotFound, "Unknown service account")
}

func (s *IAM) CreateServiceAccount(ctx context.Context, req *adminpb.CreateServiceAccountRequest) (*adminpb.ServiceAccount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	project, ok := strings.CutPrefix(req.GetName(), "projects/")
	if !ok || project == "" || strings.Contains(project, "/") {
		return nil, status.Errorf(codes.InvalidArgument, "Invalid project resource name %q", req.GetName())
	}
	if !accountIDRE.MatchString(req.GetAccountId()) {
		return nil, status.Errorf(codes.InvalidArgument, "Invalid account ID %q: must be 6-30 characters, [a-z][-a-z0-9]*[a-z0-9].", req.GetAccountId())
	}
	email := fmt.Sprintf("%s@%s.iam.gserviceaccount.com", req.GetAccountId(), project)
	if _, exists := s.accounts[email]; exists {
		return nil, status.Errorf(codes.AlreadyExists, "Service account %s already exists within project projects/%s.", req.GetAccountId(), project)
	}
	uid, _ := rand.Int(rand.Reader, new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
	sa := &adminpb.ServiceAccount{
		Name:        fmt.Sprintf("projects/%s/serviceAccounts/%s", project, email),
		ProjectId:   project,
		UniqueId:    fmt.Sprintf("1%020d", uid),
		Email:       email,
		DisplayName: req.GetServiceAccount().GetDisplayName(),
		Description: req.GetServiceAccount().GetDescription(),
		Etag:        newEtag(),
	}
	sa.Oauth2ClientId = sa.UniqueId
	s.accounts[email] = sa
	return proto.Clone(sa).(*adminpb.ServiceAccount), nil
}

func (s *IAM) GetServiceAccount(ctx context.Context, req *adminpb.GetServiceAccountRequest) (*adminpb.ServiceAccount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, err := s.lookupLocked(req.GetName())
	if err != nil {
		return nil, err
	}
	return proto.Clone(sa).(*adminpb.ServiceAccount), nil
}

// ListServiceAccounts returns a project's accounts by e-mail, a page at a
// time as IAM does: page_size defaults to 20 and is capped at 100, and
// next_page_token (empty on the last page) continues after the page's last
// account, so accounts created or deleted between pages neither repeat nor
// shift the rest.
func (s *IAM) ListServiceAccounts(ctx context.Context, req *adminpb.ListServiceAccountsRequest) (*adminpb.ListServiceAccountsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	project, ok := strings.CutPrefix(req.GetName(), "projects/")
	if !ok || project == "" || strings.Contains(project, "/") {
		return nil, status.Errorf(codes.InvalidArgument, "Invalid project resource name %q", req.GetName())
	}
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, status.Errorf(codes.InvalidArgument, "Invalid page size %d: must not be negative.", size)
	case size == 0:
		size = 20
	case size > 100:
		size = 100
	}
	after := ""
	if tok := req.GetPageToken(); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || !strings.HasPrefix(string(b), "after:") {
			return nil, status.Errorf(codes.InvalidArgument, "Invalid page token %q.", tok)
		}
		after = strings.TrimPrefix(string(b), "after:")
	}
	var accounts []*adminpb.ServiceAccount
	for _, sa := range s.accounts {
		if sa.ProjectId == project && sa.Email > after {
			accounts = append(accounts, sa)
		}
	}
	sort.Slice(accounts, func(i, j int) bool { return accounts[i].Email < accounts[j].Email })
	resp := &adminpb.ListServiceAccountsResponse{}
	if len(accounts) > size {
		accounts = accounts[:size]
		resp.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte("after:" + accounts[size-1].Email))
	}
	for _, sa := range accounts {
		resp.Accounts = append(resp.Accounts, proto.Clone(sa).(*adminpb.ServiceAccount))
	}
	return resp, nil
}

// PatchServiceAccount updates display_name and description, the fields
// IAM lets a patch change; update_mask is required. Like IAM it answers
// with the account's name and the patched fields only (recorded in
// k8s-config-connector pkg/test/resourcefixture/testdata/basic/iam/v1beta1/
// iamserviceaccount/{iamserviceaccount,iamserviceaccount-full}/_http.log):
// a caller wanting the whole account, etag included, reads it again.
func (s *IAM) PatchServiceAccount(ctx context.Context, req *adminpb.PatchServiceAccountRequest) (*adminpb.ServiceAccount, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, err := s.lookupLocked(req.GetServiceAccount().GetName())
	if err != nil {
		return nil, err
	}
	if len(req.GetUpdateMask().GetPaths()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "update_mask is required.")
	}
	for _, p := range req.GetUpdateMask().GetPaths() {
		switch p {
		case "display_name", "displayName", "description":
		default:
			return nil, status.Errorf(codes.InvalidArgument, "Invalid update_mask path %q: only display_name and description can be updated.", p)
		}
	}
	out := &adminpb.ServiceAccount{Name: sa.Name}
	for _, p := range req.GetUpdateMask().GetPaths() {
		switch p {
		case "display_name", "displayName":
			sa.DisplayName = req.GetServiceAccount().GetDisplayName()
			out.DisplayName = sa.DisplayName
		case "description":
			sa.Description = req.GetServiceAccount().GetDescription()
			out.Description = sa.Description
		}
	}
	sa.Etag = newEtag()
	return out, nil
}

func (s *IAM) DeleteServiceAccount(ctx context.Context, req *adminpb.DeleteServiceAccountRequest) (*emptypb.Empty, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, err := s.lookupLocked(req.GetName())
	if err != nil {
		return nil, err
	}
	delete(s.accounts, sa.Email)
	delete(s.policies, sa.Email)
	return &emptypb.Empty{}, nil
}

func (s *IAM) GetIamPolicy(ctx context.Context, req *iampb.GetIamPolicyRequest) (*iampb.Policy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, err := s.lookupLocked(req.GetResource())
	if err != nil {
		return nil, err
	}
	if p, ok := s.policies[sa.Email]; ok {
		return proto.Clone(p).(*iampb.Policy), nil
	}
	// A policy never written is its etag alone, no version (recorded in
	// k8s-config-connector pkg/test/resourcefixture/testdata/basic/iam/v1beta1/
	// iampolicymember/serviceaccountstring/_http.log); once written, even
	// emptied, it has version 1.
	return &iampb.Policy{Etag: emptyEtag}, nil
}

// SetIamPolicy replaces the policy. A non-empty etag must match the current
// one (else Aborted); an empty etag is a blind write.
func (s *IAM) SetIamPolicy(ctx context.Context, req *iampb.SetIamPolicyRequest) (*iampb.Policy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, err := s.lookupLocked(req.GetResource())
	if err != nil {
		return nil, err
	}
	cur := &iampb.Policy{Version: 1, Etag: emptyEtag}
	if p, ok := s.policies[sa.Email]; ok {
		cur = p
	}
	in := req.GetPolicy()
	if len(in.GetEtag()) > 0 && !bytes.Equal(in.GetEtag(), cur.Etag) {
		return nil, status.Errorf(codes.Aborted,
			"There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff. The request's ETag '%q' did not match the current policy's ETag '%q'.",
			in.GetEtag(), cur.Etag)
	}
	out := &iampb.Policy{Version: 1, Etag: newEtag()}
	for _, b := range in.GetBindings() {
		if !strings.HasPrefix(b.Role, "roles/") && !strings.Contains(b.Role, "/roles/") {
			return nil, status.Errorf(codes.InvalidArgument, "Role (%s) does not exist in the resource's hierarchy.", b.Role)
		}
		if b.Condition != nil {
			if in.Version != 3 {
				return nil, status.Error(codes.InvalidArgument, "Conditional bindings require policy version 3.")
			}
			out.Version = 3
		}
		members := append([]string(nil), b.Members...)
		for _, m := range members {
			if err := s.validateMemberLocked(m); err != nil {
				return nil, err
			}
		}
		if len(members) == 0 {
			continue // IAM drops empty bindings
		}
		sort.Strings(members)
		out.Bindings = append(out.Bindings, &iampb.Binding{Role: b.Role, Members: members, Condition: b.Condition})
	}
	sort.SliceStable(out.Bindings, func(i, j int) bool { return out.Bindings[i].Role < out.Bindings[j].Role })
	s.policies[sa.Email] = out
	return proto.Clone(out).(*iampb.Policy), nil
}

func (s *IAM) validateMemberLocked(m string) error {
	switch {
	case m == "allUsers" || m == "allAuthenticatedUsers":
		return nil
	case strings.HasPrefix(m, "serviceAccount:") && strings.Contains(m, ".svc.id.goog"):
		sm := wiMemberRE.FindStringSubmatch(m)
		if sm == nil {
			return status.Errorf(codes.InvalidArgument, "Invalid service account (%s).", strings.TrimPrefix(m, "serviceAccount:"))
		}
		pool := sm[1] + ".svc.id.goog"
		if s.PoolExists != nil && !s.PoolExists(pool) {
			return status.Errorf(codes.InvalidArgument, "Identity Pool does not exist (%s). Please check that you specified a valid resource name as returned in the `name` attribute in the configuration API.", pool)
		}
		return nil
	case strings.HasPrefix(m, "serviceAccount:"), strings.HasPrefix(m, "user:"), strings.HasPrefix(m, "group:"),
		strings.HasPrefix(m, "domain:"), strings.HasPrefix(m, "principal:"), strings.HasPrefix(m, "principalSet:"), strings.HasPrefix(m, "deleted:"):
		if strings.HasSuffix(m, ":") {
			return status.Errorf(codes.InvalidArgument, "Invalid member %q.", m)
		}
		return nil
	}
	return status.Errorf(codes.InvalidArgument, "Invalid member type for %q.", m)
}
