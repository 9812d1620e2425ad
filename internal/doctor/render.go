package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is how Render writes a Result.
type Format string

const (
	FormatText Format = "text"
	FormatJSON Format = "json"
)

// ParseFormat accepts text or json.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatText, FormatJSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown format %q: use text or json", s)
}

// Render writes r: in text, one line per finding (most severe first), as
// `mlplatform report` writes it (rules.Finding.Sentence), the notes, then a
// summary line ("all N checks passed" when clean); in JSON, the findings as
// the report's JSON has them.
func Render(w io.Writer, r *Result, f Format) error {
	sortFindings(r.Findings)
	if f == FormatJSON {
		out := struct {
			*Result
			Passed bool `json:"passed"`
		}{r, !r.Failed()}
		if out.Findings == nil {
			out.Findings = []Finding{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	var b strings.Builder
	for _, x := range r.Findings {
		b.WriteString(x.Sentence() + "\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if !r.Failed() {
		fmt.Fprintf(&b, "all %d checks passed\n", r.Checks)
	} else {
		errs := 0
		for _, x := range r.Findings {
			if x.Severity == SeverityError {
				errs++
			}
		}
		fmt.Fprintf(&b, "%d of %d checks found something: %s, %s\n", len(r.Findings), r.Checks, plural(errs, "error"), plural(len(r.Findings)-errs, "warning"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
