# --- Workload Identity per team ----------------------------------------------------
# Training pods run as KSA "trainer" in the team namespace and act as a Google
# service account made for the team: data reads and checkpoint writes are granted
# to that GSA, and no key exists anywhere.
resource "mlplatform_workload_identity" "trainer" {
  for_each = mlplatform_team_namespace.team

  namespace                  = each.value.name
  kubernetes_service_account = "trainer"

  create_google_service_account = {
    account_id   = "${each.value.team}-trainer"
    display_name = "Training jobs of team ${each.value.team}"
  }
}
