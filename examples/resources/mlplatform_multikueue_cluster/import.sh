# The worker is taken from the configuration; the first apply writes a new
# token unless the Secret is the one mlplatform wrote.
terraform import mlplatform_multikueue_cluster.europe europe
