// Package kueue turns platform specs into Kueue v1beta2 apply configurations
// (what the provider sends with server-side apply) and Kueue objects read from
// the cluster back into specs (what the provider compares and stores).
package kueue

import kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

// GroupVersion is the Kueue API version the platform is written against.
var GroupVersion = kueuev1beta2.SchemeGroupVersion
