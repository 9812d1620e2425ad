// Package spec holds the desired state of each platform object as plain Go
// types, with the validation that can run before anything is sent to a server
// (at plan time). Its errors state facts: the field, what is wrong, and the
// values that would fix it as data (Setting), which the caller writes in its
// own language. It imports nothing from Terraform.
package spec
