package fakegcp_test

import (
	"context"

	admin "cloud.google.com/go/iam/admin/apiv1"
	adminpb "cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// Exchanges of real IAM traffic, as Config Connector recorded them (REST,
// JSON) in the public repository GoogleCloudPlatform/k8s-config-connector.
// The facts (which fields come back, the error bodies, the policy shapes)
// are taken from the recordings; the values (project, account ids, names,
// descriptions) are ours. Each exchange is sent to the fake the way
// internal/iam sends it, through the official gRPC client.
//
// Each recording is replayed in order on a fresh fake: later exchanges see
// the state the earlier ones made.

const recordedPrefix = "pkg/test/resourcefixture/testdata/basic/iam/v1beta1/"

type recordedExchange struct {
	call string // REST call as recorded, for failure messages
	send func(ctx context.Context, e *env) (proto.Message, error)
	want string // the recorded response body, in our values
}

type recording struct {
	path      string // under recordedPrefix
	setup     func(e *env)
	exchanges []recordedExchange
}

func saResource(email string) string { return "projects/-/serviceAccounts/" + email } // as iam.ServiceAccountResource

func getSA(email string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		return e.ic.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: saResource(email)})
	}
}

func createSAReq(accountID, displayName, description string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		return e.ic.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{
			Name: "projects/" + project, AccountId: accountID,
			ServiceAccount: &adminpb.ServiceAccount{DisplayName: displayName, Description: description},
		})
	}
}

// patchSA reads the account first, as the provider patches with what it
// read (name and etag), and masks the fields it sets.
func patchSA(email, displayName, description string, paths ...string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		sa, err := e.ic.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: saResource(email)})
		if err != nil {
			return nil, err
		}
		return e.ic.PatchServiceAccount(ctx, &adminpb.PatchServiceAccountRequest{
			ServiceAccount: &adminpb.ServiceAccount{Name: sa.GetName(), DisplayName: displayName, Description: description, Etag: sa.GetEtag()},
			UpdateMask:     &fieldmaskpb.FieldMask{Paths: paths},
		})
	}
}

func deleteSA(email string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		if err := e.ic.DeleteServiceAccount(ctx, &adminpb.DeleteServiceAccountRequest{Name: saResource(email)}); err != nil {
			return nil, err
		}
		return &iampb.Policy{}, nil // the recorded body is {}; an empty message marshals so
	}
}

func getPolicy(email string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		p, err := e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: saResource(email)})
		if err != nil {
			return nil, err
		}
		return p.InternalProto, nil
	}
}

// setPolicy writes bindings (role -> members) with the etag of a fresh read,
// at the given policy version, as a read-modify-write does.
func setPolicy(email string, version int32, bindings map[string][]string) func(context.Context, *env) (proto.Message, error) {
	return func(ctx context.Context, e *env) (proto.Message, error) {
		cur, err := e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: saResource(email)})
		if err != nil {
			return nil, err
		}
		in := &iampb.Policy{Version: version, Etag: cur.InternalProto.GetEtag()}
		for role, members := range bindings {
			in.Bindings = append(in.Bindings, &iampb.Binding{Role: role, Members: members})
		}
		p := cur
		p.InternalProto = in
		out, err := e.ic.SetIamPolicy(ctx, &admin.SetIamPolicyRequest{Resource: saResource(email), Policy: p})
		if err != nil {
			return nil, err
		}
		return out.InternalProto, nil
	}
}

const (
	basicEmail   = "trainer-basic@" + project + ".iam.gserviceaccount.com"
	fullEmail    = "trainer-full@" + project + ".iam.gserviceaccount.com"
	minimalEmail = "trainer-min@" + project + ".iam.gserviceaccount.com"
	policyEmail  = "trainer-pol@" + project + ".iam.gserviceaccount.com"
)

// notFoundBody is the recorded answer to a GET of an account that does not
// exist (the same in all three service-account recordings).
const notFoundBody = `{"error": {"code": 404, "errors": [{"domain": "global", "message": "Unknown service account", "reason": "notFound"}],
	"message": "Unknown service account", "status": "NOT_FOUND"}}`

var recordings = []recording{
	{
		path: "iamserviceaccount/iamserviceaccount/_http.log",
		exchanges: []recordedExchange{
			{"GET serviceAccounts/EMAIL (absent)", getSA(basicEmail), notFoundBody},
			{"POST serviceAccounts {accountId, serviceAccount{displayName}}", createSAReq("trainer-basic", "Trainers", ""),
				`{"displayName": "Trainers", "email": "` + basicEmail + `", "etag": "E", "name": "projects/` + project + `/serviceAccounts/` + basicEmail + `",
				  "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"GET serviceAccounts/EMAIL", getSA(basicEmail),
				`{"displayName": "Trainers", "email": "` + basicEmail + `", "etag": "E", "name": "projects/` + project + `/serviceAccounts/` + basicEmail + `",
				  "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			// The answer to a patch holds the name and the patched fields only.
			{"PATCH serviceAccounts/EMAIL {displayName, etag} updateMask=display_name", patchSA(basicEmail, "Trainers 2", "", "display_name"),
				`{"displayName": "Trainers 2", "name": "projects/` + project + `/serviceAccounts/` + basicEmail + `"}`},
			{"GET serviceAccounts/EMAIL (after patch)", getSA(basicEmail),
				`{"displayName": "Trainers 2", "email": "` + basicEmail + `", "etag": "E", "name": "projects/` + project + `/serviceAccounts/` + basicEmail + `",
				  "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"DELETE serviceAccounts/EMAIL", deleteSA(basicEmail), `{}`},
		},
	},
	{
		path: "iamserviceaccount/iamserviceaccount-full/_http.log",
		exchanges: []recordedExchange{
			{"GET serviceAccounts/EMAIL (absent)", getSA(fullEmail), notFoundBody},
			{"POST serviceAccounts {accountId, serviceAccount{displayName, description}}", createSAReq("trainer-full", "Full trainers", "Trains everything."),
				`{"description": "Trains everything.", "displayName": "Full trainers", "email": "` + fullEmail + `", "etag": "E",
				  "name": "projects/` + project + `/serviceAccounts/` + fullEmail + `", "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"GET serviceAccounts/EMAIL", getSA(fullEmail),
				`{"description": "Trains everything.", "displayName": "Full trainers", "email": "` + fullEmail + `", "etag": "E",
				  "name": "projects/` + project + `/serviceAccounts/` + fullEmail + `", "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			// The provider's mask (display_name, description), as recorded.
			{"PATCH serviceAccounts/EMAIL {displayName, description, etag} updateMask=description,display_name",
				patchSA(fullEmail, "Full trainers 2", "Trains everything, again.", "display_name", "description"),
				`{"description": "Trains everything, again.", "displayName": "Full trainers 2", "name": "projects/` + project + `/serviceAccounts/` + fullEmail + `"}`},
			{"GET serviceAccounts/EMAIL (after patch)", getSA(fullEmail),
				`{"description": "Trains everything, again.", "displayName": "Full trainers 2", "email": "` + fullEmail + `", "etag": "E",
				  "name": "projects/` + project + `/serviceAccounts/` + fullEmail + `", "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"DELETE serviceAccounts/EMAIL", deleteSA(fullEmail), `{}`},
		},
	},
	{
		// Created with no display name or description: neither comes back.
		path: "iampartialpolicy/_http.log",
		exchanges: []recordedExchange{
			{"GET serviceAccounts/EMAIL (absent)", getSA(minimalEmail), notFoundBody},
			{"POST serviceAccounts {accountId, serviceAccount{}}", createSAReq("trainer-min", "", ""),
				`{"email": "` + minimalEmail + `", "etag": "E", "name": "projects/` + project + `/serviceAccounts/` + minimalEmail + `",
				  "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"GET serviceAccounts/EMAIL", getSA(minimalEmail),
				`{"email": "` + minimalEmail + `", "etag": "E", "name": "projects/` + project + `/serviceAccounts/` + minimalEmail + `",
				  "oauth2ClientId": "1", "projectId": "` + project + `", "uniqueId": "1"}`},
			{"DELETE serviceAccounts/EMAIL", deleteSA(minimalEmail), `{}`},
		},
	},
	{
		// The recording is of a Pub/Sub topic's policy: the same
		// google.iam.v1 getIamPolicy/setIamPolicy surface a service account
		// has (Config Connector records no service account policy). Our
		// values: the provider's role and a Workload Identity member, on a
		// service account.
		path: "iampolicymember/serviceaccountstring/_http.log",
		setup: func(e *env) {
			e.srv.Container.AddCluster(project, location, "c", true)
			if _, err := e.srv.IAM.AddServiceAccount(project, "trainer-pol", "Trainers"); err != nil {
				panic(err)
			}
		},
		exchanges: []recordedExchange{
			// A policy never written: its etag and nothing else (no version).
			{":getIamPolicy (never written)", getPolicy(policyEmail), `{"etag": "E"}`},
			// Written at version 3 with no conditions: version 1 comes back.
			{":setIamPolicy {bindings, etag, version: 3}", setPolicy(policyEmail, 3, map[string][]string{wiRole: {wiMember}}),
				`{"bindings": [{"members": ["` + wiMember + `"], "role": "` + wiRole + `"}], "etag": "E", "version": 1}`},
			{":getIamPolicy", getPolicy(policyEmail),
				`{"bindings": [{"members": ["` + wiMember + `"], "role": "` + wiRole + `"}], "etag": "E", "version": 1}`},
			// The last member removed: no bindings at all, version 1.
			{":setIamPolicy {etag, version: 1}", setPolicy(policyEmail, 1, nil), `{"etag": "E", "version": 1}`},
			{":getIamPolicy (emptied)", getPolicy(policyEmail), `{"etag": "E", "version": 1}`},
		},
	},
}

const (
	wiRole   = "roles/iam.workloadIdentityUser"
	wiMember = "serviceAccount:" + project + ".svc.id.goog[ml/trainer]"
)
