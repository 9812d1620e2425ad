package report

// The report as SARIF 2.1.0 (--format sarif), the format code scanning
// reads (GitHub shows each result as an annotation on the pull request's
// files): one result per check finding, per over-committed flavor, per
// drifted resource and per object the plan destroys, each at the
// configuration lines that declare the resources it names (locate.go). A
// resource in a module is located inside the module, and its module calls
// are related locations: the change a reviewer sees is often the call's.
// The tests validate the documents against the OASIS schema.

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// planPlatform stands for any plan: the rules that run on one (Rule.Runs).
var planPlatform = &model.Platform{}

// SARIFVersion is the SARIF version written, and sarifSchema its schema.
const (
	SARIFVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// DocBase is where the rules' documentation is published.
const DocBase = "https://github.com/mlplatform/terraform-provider-mlplatform/blob/main/docs/guides/"

// The report's own results, beside the platform rules: their IDs and names.
const (
	RuleOvercommit  = "OVERCOMMIT"
	RuleDrift       = "DRIFT"
	RuleDestructive = "DESTROY"
)

type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string      `json:"id"`
		Name                 string      `json:"name"`
		ShortDescription     sarifText   `json:"shortDescription"`
		Help                 sarifText   `json:"help"`
		HelpURI              string      `json:"helpUri"`
		DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID           string          `json:"ruleId"`
		RuleIndex        int             `json:"ruleIndex"`
		Level            string          `json:"level"`
		Message          sarifText       `json:"message"`
		Locations        []sarifLocation `json:"locations"`
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	}
	sarifLocation struct {
		ID               int            `json:"id,omitempty"`
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
		Message          *sarifText     `json:"message,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
)

// SARIFOptions configures RenderSARIF.
type SARIFOptions struct {
	// Locator finds the configuration's lines; nil: results carry the
	// resources' addresses only.
	Locator *Locator
	// ToolVersion is mlplatform's version, "" to leave it out.
	ToolVersion string
}

// sarifRules are the rules a report's results refer to: every platform
// rule a plan can judge, then the report's own.
func sarifRules() []sarifRule {
	var out []sarifRule
	for _, r := range rules.Rules {
		if !r.Runs(planPlatform) {
			continue
		}
		out = append(out, sarifRule{
			ID: r.ID, Name: r.Slug,
			ShortDescription:     sarifText{"Checks that " + r.Title + "."},
			Help:                 sarifText{fmt.Sprintf("%s %s: checks that %s. What each finding means and how to fix it: %schecks.md#%s", r.ID, r.Slug, r.Title, DocBase, strings.ToLower(r.ID))},
			HelpURI:              DocBase + "checks.md#" + strings.ToLower(r.ID),
			DefaultConfiguration: sarifConfig{"error"},
		})
	}
	own := []struct{ id, name, what, level string }{
		{RuleOvercommit, "quota-overcommit", "the queues of a flavor may not admit more GPUs than its pools provide (jobs past the pools' size stay pending)", "warning"},
		{RuleDrift, "drift", "nothing changed outside Terraform (the next apply puts it back)", "warning"},
		{RuleDestructive, "destructive-change", "the plan deletes or replaces no platform object (a GPU pool replaced evicts every job on it)", "warning"},
	}
	for _, o := range own {
		anchor := strings.ToLower(o.id)
		out = append(out, sarifRule{
			ID: o.id, Name: o.name,
			ShortDescription:     sarifText{"Checks that " + o.what + "."},
			Help:                 sarifText{"Checks that " + o.what + ". See " + DocBase + "report_formats.md#" + anchor},
			HelpURI:              DocBase + "report_formats.md#" + anchor,
			DefaultConfiguration: sarifConfig{o.level},
		})
	}
	return out
}

// sarifLevel is a finding's level: undecided is a note.
func sarifLevel(s Severity) string {
	switch s {
	case SevError:
		return "error"
	case SevWarning:
		return "warning"
	}
	return "note"
}

// toSARIF is the report as a SARIF log.
func toSARIF(r Report, opts SARIFOptions) sarifLog {
	rs := sarifRules()
	index := map[string]int{}
	for i, x := range rs {
		index[x.ID] = i
	}
	var results []sarifResult
	add := func(rule, level, msg string, objects []string) {
		res := sarifResult{RuleID: rule, RuleIndex: index[rule], Level: level, Message: sarifText{msg}, Locations: []sarifLocation{}}
		for _, o := range objects {
			loc, related := locate(opts.Locator, o)
			res.Locations = append(res.Locations, loc)
			for _, rel := range related {
				if slices.ContainsFunc(res.RelatedLocations, func(x sarifLocation) bool {
					return x.LogicalLocations[0].FullyQualifiedName == rel.LogicalLocations[0].FullyQualifiedName
				}) {
					continue // two resources of one module: its call once
				}
				rel.ID = len(res.RelatedLocations) + 1
				res.RelatedLocations = append(res.RelatedLocations, rel)
			}
		}
		results = append(results, res)
	}
	for _, d := range r.Destructive {
		level := "note"
		if d.GPU != "" {
			level = "warning"
		}
		add(RuleDestructive, level, capitalize(d.Sentence())+".", []string{d.Address})
	}
	for _, f := range r.Checks {
		add(f.ID, sarifLevel(f.Severity), f.Sentence(), f.Objects)
	}
	for _, c := range r.Capacity {
		if c.Overcommit {
			add(RuleOvercommit, "warning", fmt.Sprintf("Flavor %s: %s.", r.flavorLabel(c), c.Status), c.Objects)
		}
	}
	for _, d := range r.Drift {
		add(RuleDrift, "warning", strings.Join(d.Sentences, "; ")+".", []string{d.Address})
	}
	return sarifLog{
		Schema: sarifSchema, Version: SARIFVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{Name: "mlplatform", Version: opts.ToolVersion,
				InformationURI: "https://github.com/mlplatform/terraform-provider-mlplatform", Rules: rs}},
			Results: nonNil(results),
		}},
	}
}

// locate is an object's location: where its resource block is, or, when
// that cannot be read, its innermost module call; the calls of a resource
// in a module are related locations.
func locate(l *Locator, addr string) (sarifLocation, []sarifLocation) {
	loc := sarifLocation{LogicalLocations: []sarifLogical{{FullyQualifiedName: addr, Kind: "resource"}}}
	if l == nil {
		return loc, nil
	}
	d := l.Locate(addr)
	if d.Resource.File != "" {
		loc.PhysicalLocation = physical(d.Resource)
	} else if n := len(d.Calls); n > 0 {
		loc.PhysicalLocation = physical(d.Calls[n-1].At)
	}
	var related []sarifLocation
	for _, c := range d.Calls {
		related = append(related, sarifLocation{
			PhysicalLocation: physical(c.At),
			LogicalLocations: []sarifLogical{{FullyQualifiedName: c.Path, Kind: "module"}},
			Message:          &sarifText{"through " + c.Path},
		})
	}
	return loc, related
}

func physical(p Position) *sarifPhysical {
	return &sarifPhysical{ArtifactLocation: sarifArtifact{URI: p.File}, Region: sarifRegion{StartLine: p.Line}}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// RenderSARIF writes the report as a SARIF 2.1.0 log, indented.
func RenderSARIF(w io.Writer, r Report, opts SARIFOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(toSARIF(r, opts))
}
