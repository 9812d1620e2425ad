// Package layering holds the test that keeps the platform library free of
// Terraform: the packages that know how the platform should look and how to
// make it so import no terraform-plugin-* package, directly or through
// another.
package layering
