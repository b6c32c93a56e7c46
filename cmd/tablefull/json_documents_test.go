package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/entries"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestJSONDocuments: every --json output, run for real on a tracked
// namespace, decodes into its documented type with no field left over,
// names the schema docs/json.md lists, and says its verdicts with
// severities as words and facts with units.
func TestJSONDocuments(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64})
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	clitest.HoldEntries(t, ns, 12)
	exe, _ := os.Executable()
	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		schema string
		into   func() any
	}{
		{[]string{"snapshot", "--json"}, oneshot.SnapshotSchema, func() any { return &oneshot.Snapshot{} }},
		{[]string{"census", "--json"}, oneshot.CensusSchema, func() any { return &oneshot.CensusDoc{} }},
		{[]string{"entries", "--json"}, entries.Schema, func() any { return &entries.Doc{} }},
		{[]string{"tune", "--dry-run", "--json"}, tunecmd.ReportSchema, func() any { return &tunecmd.Report{} }},
	} {
		cmd := ns.Command(exe, c.args...)
		cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%v: %v %s", c.args, err, out)
			continue
		}
		if !strings.Contains(string(doc), "`"+c.schema+"`") {
			t.Errorf("docs/json.md does not list %s", c.schema)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		v := c.into()
		if err := dec.Decode(v); err != nil {
			t.Errorf("%v: not its documented type: %v\n%.600s", c.args, err, out)
			continue
		}
		var top struct {
			Schema string `json:"schema"`
		}
		json.Unmarshal(out, &top)
		if top.Schema != c.schema {
			t.Errorf("%v: schema %q, want %q", c.args, top.Schema, c.schema)
		}
		if r, ok := v.(*tunecmd.Report); ok {
			if r.Diagnosis == nil || len(r.Diagnosis.Verdicts) == 0 || !strings.Contains(string(out), `"severity":"`) {
				t.Errorf("tune --json says no verdict, or its severity not as a word: %.600s", out)
			}
			for _, v := range r.Diagnosis.Verdicts {
				for _, f := range v.Facts() {
					if f.Unit == "" {
						t.Errorf("%s: fact %+v has no unit", v.Kind, f)
					}
				}
			}
		}
	}
}
