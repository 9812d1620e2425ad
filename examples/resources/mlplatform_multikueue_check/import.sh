# The AdmissionCheck and its MultiKueueConfig, by their shared name.
terraform import mlplatform_multikueue_check.regions multi-region
