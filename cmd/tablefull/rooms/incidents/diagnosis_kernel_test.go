package incidents

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	modelincident "github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/remote/report"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"github.com/tablefull/tablefull/tui/printedtest"
)

var updateIncidents = flag.Bool("update-incidents", false, "copy the real incidents TestOneDiagnosisOnTheKernel records to testdata/incidents")

// realIncident is an incident made by real servers and clients in a
// namespace at the kernel's proportions (max = buckets = incidentMax).
type realIncident struct {
	name  string
	tools []string
	// start starts the servers and the clients that fill the table.
	start func(t *testing.T, ns *netns.NS, dir string)
	kind  verdict.Kind
	// orKind, when set, is a kind a surface may name instead, measuring
	// its own moment: a UDP table at the cap also early-drops its
	// unanswered entries, which the packet path may do more of than drop.
	orKind verdict.Kind
	fills  model.Class
	// knob is what the plan changes to free it (besides max, or max).
	knob string
	// freedFor is how long, after the loop said freed, no drop may come
	// under the same load (0: not watched).
	freedFor time.Duration
	// report checks the report's text beside what every incident's must
	// say (nil: nothing more).
	report func(t *testing.T, md string, steps []tunecmd.LoopStep)
}

// incidentMax is the cap of the real incidents, with as many buckets.
const incidentMax = 4096

// TestOneDiagnosisOnTheKernel: nginx with ApacheBench without keep-alive
// (TIME_WAIT churn, the seed's shape), a redis pool that leaks its
// connections (a table of standing connections) and glibc's resolver
// against dnsmasq (UDP churn), each pinned at max = buckets = 4,096 and
// recorded while tune --until-free frees it. The live tune --dry-run
// --json, the loop's first step and the report of the recording agree
// on the kind, the class and the knobs the plan changes; the recording
// has no contradiction on any frame (tuning.Diagnosis.Contradictions);
// the loop frees the table within three steps, and the report says what
// freed it and proposes no more than twice that. With -update-incidents
// the recordings become testdata/incidents, where the console's tests
// (every frame at three sizes, the t panel against tune --dry-run) and
// the report's step through them.
func TestOneDiagnosisOnTheKernel(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: incidentMax, Changes: true})
	for _, c := range []realIncident{
		{name: "nginx-ab", tools: []string{"nginx", "ab"}, start: nginxAB, kind: verdict.TableFull, fills: model.ClassTCPDone,
			knob: knob.Max, freedFor: 33 * time.Second},
		{name: "redis-pool", tools: []string{"redis-server", "python3"}, start: redisPool, kind: verdict.TableFull, fills: model.ClassTCPOpen,
			knob: knob.Max},
		{name: "dnsmasq-glibc", tools: []string{"dnsmasq", "python3", "unshare"}, start: func(t *testing.T, ns *netns.NS, dir string) {
			clitest.ResolveAt(t, ns, dir, 300, 4*time.Minute)
		}, kind: verdict.TableFull, orKind: verdict.EarlyDropping, fills: model.ClassUDPSingle, knob: knob.UDPTimeout, report: clitest.CheckDNSReport},
	} {
		t.Run(c.name, func(t *testing.T) { oneDiagnosis(t, c) })
	}
}

// oneDiagnosis reproduces c, records it while the loop frees it, and
// checks that every surface tells the one diagnosis.
func oneDiagnosis(t *testing.T, c realIncident) {
	clitest.NeedKernel(t, append([]string{"conntrack"}, c.tools...)...)
	clitest.LowerMax(t, incidentMax)
	ns := clitest.LabNS(t)
	dir := t.TempDir()
	c.start(t, ns, dir)
	clitest.WaitPinned(t, ns, incidentMax, 45*time.Second)
	exe, _ := os.Executable()
	rec := filepath.Join(dir, c.name+".jsonl")
	t.Cleanup(func() { // a failed run's recording is kept to read
		if t.Failed() {
			clitest.CopyFile(t, rec, filepath.Join(os.TempDir(), "tablefull-failed-"+c.name+".jsonl"))
			t.Logf("the recording is kept in %s", filepath.Join(os.TempDir(), "tablefull-failed-"+c.name+".jsonl"))
		}
	})
	record := ns.Command(exe, "record", rec)
	record.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	clitest.StartUntilEnd(t, record)
	time.Sleep(3 * time.Second) // the recording begins pinned
	state := filepath.Join(dir, "state")
	code, out, errs := clitest.TuneFromHost(t, ns.Name, "--dry-run", "--json", "--observe", "3s", "--state-dir", state)
	var dry struct {
		Plan      tuning.Plan  `json:"plan"`
		Diagnosis *tuning.Said `json:"diagnosis"`
	}
	if err := json.Unmarshal([]byte(out), &dry); err != nil || dry.Diagnosis == nil {
		t.Fatalf("tune --dry-run --json: exit %d, %v: %s%s", code, err, out, errs)
	}
	steps := clitest.FollowUntilFree(t, ns.Name, state)
	surfaces := map[string]clitest.Said{"tune --dry-run": saidOf(dry.Diagnosis, dry.Plan), "the loop's first step": saidOf(steps[0].Diagnosis, steps[0].Plan)}
	if c.freedFor > 0 {
		before := clitest.NsDrops(t, ns)
		time.Sleep(c.freedFor)
		if after := clitest.NsDrops(t, ns); after != before {
			t.Errorf("%d drops in the %s after the loop said freed, under the same load", after-before, c.freedFor)
		}
	} else {
		time.Sleep(3 * time.Second)
	}
	clitest.StopRecording(t, record, rec)
	report := reportOfRecording(t, rec)
	surfaces["the report"] = saidOf(report.diagnosis.Said(), report.diagnosis.Plan)
	// Each surface measured its own moment (a fresh tune sees only what
	// the full table admits: a lower bound); each names the same kind,
	// class and the knob that frees it. The same moment's plan is the
	// same plan exactly: the report's is held to tuning.Diagnose on its
	// frames (reportOfRecording), the panel's to tune --dry-run's on every
	// committed recording (tui's TestPanelPlanIsTheRecordedPlan).
	for name, s := range surfaces {
		if (s.Kind != c.kind && (c.orKind == "" || s.Kind != c.orKind)) || s.Fills != c.fills.String() || !slices.Contains(s.Knobs, c.knob) {
			t.Errorf("%s says %s, fills %q, changes %v; want %s, %s, %s", name, s.Kind, s.Fills, s.Knobs, c.kind, c.fills, c.knob)
		}
	}
	oneKind(t, surfaces)
	for _, f := range report.faults {
		t.Errorf("the recording: %s", f)
	}
	if c.report != nil {
		c.report(t, report.markdown, steps)
	}
	for _, c := range report.diagnosis.Plan.Changes { // what the size below is checked against, in CI's log
		t.Logf("the report plans at %s: %s %s → %s (%s)", report.planAt.Format("15:04:05.000"), c.Key, c.Current, c.Proposed, c.Why.Text())
	}
	if report.freedAt == 0 {
		t.Errorf("the loop freed the table and the report does not say what freed it")
	} else if report.plannedMax > 2*report.freedAt {
		t.Errorf("the report proposes max %s, more than twice the %s that held the table once freed", units.Int(report.plannedMax), units.Int(report.freedAt))
	}
	if t.Failed() {
		t.Log(report.markdown)
	}
	clitest.UndoFromHost(t, ns, state, fmt.Sprint(incidentMax), c.knob, readSysctlBefore(c.knob))
	if *updateIncidents {
		clitest.CopyFile(t, rec, filepath.Join("../../../../testdata/incidents", c.name+".jsonl"))
	}
}

func saidOf(s *tuning.Said, p tuning.Plan) clitest.Said {
	var out clitest.Said
	if s != nil {
		out.Kind, out.Fills = s.Kind, s.Fills
		for _, v := range s.Verdicts {
			if v.Kind == s.Kind {
				out.Facts = v.Facts()
				break
			}
		}
	}
	for _, c := range append(slices.Clone(p.Changes), p.FromHost...) {
		out.Knobs = append(out.Knobs, c.Key)
	}
	slices.Sort(out.Knobs)
	out.Knobs = slices.Compact(out.Knobs)
	return out
}

// oneKind: the surfaces of one incident name one kind. Where a UDP table
// at its cap is both (TABLE FULL once its entries are assured, EARLY DROP
// while the kernel can still evict them), a surface that names the other
// kind saw another moment, and its own facts must say so: early drops
// and no drop for EARLY DROP, drops for TABLE FULL.
func oneKind(t *testing.T, surfaces map[string]clitest.Said) {
	t.Helper()
	kinds := map[verdict.Kind][]string{}
	for name, s := range surfaces {
		kinds[s.Kind] = append(kinds[s.Kind], name)
	}
	if len(kinds) < 2 {
		return
	}
	for name, s := range surfaces {
		counted := map[string]float64{}
		for _, f := range s.Facts {
			counted[f.Name] += f.Value
		}
		why := ""
		switch {
		case s.Kind == verdict.EarlyDropping && counted[string(model.EarlyDrop)] > 0 && counted["drops"] == 0:
			why = fmt.Sprintf("%.0f early drops, no drop", counted[string(model.EarlyDrop)])
		case s.Kind == verdict.TableFull && counted["drops"] > 0:
			why = fmt.Sprintf("%.0f drops", counted["drops"])
		}
		if why == "" {
			t.Errorf("the surfaces name %v; %s says %s and its facts do not show that moment: %+v", kinds, name, s.Kind, s.Facts)
			continue
		}
		t.Logf("%s saw %s: %s", name, s.Kind, why)
	}
}

// readSysctlBefore is the namespace's value of key before any test wrote
// it: the kernel's default.
func readSysctlBefore(key string) string {
	return map[string]string{knob.TimeWait: "120", knob.UDPTimeout: "30", knob.Max: fmt.Sprint(incidentMax)}[key]
}

// frameList is frames in time order (diagnose.Frames).
type frameList []diagnose.Frame

func (l frameList) Len() int                { return len(l) }
func (l frameList) At(i int) diagnose.Frame { return l[i] }

// reportRead is what the test reads of a recording's report.
type reportRead struct {
	markdown  string
	diagnosis tuning.Diagnosis
	// faults are contradictions on a frame, or in the report's text.
	faults []string
	// freedAt is the cap that held the table once freed (0: the report
	// does not say it was freed); plannedMax the max the report proposes
	// (0: none).
	freedAt, plannedMax uint64
	// planAt is the moment the report plans on.
	planAt time.Time
}

// reportOfRecording builds the report of the recording at path, as
// tablefull report does, and checks every frame of it on the way.
func reportOfRecording(t *testing.T, path string) reportRead {
	t.Helper()
	rec := recordingtest.Read(t, path)
	var out reportRead
	an := diagnose.NewAnalyzer(len(rec.Samples))
	for _, s := range rec.Samples {
		fr := an.Add(s)
		for _, c := range (tuning.Diagnosis{Now: fr}).Contradictions() {
			out.faults = append(out.faults, s.Time.Format("15:04:05")+": "+c)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.Build(f, report.Options{Source: filepath.Base(path)})
	if err != nil {
		t.Fatalf("report of %s: %v", path, err)
	}
	out.markdown = string(r.Markdown())
	faults, _ := printedtest.ArithmeticFaults(out.markdown)
	for _, fl := range faults {
		out.faults = append(out.faults, "the report prints "+fl)
	}
	d, ok := r.Incident.Diagnosis(0)
	if !ok {
		t.Fatalf("the report of %s has no pressed moment to plan on", path)
	}
	out.diagnosis, out.planAt = d, r.Incident.PlanAt()
	var upTo frameList // the frames tune --dry-run would have measured at the report's moment
	again := diagnose.NewAnalyzer(len(rec.Samples))
	for _, s := range rec.Samples {
		if fr := again.Add(s); !s.Time.After(r.Incident.PlanAt()) {
			upTo = append(upTo, fr)
		}
	}
	now := upTo[len(upTo)-1]
	knobs := tuning.KnobState{Current: modelincident.KnobsAt(now.Sample.Conntrack), Global: true}
	if same := tuning.Diagnose(tuning.Guide{Knobs: knobs, Host: rec.Host, Measured: upTo, Now: now}); !reflect.DeepEqual(same.Plan, d.Plan) {
		out.faults = append(out.faults, fmt.Sprintf("the report's plan %+v is not the one plan of its moment %+v", d.Plan, same.Plan))
	}
	for _, c := range d.Contradictions() {
		out.faults = append(out.faults, "the report's moment: "+c)
	}
	for _, c := range d.Plan.Changes {
		if c.Key == knob.Max {
			out.plannedMax, _ = strconv.ParseUint(c.Proposed, 10, 64)
		}
	}
	if fr, ok := r.Incident.FreedBy(); ok {
		out.freedAt = fr.Max
	}
	return out
}
