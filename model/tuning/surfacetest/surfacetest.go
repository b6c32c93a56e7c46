// Package surfacetest is the ground the tuning surfaces' tests share: the
// moments of recorded incidents a plan is asked at, the knobs a tuner of
// that host reads, and the file of the plans recorded for them, to which
// the console's panel and tune --dry-run are each held.
package surfacetest

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/verdict"
)

// PlansFile is the recorded plans, under the repository's root.
const PlansFile = "testdata/plans/surfaces.jsonl"

// Moments calls at with each moment of samples a plan is asked at, as the
// number of samples so far and the frame of the last: every prefix of a
// short recording; of a long one, 40 spread over it and its last.
func Moments(samples []model.Sample, at func(k int, last diagnose.Frame)) {
	an := diagnose.NewAnalyzer(len(samples))
	stride := max(1, len(samples)/40)
	for k := 1; k <= len(samples); k++ {
		last := an.Add(samples[k-1])
		if k%stride == 0 || k == len(samples) {
			at(k, last)
		}
	}
}

// KnobsOf are the knobs a recorded sample read, as a tuner of that host
// would read them.
func KnobsOf(s model.Sample) map[string]string {
	c := s.Conntrack
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	return map[string]string{knob.Max: u(c.Max), knob.Hashsize: u(c.Buckets), knob.TimeWait: u(c.TimeWaitHold),
		knob.UDPTimeout: u(c.Holds[model.ClassUDPSingle]), knob.SynSent: u(c.Holds[model.ClassTCPUnanswered]), knob.SynRecv: u(c.Holds[model.ClassTCPHalfOpen]), knob.LastAck: u(c.Holds[model.ClassTCPLastAck]),
		knob.UDPStream: u(c.Holds[model.ClassUDPStream]), knob.Somaxconn: "4096", knob.SynBacklog: "512",
		knob.PortRange: "32768 60999", knob.TwReuse: "2"}
}

// Plan is the plan recorded for one moment: a recording (by its path
// under the repository's root), how many of its samples, whether the
// tuner was inside the namespace (it does not write the global knobs),
// and the plan's digest (Digest).
type Plan struct {
	File    string `json:"file"`
	Samples int    `json:"samples"`
	Child   bool   `json:"child"`
	Digest  string `json:"plan"`
}

// Key names the moment.
func (p Plan) Key() string { return fmt.Sprintf("%s %d %v", p.File, p.Samples, p.Child) }

// Name is a recording's path under the repository's root, as Plan keeps
// it.
func Name(t testing.TB, root, path string) string {
	t.Helper()
	rel, err := filepath.Rel(root, path)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// Normal is p as JSON reads it back (nil and empty lists alike).
func Normal(t testing.TB, p tuning.Plan) tuning.Plan {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out tuning.Plan
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Digest is a plan's fingerprint: its JSON, as Normal reads it back,
// hashed. Two surfaces whose plans have one digest show one plan.
func Digest(t testing.TB, p tuning.Plan) string {
	t.Helper()
	b, err := json.Marshal(Normal(t, p))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Read reads the recorded plans' digests by their moments' keys.
func Read(t testing.TB, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p Plan
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[p.Key()] = p.Digest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Write writes plans, one a line.
func Write(t testing.TB, path string, plans []Plan) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, p := range plans {
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// FarFromTheCap is the plan, and the knobs it was made from, for a host
// whose table is far from its cap (300 of 262,144) while kind is its
// verdict: a NAT's drops (12 of them, for verdict.NATPorts) or stale
// timeouts with none. No knob frees either: each surface that shows the
// plan says where the fix is instead.
func FarFromTheCap(kind verdict.Kind) (tuning.Plan, map[string]string) {
	cur := map[string]string{knob.Max: "262144", knob.Hashsize: "262144", knob.TimeWait: "120"}
	c := model.Conntrack{Status: model.TableTracked, Count: 300, Peak: 300, Max: 262144, Buckets: 262144, TimeWaitHold: 120}
	f := diagnose.Frame{Sample: model.Sample{Time: time.Unix(1000, 0), Conntrack: c}, Verdicts: []verdict.Verdict{{Kind: kind}}}
	f.Rates.Elapsed = time.Second
	if kind == verdict.NATPorts {
		f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 12})
	}
	guide := tuning.Guide{Knobs: tuning.KnobState{Current: cur, Global: true}, Measured: tally.NewRing[diagnose.Frame](1), Now: f}
	return tuning.Diagnose(guide).Plan, cur
}
