package remote

import (
	"time"

	"github.com/tablefull/tablefull/model"
)

// Version is the stream format version this build writes and reads.
const Version = 1

// header is the first line of a stream.
type header struct {
	Magic   string     `json:"tablefull"`
	V       int        `json:"v"`
	Host    model.Host `json:"host"`
	Started time.Time  `json:"started"`
}

// record is every line after the header; K says which fields are used.
type record struct {
	K string `json:"k"`
	wireSample
	wireEvent
}

// wireSample is model.Sample with short keys and counters as arrays, to
// stay under 1 KB per sample on a small host.
type wireSample struct {
	T    int64      `json:"t,omitempty"`
	IV   int64      `json:"iv,omitempty"`
	CT   *wireTable `json:"ct,omitempty"`
	CS   *wireStats `json:"cs,omitempty"`
	CPU  []cpuRow   `json:"cpu,omitempty"`
	Disk []diskRow  `json:"disk,omitempty"`
	TCP  *tcpRow    `json:"tcp,omitempty"`
	KLog *wireKLog  `json:"klog,omitempty"`
	// Cen is a table census (model.Census as JSON), when one finished.
	Cen *model.Census `json:"cen,omitempty"`
	// En counts new entries by class (model.Entries), when counted or
	// with the note that says why not.
	En    *wireEntries `json:"en,omitempty"`
	Notes []string     `json:"notes,omitempty"`
	// NS are the host's other network namespaces (model.Namespaces as
	// JSON), when read.
	NS *model.Namespaces `json:"ns,omitempty"`
	// Dr is the drift of persisted tuning (model.Drifts as JSON), when
	// checked.
	Dr *model.Drifts `json:"dr,omitempty"`
	// Ls are the pressed listeners (model.Listeners as JSON), when read.
	Ls *model.Listeners `json:"ls,omitempty"`
	// Al is the cloud NICs' own connection tracking, when any keeps it.
	Al []model.Allowance `json:"al,omitempty"`
	// Cil is Cilium's conntrack maps, where Cilium runs.
	Cil *model.CiliumMaps `json:"cil,omitempty"`
	// IPV is IPVS: its services and table where loaded, "not present"
	// where not.
	IPV *model.IPVS `json:"ipv,omitempty"`
	// Fl are the bursts of entries user space deleted, where watched.
	Fl *model.Flushes `json:"fl,omitempty"`
	// NAT is the ruleset's source NAT (model.NAT as JSON), when read.
	NAT *model.NAT `json:"nat,omitempty"`
	// Pt are the local ports by destination (model.PortUse as JSON), when
	// read.
	Pt *model.PortUse `json:"pt,omitempty"`
	// Who is what the kernel probes counted (model.Who as JSON).
	Who *model.Who `json:"who,omitempty"`
	// Ab are the parts not read (model.Parts: ["cpu","tcp"]); a stream
	// without it read every part its rows carry.
	Ab model.Parts `json:"ab,omitempty"`
}

// wireEntries is model.Entries: NEW events by protocol "n" [tcp, udp,
// icmp, other], DESTROY events by class "e" (model.AllClasses' order),
// lost events "l", the epoch "ep", top destinations "td" and sources "ts"
// as [[key, n]].
type wireEntries struct {
	Src  string                    `json:"src,omitempty"`
	Note string                    `json:"note,omitempty"`
	Ep   uint64                    `json:"ep,omitempty"`
	N    *[model.NumProtos]uint64  `json:"n,omitempty"`
	E    *[model.NumClasses]uint64 `json:"e,omitempty"`
	V    *[model.NumClasses]uint64 `json:"v,omitempty"`
	L    uint64                    `json:"l,omitempty"`
	TD   []countRow                `json:"td,omitempty"`
	TS   []countRow                `json:"ts,omitempty"`
}

type wireTable struct {
	S   model.TableStatus `json:"s"`
	N   uint64            `json:"n"`
	PK  uint64            `json:"pk"`
	Max uint64            `json:"max"`
	B   uint64            `json:"b"`
	TW  uint64            `json:"tw"`
	// H is the hold of each class in seconds, model.AllClasses' order
	// (0: not read); absent in streams older than the classes.
	H *[model.NumClasses]uint64 `json:"h,omitempty"`
}

type wireStats struct {
	Src  string     `json:"src,omitempty"`
	Note string     `json:"note,omitempty"`
	Rep  uint       `json:"rep"`
	CPU  []statsRow `json:"cpu,omitempty"`
}

type wireKLog struct {
	R     bool      `json:"r"`
	Note  string    `json:"note,omitempty"`
	Lines []klogRow `json:"lines,omitempty"`
	Sup   uint64    `json:"sup,omitempty"`
}

// wireEvent is an event record.
type wireEvent struct {
	Type string `json:"type,omitempty"`
	Text string `json:"text,omitempty"`
	// ET is the event's time in unix milliseconds.
	ET int64 `json:"et,omitempty"`
}

// Event is something that happened, carried beside the samples.
type Event struct {
	Time time.Time
	Type string
	Text string
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func centis(s float64) int64 { return int64(s*100 + 0.5) }

func toWire(s model.Sample) wireSample {
	w := wireSample{T: ms(s.Time), IV: s.Interval.Milliseconds(), Notes: s.Notes, Cen: s.Census, Ab: s.Absent, NS: s.Namespaces, Dr: s.Drift, Ls: s.Listeners, Who: s.Who, NAT: s.NAT, Al: s.Allowance, Cil: s.Cilium, IPV: s.IPVS, Fl: s.Flushes, Pt: s.Ports}
	c := s.Conntrack
	w.CT = &wireTable{S: c.Status, N: c.Count, PK: c.Peak, Max: c.Max, B: c.Buckets, TW: c.TimeWaitHold}
	if c.Holds != (model.ClassCounts{}) {
		h := [model.NumClasses]uint64(c.Holds)
		w.CT.H = &h
	}
	w.En = entriesToWire(s.Entries)
	st := &wireStats{Src: s.CTStats.Source, Note: s.CTStats.Note}
	for i, ctr := range model.AllCounters {
		if s.CTStats.Reports(ctr) {
			st.Rep |= 1 << i
		}
	}
	for _, row := range s.CTStats.PerCPU {
		r := statsRow{uint64(row.CPU)}
		copy(r[1:], row.Values[:])
		st.CPU = append(st.CPU, r)
	}
	w.CS = st
	for _, t := range s.CPU {
		w.CPU = append(w.CPU, cpuRow{int64(t.CPU), centis(t.User), centis(t.Nice), centis(t.System),
			centis(t.Idle), centis(t.IOWait), centis(t.IRQ), centis(t.SoftIRQ), centis(t.Steal)})
	}
	for _, d := range s.Disks {
		w.Disk = append(w.Disk, diskRow{name: d.Name, reads: d.Reads, writes: d.Writes, busy: d.BusyMillis})
	}
	t := s.TCP
	w.TCP = &tcpRow{t.SynRetrans, t.ListenOverflows, t.ListenDrops, t.ActiveOpens, t.PassiveOpens,
		t.OutRsts, t.TimeWait, t.Established, t.PortRange[0], t.PortRange[1]}
	k := &wireKLog{R: s.Kernel.Readable, Note: s.Kernel.Note, Sup: s.Kernel.Suppressed}
	for _, l := range s.Kernel.Lines {
		k.Lines = append(k.Lines, klogRow{at: ms(l.Time), text: l.Text, netns: l.NetNS, name: l.NetNSName})
	}
	w.KLog = k
	return w
}

func entriesToWire(e model.Entries) *wireEntries {
	w := &wireEntries{Src: e.Source, Note: e.Note}
	if e.Counted() {
		n, ended, evicted := e.New, [model.NumClasses]uint64(e.Ended), [model.NumClasses]uint64(e.Evicted)
		w.Ep, w.N, w.E, w.V, w.L = e.Epoch, &n, &ended, &evicted, e.Lost
		for _, c := range e.TopDests {
			w.TD = append(w.TD, countRow{c.Key, c.N})
		}
		for _, c := range e.TopSources {
			w.TS = append(w.TS, countRow{c.Key, c.N})
		}
	}
	return w
}

// modelPart is where key's value goes when it is kept as its model's
// JSON, decoded whole; nil for a key that is not one of those parts.
func modelPart(w *wireSample, key []byte) any {
	switch string(key) {
	case "cen":
		return &w.Cen
	case "ns":
		return &w.NS
	case "dr":
		return &w.Dr
	case "ls":
		return &w.Ls
	case "who":
		return &w.Who
	case "nat":
		return &w.NAT
	case "al":
		return &w.Al
	case "cil":
		return &w.Cil
	case "ipv":
		return &w.IPV
	case "fl":
		return &w.Fl
	case "pt":
		return &w.Pt
	}
	return nil
}
