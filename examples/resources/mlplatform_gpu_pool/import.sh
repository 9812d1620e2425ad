# By resource name, or by PROJECT/LOCATION/CLUSTER/NAME:
terraform import mlplatform_gpu_pool.l4_dev projects/my-project/locations/us-central1/clusters/training/nodePools/l4-dev
terraform import mlplatform_gpu_pool.h100_flex my-project/us-central1/training/h100-flex
