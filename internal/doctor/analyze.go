package doctor

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Analyze runs every check of doctor's own, then every rule of the one rule
// set (internal/rules) on the platform as the snapshot holds it.
func Analyze(s *Snapshot, opts Options) *Result {
	opts = opts.withDefaults()
	res := &Result{}
	a := analysis{s: s, f: findings{res: res}, opts: opts, notRun: &notRun{}}
	a.installation()
	a.configuration()
	a.admissionChecks()
	a.multiKueueWorkers()
	a.queues()
	a.pools()
	a.workloads()
	a.gpus()
	a.quota()
	a.prerequisites()
	a.platform()
	a.notRun.report(a.f)
	sortFindings(res.Findings)
	return res
}

type analysis struct {
	s      *Snapshot
	f      findings
	opts   Options
	notRun *notRun
}

// notRun collects, per read that failed, the checks and rules that could
// not run for want of it: one DOC000 each.
type notRun struct {
	reads []Read
	ids   map[string][]string
}

func (n *notRun) add(r Read, ids ...string) {
	if n.ids == nil {
		n.ids = map[string][]string{}
	}
	if _, seen := n.ids[r.What]; !seen {
		n.reads = append(n.reads, r)
	}
	for _, id := range ids {
		if !slices.Contains(n.ids[r.What], id) {
			n.ids[r.What] = append(n.ids[r.What], id)
		}
	}
}

func (n *notRun) report(f findings) {
	for _, r := range n.reads {
		msg := fmt.Sprintf("could not read %s: %s, so %s could not run", r.What, plainErr(r.Err), strings.Join(n.ids[r.What], ", "))
		fix := "check the credentials and that the API answers (the error says which); run doctor again"
		if apierrors.IsForbidden(r.Err) {
			fix = "grant the identity doctor runs as list on " + r.What + " (the ClusterRole in docs/guides/doctor.md)"
		}
		if r.Fix != "" {
			fix = r.Fix
		}
		f.add(CheckNotRun, SeverityError, r.What, msg, fix)
	}
}

// needs reports whether r succeeded; when it did not, the checks that
// needed it are named in its DOC000.
func (a analysis) needs(r Read, checks ...Check) bool {
	if r.ok() {
		return true
	}
	for _, c := range checks {
		a.notRun.add(r, c.ID+" "+c.Slug)
	}
	return false
}

func plainErr(err error) string {
	var te *TimeoutError
	if errors.As(err, &te) {
		return fmt.Sprintf("no answer within %s", te.After)
	}
	return err.Error()
}

// listSome joins up to n items, and says how many more.
func listSome(items []string, n int) string {
	items = slices.Clone(items)
	sort.Strings(items)
	if len(items) > n {
		return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
	}
	return strings.Join(items, ", ")
}
