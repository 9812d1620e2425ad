// Package releasecheck holds the test of a goreleaser build in dist/ against
// the Terraform Registry's layout (see .goreleaser.yml and make release-check).
// It has no code: the test skips when dist/ has not been built.
package releasecheck
