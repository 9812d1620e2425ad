package resources_test

import "strings"

// Workload Identity, from the rules of the APIs it writes to:
//   - project: Resource Manager's project ID, 6 to 30 lower-case letters,
//     digits and '-', starting with a letter, not ending with '-' (or
//     DOMAIN:ID); project_number: digits (an int64).
//   - namespace: a DNS-1123 label; kubernetes_service_account: a DNS-1123
//     subdomain (Kubernetes' ValidateNamespaceName and
//     ValidateServiceAccountName); "default" exists in every namespace, so
//     it cannot be created.
//   - mode: google_service_account or direct; direct takes project_number
//     and no Google service account; otherwise exactly one of
//     google_service_account and create_google_service_account.
//   - google_service_account: a service account's e-mail (it ends in
//     .gserviceaccount.com; any project).
//   - create_google_service_account (IAM): account_id 6 to 30 lower-case
//     letters, digits and '-', starting with a letter and ending with a
//     letter or digit; display_name at most 100 UTF-8 bytes; description
//     at most 256 UTF-8 bytes with the provider's marker appended.
func init() {
	created := map[string]any{"account_id": "vision-trainer", "display_name": "Vision trainer", "description": "Runs the vision team's training jobs"}
	gsa := func(kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range created {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(out, kv[i].(string))
			} else {
				out[kv[i].(string)] = kv[i+1]
			}
		}
		return map[string]any{"create_google_service_account": out}
	}
	existing := func(email string) map[string]any {
		return map[string]any{"create_google_service_account": nil, "google_service_account": email}
	}
	badInputs["mlplatform_workload_identity"] = badInput{
		valid: map[string]any{"namespace": "vision", "kubernetes_service_account": "trainer", "create_google_service_account": created},
		cases: map[string]badCase{
			// project
			"project too short":         {set: map[string]any{"project": "ml"}, path: "project", want: `(?s)Invalid Project.*2 characters long; the minimum is 6`},
			"project too long":          {set: map[string]any{"project": "a" + strings.Repeat("b", 30)}, path: "project", want: `(?s)Invalid Project.*31 characters long; the limit is 30`},
			"project with upper case":   {set: map[string]any{"project": "ML-Prod"}, path: "project", want: `(?s)Invalid Project.*upper-case.*e\.g\. "ml-prod"`},
			"project with underscore":   {set: map[string]any{"project": "ml_prod"}, path: "project", want: `(?s)Invalid Project.*contains '_'`},
			"project starting with 1":   {set: map[string]any{"project": "1ml-prod"}, path: "project", want: `(?s)Invalid Project.*must start with a letter`},
			"project ending with -":     {set: map[string]any{"project": "ml-prod-"}, path: "project", want: `(?s)Invalid Project.*must not end with '-'`},
			"project number as project": {set: map[string]any{"project": "123456789012"}, path: "project", want: `(?s)Invalid Project.*is a project number; project takes the project ID`},
			"project display name":      {set: map[string]any{"project": "ML Prod"}, path: "project", want: `(?s)Invalid Project.*display name; use its ID`},
			"project bad domain":        {set: map[string]any{"project": "example:ml-prod"}, path: "project", want: `(?s)Invalid Project.*domain "example" before ':' is not a domain name`},
			"project bad scoped id":     {set: map[string]any{"project": "example.com:ml"}, path: "project", want: `(?s)Invalid Project.*ID "ml" after ':'.*minimum is 6`},
			// project_number
			"project number is an id":     {set: map[string]any{"project_number": "ml-prod"}, path: "project_number", want: `(?s)Invalid Project Number.*looks like a project ID.*digits only`},
			"project number resource":     {set: map[string]any{"project_number": "projects/123456789012"}, path: "project_number", want: `(?s)Invalid Project Number.*write the number alone: "123456789012"`},
			"project number leading zero": {set: map[string]any{"project_number": "0123456789012"}, path: "project_number", want: `(?s)Invalid Project Number.*starts with 0`},
			"project number with a space": {set: map[string]any{"project_number": "1234 5678"}, path: "project_number", want: `(?s)Invalid Project Number.*contains a space; only digits`},
			"project number too large":    {set: map[string]any{"project_number": strings.Repeat("9", 20)}, path: "project_number", want: `(?s)Invalid Project Number.*20 digits`},
			"project number empty":        {set: map[string]any{"project_number": ""}, path: "project_number", want: `(?s)Empty Project Number.*(?i:leave) project_number out.*"123456789012"`},
			// namespace
			"namespace with upper case": {set: map[string]any{"namespace": "Vision"}, path: "namespace", want: `(?s)Invalid Namespace.*upper-case.*e\.g\. "vision"`},
			"namespace with a dot":      {set: map[string]any{"namespace": "team.vision"}, path: "namespace", want: `(?s)Invalid Namespace.*contains '\.'.*"team-vision"`},
			"namespace too long":        {set: map[string]any{"namespace": strings.Repeat("n", 64)}, path: "namespace", want: `(?s)Invalid Namespace.*64 characters long; the limit is 63`},
			"namespace empty":           {set: map[string]any{"namespace": ""}, path: "namespace", want: `(?s)Invalid Namespace.*empty`},
			// kubernetes_service_account
			"KSA with upper case":  {set: map[string]any{"kubernetes_service_account": "Trainer"}, path: "kubernetes_service_account", want: `(?s)Invalid Kubernetes Service Account Name.*upper-case.*"trainer"`},
			"KSA with underscore":  {set: map[string]any{"kubernetes_service_account": "vision_trainer"}, path: "kubernetes_service_account", want: `(?s)Invalid Kubernetes Service Account Name.*contains '_'.*"vision-trainer"`},
			"KSA too long":         {set: map[string]any{"kubernetes_service_account": strings.Repeat("k", 254)}, path: "kubernetes_service_account", want: `(?s)254 characters long; the limit is 253`},
			"KSA empty":            {set: map[string]any{"kubernetes_service_account": ""}, path: "kubernetes_service_account", want: `(?s)Invalid Kubernetes Service Account Name.*empty`},
			"KSA ending with a -":  {set: map[string]any{"kubernetes_service_account": "trainer-"}, path: "kubernetes_service_account", want: `(?s)begin and end with a letter or digit`},
			"KSA default, created": {set: map[string]any{"kubernetes_service_account": "default"}, path: "kubernetes_service_account", want: `(?s)Default Service Account Cannot Be Created.*create_kubernetes_service_account = false`},
			// mode and the rules that follow from it
			"mode typo":               {set: map[string]any{"mode": "impersonate"}, path: "mode", want: `(?s)Invalid Mode.*"impersonate" is not a mode.*"google_service_account".*"direct"`},
			"mode capitalized":        {set: map[string]any{"mode": "Direct"}, path: "mode", want: `(?s)Invalid Mode.*lower case: write "direct"`},
			"direct with created GSA": {set: map[string]any{"mode": "direct"}, path: "create_google_service_account", want: `(?s)Google Service Account In Direct Mode.*remove create_google_service_account and set project_number`},
			"direct with GSA": {set: map[string]any{"mode": "direct", "project_number": "123456789012", "create_google_service_account": nil,
				"google_service_account": "trainer@ml-prod.iam.gserviceaccount.com"}, path: "google_service_account", want: `(?s)Google Service Account In Direct Mode.*remove it, or remove mode`},
			"direct without number": {set: map[string]any{"mode": "direct", "create_google_service_account": nil}, path: "project_number", want: `(?s)Missing Project Number.*data\.google_project`},
			"both GSAs":             {set: map[string]any{"google_service_account": "trainer@ml-prod.iam.gserviceaccount.com"}, path: "create_google_service_account", want: `(?s)Conflicting Google Service Accounts.*not both`},
			"no GSA":                {set: map[string]any{"create_google_service_account": nil}, path: "google_service_account", want: `(?s)Missing Google Service Account.*create_google_service_account.*mode = "direct"`},
			// google_service_account
			"GSA a user":           {set: existing("alice@example.com"), path: "google_service_account", want: `(?s)Invalid Google Service Account.*end in \.gserviceaccount\.com.*user or group`},
			"GSA an account ID":    {set: existing("trainer"), path: "google_service_account", want: `(?s)Invalid Google Service Account.*no '@'.*"trainer@PROJECT\.iam\.gserviceaccount\.com".*account_id = "trainer"`},
			"GSA an IAM member":    {set: existing("serviceAccount:trainer@ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)is an IAM member; write the e-mail alone: "trainer@ml-prod\.iam\.gserviceaccount\.com"`},
			"GSA a resource name":  {set: existing("projects/ml-prod/serviceAccounts/trainer@ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)resource name; write its e-mail alone: "trainer@ml-prod\.iam\.gserviceaccount\.com"`},
			"GSA upper case":       {set: existing("Trainer@ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)lower case \("trainer@ml-prod\.iam\.gserviceaccount\.com"\)`},
			"GSA without project":  {set: existing("trainer@iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)project is missing after '@'`},
			"GSA with a space":     {set: existing("trainer @ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)contains a space`},
			"GSA two @":            {set: existing("a@b@ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)more than one '@'`},
			"GSA empty local part": {set: existing("@ml-prod.iam.gserviceaccount.com"), path: "google_service_account", want: `(?s)nothing comes before '@'`},
			// create_google_service_account
			"account id too short":     {set: gsa("account_id", "ml"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*2 characters long; the minimum is 6`},
			"account id too long":      {set: gsa("account_id", strings.Repeat("a", 31)), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*31 characters long; the limit is 30.*e\.g\. "a{30}"`},
			"account id upper case":    {set: gsa("account_id", "Vision-Trainer"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*upper-case.*"vision-trainer"`},
			"account id underscore":    {set: gsa("account_id", "vision_trainer"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*contains '_'.*"vision-trainer"`},
			"account id starts with 1": {set: gsa("account_id", "1-trainer"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*must start with a letter`},
			"account id ends with -":   {set: gsa("account_id", "vision-trainer-"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*must not end with '-'`},
			"account id an e-mail":     {set: gsa("account_id", "vision-trainer@ml-prod.iam.gserviceaccount.com"), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*part before '@' \("vision-trainer"\).*google_service_account`},
			"account id empty":         {set: gsa("account_id", ""), path: "create_google_service_account.account_id", want: `(?s)Invalid Account ID.*empty`},
			"display name too long":    {set: gsa("display_name", strings.Repeat("é", 51)), path: "create_google_service_account.display_name", want: `(?s)Display Name Too Long.*102 bytes long in UTF-8 \(51 characters\).*at most 100`},
			"display name empty":       {set: gsa("display_name", ""), path: "create_google_service_account.display_name", want: `(?s)Empty Display Name.*(?i:leave) display_name out`},
			"description too long": {set: gsa("description", strings.Repeat("d", 233)), path: "create_google_service_account.description",
				want: `(?s)Description Too Long.*233 bytes.*IAM allows 256.*\(managed by mlplatform\).*at most 232 bytes`},
			"description empty": {set: gsa("description", ""), path: "create_google_service_account.description", want: `(?s)Empty Description.*(?i:leave) description out`},
		},
	}
}
