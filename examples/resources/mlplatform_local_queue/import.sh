terraform import mlplatform_local_queue.vision_gpu team-vision/gpu
