package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/compare"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// comparePasses is how many recordings each side of a comparison has.
const comparePasses = 5

// TestCompareBeforeAndAfterTheFix: two real incidents recorded before
// and after their fix, five passes a side, set side by side by tablefull
// compare. The lab's table-full (its fix: the cap raised) and an HTTP
// ingest of small objects over fresh connections against nginx (its
// fix: nf_conntrack_max, the seed's one sysctl). Each must say drops
// went to 0 beyond the spread between passes, the time pinned fell
// beyond it, and, for the ingest, new connections admitted/s rose by the
// factor nginx's own log measures. With one pass a side it says the
// spread is unknown; a recording against itself moved nothing.
func TestCompareBeforeAndAfterTheFix(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 512, Changes: true}) // the lab's cap, and the ingest's
	clitest.NeedKernel(t, "nginx", "curl")
	t.Run("lab table-full", func(t *testing.T) {
		before, after := labPasses(t)
		c := compareJSON(t, slices.Concat(before, after)...)
		checkFixed(t, c)
		if k := knobRow(t, c, knob.Max); !slices.Equal(k.ABegan, []uint64{512}) || !slices.Equal(k.BEnded, []uint64{16384}) {
			t.Errorf("nf_conntrack_max: A began %v, B ended %v; want 512 and 16,384", k.ABegan, k.BEnded)
		}
		checkOnePassAndSelf(t, before[0], after[0])
	})
	t.Run("HTTP ingest", func(t *testing.T) {
		clitest.LowerMax(t, 512)
		dir := t.TempDir()
		before := ingestSide(t, dir, "before")
		if err := os.WriteFile(clitest.MaxPath, []byte("16384"), 0o644); err != nil { // the fix; lowerMax restores the host's
			t.Fatal(err)
		}
		after := ingestSide(t, dir, "after")
		c := compareJSON(t, slices.Concat(clitest.IngestPaths(before), clitest.IngestPaths(after))...)
		checkFixed(t, c)
		measured := medianRate(after) / medianRate(before)
		r, _ := c.Row("new_per_second")
		t.Logf("admitted new/s: tablefull A %v B %v (×%.1f); nginx served A %v B %v (×%.1f)", r.A.Median, r.B.Median, r.Factor, clitest.IngestRates(before), clitest.IngestRates(after), measured)
		if r.Judgement != compare.Beyond || math.Abs(r.Factor/measured-1) > 0.25 {
			t.Errorf("new connections admitted/s rose ×%.1f (%s); nginx measured ×%.1f", r.Factor, r.Judgement, measured)
		}
	})
}

// labPasses records the lab's table-full in alternate rounds, before and
// after its fix (--fix-after raises the cap as the lab begins).
func labPasses(t *testing.T) (before, after []string) {
	exe, _ := os.Executable()
	dir := t.TempDir()
	for i := range comparePasses {
		for _, fixed := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("before-%d.jsonl", i+1))
			args := []string{"lab", "table-full", "--headless", "--duration", "10s", "--record", path}
			if fixed {
				path = filepath.Join(dir, fmt.Sprintf("after-%d.jsonl", i+1))
				args = append(args[:len(args)-1], path, "--fix-after", "1ms")
			}
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("lab %v: %v\n%s", args, err, out)
			}
			if fixed {
				after = append(after, path)
			} else {
				before = append(before, path)
			}
		}
	}
	return before, after
}

// Each ingest is paced by nginx at ingestRate objects a second and held
// ingestHold seconds in TIME_WAIT: a working set of twice a table of 512
// entries, whose ceiling (512 ÷ the hold) admits about half the pace, so
// the factor the fix gives is a number on both sides, not one over 0.
const (
	ingestRate = 200
	ingestHold = 5
)

// ingestSide records comparePasses ingests at once, each in a namespace
// of its own (the count is each namespace's, the cap the host's), each
// recorded for 6 s from a hold after its count first reached 512: the
// steady state, where entries leave as fast as the hold lets them.
func ingestSide(t *testing.T, dir, side string) (out []clitest.IngestPass) {
	t.Run(side, func(t *testing.T) {
		logs := make([]string, comparePasses)
		records := make([]*exec.Cmd, comparePasses)
		var nss []*netns.NS
		for i := range comparePasses {
			ns, log := ingestServer(t)
			nss, logs[i] = append(nss, ns), log
			clitest.StartIngestLoop(t, ns)
		}
		for i, ns := range nss {
			clitest.WaitPinned(t, ns, 512, time.Minute)
			out = append(out, clitest.IngestPass{Path: filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", side, i+1))})
		}
		time.Sleep(ingestHold * time.Second)
		exe, _ := os.Executable()
		for i, ns := range nss {
			records[i] = ns.Command(exe, "record", out[i].Path, "--duration", "6s", "--interval", "500ms")
			records[i].Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
			clitest.StartUntilEnd(t, records[i])
		}
		for i, r := range records {
			if err := r.Wait(); err != nil {
				t.Fatalf("record %s: %v", out[i].Path, err)
			}
			out[i].Served = servedOver(t, logs[i], out[i].Path)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// ingestServer is a fresh namespace with nginx paced at ingestRate,
// entries held ingestHold in TIME_WAIT, and the path of its access log:
// a line an object, the time it was served.
func ingestServer(t *testing.T) (*netns.NS, string) {
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, knob.TimeWait, ingestHold)
	dir := t.TempDir()
	clitest.StartNginx(t, ns, dir, fmt.Sprintf("log_format at '$msec';\n\taccess_log %s/access.log at;\n\tlimit_req_zone $binary_remote_addr zone=ingest:1m rate=%dr/s;", dir, ingestRate),
		fmt.Sprintf("listen 127.0.0.1:18181; root %s; limit_req zone=ingest burst=64;", dir))
	if err := os.WriteFile(filepath.Join(dir, "obj"), bytes.Repeat([]byte("s"), clitest.SeedObjBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(dir, "nginx.pid"))
	return ns, filepath.Join(dir, "access.log")
}

// servedOver is the objects a second log says nginx served over the span
// of the recording at path.
func servedOver(t *testing.T, log, path string) float64 {
	c := compareJSON(t, path, path)
	from, to := c.A.Passes[0].From, c.A.Passes[0].To
	logged, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Fields(string(logged)) {
		if at, err := strconv.ParseFloat(l, 64); err == nil && at > float64(from.UnixMilli())/1000 && at <= float64(to.UnixMilli())/1000 {
			n++
		}
	}
	return float64(n) / to.Sub(from).Seconds()
}

// waitFile waits for path to exist (a daemon's pid file).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", path)
}

// compareJSON runs tablefull compare --json over specs, half a side.
func compareJSON(t *testing.T, specs ...string) compare.Comparison {
	t.Helper()
	out := compareRun(t, append([]string{"--json", "--passes", strconv.Itoa(len(specs) / 2)}, specs...)...)
	var c compare.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("compare's JSON: %v\n%s", err, out)
	}
	return c
}

// compareRun runs tablefull compare with args and returns its stdout.
func compareRun(t *testing.T, args ...string) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"compare"}, args...)...)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compare %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// checkFixed holds a comparison of five passes a side to the fix: no
// drop after it, beyond the spread, in every pass, and less time pinned.
func checkFixed(t *testing.T, c compare.Comparison) {
	t.Helper()
	if len(c.Across) > 0 || !c.SpreadKnown {
		t.Errorf("one host and kernel, five passes a side: across %v, spread known %v", c.Across, c.SpreadKnown)
	}
	if c.A.Dropped != comparePasses || c.B.Dropped != 0 || c.B.DropsRead != comparePasses {
		t.Errorf("incidence: A dropped in %d of %d, B in %d of %d; want all, then none", c.A.Dropped, c.A.DropsRead, c.B.Dropped, c.B.DropsRead)
	}
	drops, _ := c.Row("drops")
	if drops.Judgement != compare.Beyond || drops.B.Max != 0 || drops.A.Min == 0 {
		t.Errorf("drops: A %v, B %v, %s; want to 0, beyond the spread", drops.A.Values, drops.B.Values, drops.Judgement)
	}
	pinned, _ := c.Row("pinned")
	if pinned.Judgement != compare.Beyond || pinned.Change >= 0 {
		t.Errorf("time pinned: A %v, B %v, %s; want it fallen beyond the spread", pinned.A.Median, pinned.B.Median, pinned.Judgement)
	}
	if !slices.Contains(c.Moved, "drops") || !slices.Contains(c.Moved, "pinned") {
		t.Errorf("moved: %v", c.Moved)
	}
}

// checkOnePassAndSelf: one pass a side says the spread is unknown; a
// recording against itself, that nothing moved.
func checkOnePassAndSelf(t *testing.T, before, after string) {
	t.Helper()
	if text := compareRun(t, before, after); !strings.Contains(text, "the spread between passes is unknown (one pass a side)") ||
		!regexp.MustCompile(`(?m)^drops +[0-9,]+ +0 +fell to 0 +spread unknown$`).MatchString(text) {
		t.Errorf("one pass a side:\n%s", text)
	}
	if text := compareRun(t, before, before); !strings.Contains(text, "nothing moved: every figure read the same on both sides") {
		t.Errorf("a recording against itself:\n%s", text)
	}
}

func knobRow(t *testing.T, c compare.Comparison, key string) compare.KnobRow {
	t.Helper()
	i := slices.IndexFunc(c.Knobs, func(k compare.KnobRow) bool { return k.Key == key })
	if i < 0 {
		t.Fatalf("no %s among the knobs", key)
	}
	return c.Knobs[i]
}

func medianRate(ps []clitest.IngestPass) float64 {
	rs := slices.Sorted(slices.Values(clitest.IngestRates(ps)))
	return rs[len(rs)/2]
}
