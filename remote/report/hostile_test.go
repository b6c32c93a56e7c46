package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/stream"
)

// hostile is text a recording may carry: HTML, Markdown links and
// emphasis, a table cell's end, terminal escapes, bidi overrides.
const hostile = "<script>alert(1)</script><img src=x onerror=alert(2)> [x](javascript:alert(3)) *b* _u_ | cell \x1b]52;c;QUFB\x07\x1b[2J\u202e\n# h"

// hostileRecording is a table-full incident whose every string is hostile.
func hostileRecording(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	enc, err := stream.NewEncoder(&b, model.Host{Name: hostile, Kernel: hostile, CPUs: 2, MemTotal: 1 << 30, Source: hostile}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		capMax := uint64(64)
		if i >= 8 {
			capMax = 4096
		}
		s := model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: 64, Peak: 64, Max: capMax, Buckets: 64, TimeWaitHold: 120},
			CTStats:   model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: uint64(i * 5)})}}},
			TCP:       model.TCP{ActiveOpens: uint64(i * 40), SynRetrans: uint64(i)},
			Kernel:    model.KernelLog{Readable: true, Lines: []model.KernelLine{{Time: t0.Add(time.Duration(i) * time.Second), Text: hostile, NetNSName: hostile}}},
			Notes:     []string{hostile}}
		if i == 3 {
			s.Census = &model.Census{Total: 64, ByProto: map[string]int{hostile: 60}, TCPState: map[string]int{"TIME_WAIT": 60},
				TopPorts: []tally.Count{{Key: hostile, N: 60}}, TopSources: []tally.Count{{Key: hostile, N: 30}}, TopDests: []tally.Count{{Key: hostile, N: 30}}, At: s.Time}
		}
		if i == 7 {
			reply, _ := json.Marshal(agent.Reply{ID: 1, Error: hostile, Results: []knob.Result{
				{Key: knob.Max, Before: "64", Wanted: "4096", After: "4096", Verified: true},
				{Key: hostile, Before: hostile, Wanted: hostile, After: hostile},
				{Key: knob.Somaxconn, Before: hostile, Wanted: "4096; rm -rf /", After: "4096", Verified: true}}})
			if err := enc.Event(stream.Event{Time: s.Time.Add(500 * time.Millisecond), Type: "apply", Text: string(reply)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Sample(s); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// unescapedLink is a Markdown link or image a reader would follow.
var unescapedLink = regexp.MustCompile(`(^|[^\\])\[[^\]]*[^\\]\]\(`)

// ownChart is the report's own image of a chart beside it.
var ownChart = regexp.MustCompile(`^!\[[a-z]+\]\([a-z]+\.svg\)$`)

// TestHostileRecordingIsEscaped: every string of a hostile recording
// reaches report.html and report.md as inert text.
func TestHostileRecordingIsEscaped(t *testing.T) {
	r, err := Build(bytes.NewReader(hostileRecording(t)), Options{Source: hostile, Title: hostile})
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	md := r.Markdown()
	for name, doc := range map[string][]byte{"report.html": h, "report.md": md} {
		lower := strings.ToLower(string(doc))
		for _, bad := range []string{"<script", "<img", "\x1b", "\x07", "\u202e", "rm -rf"} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
		if !strings.Contains(string(doc), `\x1b`) {
			t.Errorf("%s should show the escape as text (\\x1b)", name)
		}
	}
	for _, c := range r.Charts {
		if bytes.Contains(c.SVG, []byte("<script")) || bytes.Contains(c.SVG, []byte("\x1b")) {
			t.Errorf("%s.svg carries the recording's text", c.Name)
		}
	}
	for i, line := range strings.Split(string(md), "\n") {
		if unescapedLink.MatchString(line) && !ownChart.MatchString(line) {
			t.Errorf("report.md line %d has a live link: %s", i+1, line)
		}
		if strings.HasPrefix(line, "# ") && i > 0 {
			t.Errorf("report.md line %d is a heading from the recording: %s", i+1, line)
		}
		if strings.HasPrefix(line, "|") {
			cells := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)) - 1
			if head := tableWidth(md, i); cells != head {
				t.Errorf("report.md line %d has %d cells, its table %d: a | got through: %s", i+1, cells, head, line)
			}
		}
	}
	if !strings.Contains(string(md), "## Census: what filled the table") || !strings.Contains(string(md), "| TIME\\_WAIT | 60 |") {
		t.Errorf("the recorded census is not in the report")
	}
	in := r.Incident
	if len(in.Changes) != 1 || in.Changes[0].Applied == nil {
		t.Errorf("the max change and its reply: %+v", in.Changes)
	}
	if len(in.UnseenApplies) != 1 || in.UnseenApplies[0].Wanted != "?" || in.UnseenApplies[0].Before != "?" {
		t.Errorf("only known knobs, values re-rendered or ?: got %+v", in.UnseenApplies)
	}
}

// tableWidth is the number of columns of the table line i belongs to.
func tableWidth(md []byte, i int) int {
	lines := strings.Split(string(md), "\n")
	for i > 0 && strings.HasPrefix(lines[i-1], "|") {
		i--
	}
	return len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(lines[i], -1)) - 1
}

// TestHostileClock: a recording whose clock stands still, runs backwards
// or leaps centuries ahead is charted in bounded buckets and says what
// it skipped.
func TestHostileClock(t *testing.T) {
	var b bytes.Buffer
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	enc, _ := stream.NewEncoder(&b, model.Host{Name: "clock"}, t0)
	at := []time.Time{t0, t0.Add(time.Second), t0.Add(time.Second), t0, t0.Add(2 * time.Second), t0.Add(200 * 365 * 24 * time.Hour), t0.Add(3 * time.Second)}
	for i, ts := range at {
		capMax := uint64(64)
		if i >= 2 {
			capMax = 128
		}
		enc.Sample(model.Sample{Time: ts, Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: 64, Peak: 64, Max: capMax, TimeWaitHold: 120}})
	}
	done := make(chan struct{})
	var r *Report
	var err error
	go func() { r, err = Build(&b, Options{}); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Build did not return")
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.Unordered != 3 || r.Incident.Samples != 4 || len(r.Incident.Timeline.Buckets()) > incident.TimelineBuckets {
		t.Errorf("unordered %d, samples %d, buckets %d", r.Unordered, r.Incident.Samples, len(r.Incident.Timeline.Buckets()))
	}
	if !strings.Contains(string(r.Markdown()), "3 samples out of time order were skipped") {
		t.Errorf("the report does not say what it skipped")
	}
}

// TestMarkdownNoAutolinks: text GitHub would autolink — a URL, www., an
// e-mail address — is set as code, so no renderer makes a link of it;
// other text is escaped as before.
func TestMarkdownNoAutolinks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://evil.example/c", "` https://evil.example/c `"},
		{"see www.evil.example now", "` see www.evil.example now `"},
		{"ops@evil.example", "` ops@evil.example `"},
		{"a|b `x` https://e.x", "`` a\\|b `x` https://e.x ``"},
		{"tcp/443 [x]", `tcp/443 \[x\]`},
	} {
		if got := md(c.in); got != c.want {
			t.Errorf("md(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
