package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorkloadIdentityValidate(t *testing.T) {
	t.Parallel()
	base := func(f func(*WorkloadIdentity)) WorkloadIdentity {
		w := WorkloadIdentity{Project: "ml-prod", Namespace: "vision", KSA: "trainer", CreateKSA: true,
			Mode: ModeGoogleServiceAccount, GSAEmail: "trainer@ml-prod.iam.gserviceaccount.com"}
		if f != nil {
			f(&w)
		}
		return w
	}
	created := &GoogleServiceAccount{AccountID: "vision-trainer", DisplayName: "Vision trainer"}
	cases := map[string]struct {
		in   WorkloadIdentity
		want []string
	}{
		"existing GSA":           {in: base(nil)},
		"created GSA":            {in: base(func(w *WorkloadIdentity) { w.GSAEmail, w.CreateGSA = "", created })},
		"compute default GSA":    {in: base(func(w *WorkloadIdentity) { w.GSAEmail = "123456789012-compute@developer.gserviceaccount.com" })},
		"direct":                 {in: base(func(w *WorkloadIdentity) { w.Mode, w.GSAEmail, w.ProjectNumber = ModeDirect, "", "123456789012" })},
		"domain-scoped":          {in: base(func(w *WorkloadIdentity) { w.Project = "example.com:ml-prod" })},
		"GSA of another project": {in: base(func(w *WorkloadIdentity) { w.GSAEmail = "reader@shared-models.iam.gserviceaccount.com" })},
		"App Engine default GSA": {in: base(func(w *WorkloadIdentity) { w.GSAEmail = "ml-prod@appspot.gserviceaccount.com" })},
		"adopted default KSA":    {in: base(func(w *WorkloadIdentity) { w.KSA, w.CreateKSA = "default", false })},
		"dotted KSA":             {in: base(func(w *WorkloadIdentity) { w.KSA = "vision.trainer" })},
		"30-character IDs": {in: base(func(w *WorkloadIdentity) {
			w.Project, w.GSAEmail = "a"+strings.Repeat("b", 29), ""
			w.CreateGSA = &GoogleServiceAccount{AccountID: "a" + strings.Repeat("b", 29)}
		})},
		"limits in bytes": {in: base(func(w *WorkloadIdentity) {
			w.GSAEmail = ""
			w.CreateGSA = &GoogleServiceAccount{AccountID: "vision-trainer", DisplayName: strings.Repeat("é", 50), Description: strings.Repeat("d", MaxGSAConfiguredDescription)}
		})},
		"direct with number in GSA mode": {in: base(func(w *WorkloadIdentity) { w.ProjectNumber = "123456789012" })},
		"no project":                     {in: base(func(w *WorkloadIdentity) { w.Project = "" }), want: []string{"project: Missing Project"}},
		"created default KSA": {in: base(func(w *WorkloadIdentity) { w.KSA = "default" }),
			want: []string{"kubernetes_service_account: Default Service Account Cannot Be Created"}},
		"domain-scoped, bad domain": {in: base(func(w *WorkloadIdentity) { w.Project = "Example.com:ml-prod" }), want: []string{"project: Invalid Project"}},
		"project number too big":    {in: base(func(w *WorkloadIdentity) { w.ProjectNumber = "99999999999999999999" }), want: []string{"project_number: Invalid Project Number"}},
		"long display name": {in: base(func(w *WorkloadIdentity) {
			w.GSAEmail, w.CreateGSA = "", &GoogleServiceAccount{AccountID: "vision-trainer", DisplayName: strings.Repeat("é", 51)}
		}), want: []string{"create_google_service_account.display_name: Display Name Too Long"}},
		"long description": {in: base(func(w *WorkloadIdentity) {
			w.GSAEmail, w.CreateGSA = "", &GoogleServiceAccount{AccountID: "vision-trainer", Description: strings.Repeat("d", MaxGSAConfiguredDescription+1)}
		}), want: []string{"create_google_service_account.description: Description Too Long"}},
		"each mistake of a created GSA": {in: base(func(w *WorkloadIdentity) {
			w.GSAEmail, w.CreateGSA = "", &GoogleServiceAccount{AccountID: "ML", DisplayName: strings.Repeat("x", 101)}
		}), want: []string{"create_google_service_account.account_id: Invalid Account ID", "create_google_service_account.display_name: Display Name Too Long"}},
		"direct with GSA, no number": {in: base(func(w *WorkloadIdentity) { w.Mode = ModeDirect }),
			want: []string{"google_service_account: Google Service Account In Direct Mode"}},
		"bad mode, nothing else": {in: base(func(w *WorkloadIdentity) { w.Mode, w.GSAEmail = "Direct", "" }), want: []string{"mode: Invalid Mode"}},
		"project number as id":   {in: base(func(w *WorkloadIdentity) { w.Project = "123456789012" }), want: []string{"project: Invalid Project"}},
		"bad project number":     {in: base(func(w *WorkloadIdentity) { w.ProjectNumber = "ml-prod" }), want: []string{"project_number: Invalid Project Number"}},
		"bad namespace":          {in: base(func(w *WorkloadIdentity) { w.Namespace = "Vision" }), want: []string{"namespace: Invalid Namespace"}},
		"bad KSA":                {in: base(func(w *WorkloadIdentity) { w.KSA = "Trainer_1" }), want: []string{"kubernetes_service_account: Invalid Kubernetes Service Account Name"}},
		"bad mode":               {in: base(func(w *WorkloadIdentity) { w.Mode = "impersonate" }), want: []string{"mode: Invalid Mode"}},
		"no GSA":                 {in: base(func(w *WorkloadIdentity) { w.GSAEmail = "" }), want: []string{"google_service_account: Missing Google Service Account"}},
		"both GSAs": {in: base(func(w *WorkloadIdentity) { w.CreateGSA = created }),
			want: []string{"create_google_service_account: Conflicting Google Service Accounts"}},
		"user e-mail as GSA": {in: base(func(w *WorkloadIdentity) { w.GSAEmail = "alice@example.com" }),
			want: []string{"google_service_account: Invalid Google Service Account"}},
		"short account id": {in: base(func(w *WorkloadIdentity) { w.GSAEmail, w.CreateGSA = "", &GoogleServiceAccount{AccountID: "ml"} }),
			want: []string{"create_google_service_account.account_id: Invalid Account ID"}},
		"direct with GSA": {in: base(func(w *WorkloadIdentity) { w.Mode, w.ProjectNumber = ModeDirect, "1" }),
			want: []string{"google_service_account: Google Service Account In Direct Mode"}},
		"direct without number": {in: base(func(w *WorkloadIdentity) { w.Mode, w.GSAEmail = ModeDirect, "" }),
			want: []string{"project_number: Missing Project Number"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range tc.in.Validate() {
				got = append(got, e.Path.String()+": "+e.Summary)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorkloadIdentityNames(t *testing.T) {
	t.Parallel()
	w := WorkloadIdentity{Project: "ml-prod", ProjectNumber: "123456789012", Namespace: "vision", KSA: "trainer",
		Mode: ModeGoogleServiceAccount, CreateGSA: &GoogleServiceAccount{AccountID: "vision-trainer"}}
	got := []string{w.Member(), w.Principal(), w.GSA(), w.WorkloadPool()}
	want := []string{
		"serviceAccount:ml-prod.svc.id.goog[vision/trainer]",
		"principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/ml-prod.svc.id.goog/subject/ns/vision/sa/trainer",
		"vision-trainer@ml-prod.iam.gserviceaccount.com",
		"ml-prod.svc.id.goog",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	w.Mode = ModeDirect
	if w.GSA() != "" {
		t.Errorf("GSA in direct mode = %q, want none", w.GSA())
	}
}
