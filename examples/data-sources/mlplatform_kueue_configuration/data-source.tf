# Kueue's own configuration, validated at plan by Kueue's rules. The defaults
# suit a training platform: batch/v1 Jobs and JobSets managed, a gang whose
# pods cannot all start within 30 minutes evicted and requeued, and jobs
# without a queue in team namespaces held instead of running without quota.
data "mlplatform_kueue_configuration" "this" {
  # Kubeflow Trainer's TrainJobs run on JobSets: manage both.
  frameworks = ["batch/job", "jobset.x-k8s.io/jobset", "trainer.kubeflow.org/trainjob"]

  wait_for_pods_ready = {
    timeout = "20m" # GPU nodes scale up from zero well within this
  }

  # Share unused quota fairly between the teams of a cohort.
  fair_sharing = {
    preemption_strategies = ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
  }
}

# The Helm values that run Kueue with it (managerConfig.controllerManagerConfigYaml):
# values = [data.mlplatform_kueue_configuration.this.helm_values] on the
# helm_release of Kueue's chart (the Kueue configuration guide shows it whole).
output "kueue_helm_values" {
  value = data.mlplatform_kueue_configuration.this.helm_values
}

# MultiKueue workers must let the manager create every kind it dispatches.
output "dispatched_frameworks" {
  value = data.mlplatform_kueue_configuration.this.frameworks
}
