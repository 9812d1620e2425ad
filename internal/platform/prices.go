package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// PriceOverride is how the provider was told to override the default price
// table: inline JSON (the prices attribute) or a file (prices_file, or
// MLPLATFORM_PRICES_FILE). Both use pricing.File's format.
type PriceOverride struct {
	Inline string
	File   string
	// FileFromEnv: File came from MLPLATFORM_PRICES_FILE, not the
	// configuration; errors name the variable.
	FileFromEnv bool
}

// PricesFileEnv is the environment fallback of prices_file.
const PricesFileEnv = "MLPLATFORM_PRICES_FILE"

// LoadPrices returns the default price table with o applied, or errors on the
// attribute that is wrong. Setting both prices and prices_file in the
// configuration is an error; inline prices win over MLPLATFORM_PRICES_FILE,
// as every attribute wins over its environment fallback.
func LoadPrices(o PriceOverride, readFile func(string) ([]byte, error)) (pricing.Table, spec.FieldErrors) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	def := pricing.Default()
	fail := func(attr, summary, format string, args ...any) (pricing.Table, spec.FieldErrors) {
		return pricing.Table{}, spec.FieldErrors{{Path: spec.Path{attr}, Summary: summary, Detail: fmt.Sprintf(format, args...)}}
	}
	switch {
	case o.Inline != "" && o.File != "" && !o.FileFromEnv:
		return fail("prices", "Conflicting Price Overrides",
			"prices and prices_file are both set (prices_file = %q). Use one: prices for inline JSON "+
				"(e.g. jsonencode({...})), or prices_file for a JSON file.", o.File)
	case strings.TrimSpace(o.Inline) != "":
		t, err := pricing.Load(strings.NewReader(o.Inline))
		if err != nil {
			return fail("prices", "Invalid Price Override", "%v", err)
		}
		return def.Override(t), nil
	case o.Inline != "":
		return fail("prices", "Invalid Price Override",
			`prices is blank. Remove it to use the default price table, or give a JSON price table such as `+
				`{"source": "2026 contract", "date": "2026-05-01", "prices": {"nvidia-h100-80gb": {"on_demand": 9.8}}}.`)
	case o.File != "":
		attr, where := "prices_file", "prices_file"
		if o.FileFromEnv {
			where = PricesFileEnv + " (the environment fallback of prices_file)"
		}
		data, err := readFile(o.File)
		if err != nil {
			hint := "Check the path; a relative path is relative to the directory Terraform runs in."
			if errors.Is(err, fs.ErrPermission) {
				hint = "The file is not readable by the user running Terraform."
			}
			return fail(attr, "Price File Not Readable", "%s is %q, which could not be read. %s (%v)", where, o.File, hint, err)
		}
		t, err := pricing.Load(strings.NewReader(string(data)))
		if err != nil {
			return fail(attr, "Invalid Price File", "%s is %q: %v", where, o.File, err)
		}
		return def.Override(t), nil
	}
	return def, nil
}

// PriceTable is the table cost estimates and the GPU catalog use: the
// configured one, or the default table for a Config that never set Prices.
func (c Config) PriceTable() pricing.Table {
	if c.Prices.Source() == "" {
		return pricing.Default()
	}
	return c.Prices
}
