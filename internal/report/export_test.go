package report

// Exported for the external test package (report_test), whose acceptance
// tests turn real terraform plans into goldens.

// Golden compares got with testdata/name, or rewrites it with -update.
var Golden = golden

// Updating reports whether -update was given.
func Updating() bool { return *update }
