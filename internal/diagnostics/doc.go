// Package diagnostics turns platform errors into Terraform diagnostics that
// say, in plain words, what happened and what to do, with the original error
// kept below: it alone adds Terraform's words (HCL, terraform import,
// attribute paths) to the facts the library's errors state. It is the only
// internal package that knows Terraform types.
package diagnostics
