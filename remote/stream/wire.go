package stream

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

// record is every line after the header; Kind says which fields are used.
type record struct {
	Kind string `json:"k"`
	wireSample
	wireEvent
	// parts holds the sample's fields the vocabulary carries as their
	// model's JSON, as decoded, not yet bounded.
	parts model.Sample
}

// wireSample is model.Sample with short keys and counters as arrays, to
// stay under 1 KB per sample on a small host.
type wireSample struct {
	TimeMS     int64      `json:"t,omitempty"`
	IntervalMS int64      `json:"iv,omitempty"`
	Table      *wireTable `json:"ct,omitempty"`
	Counters   *wireStats `json:"cs,omitempty"`
	CPU        []cpuRow   `json:"cpu,omitempty"`
	Disk       []diskRow  `json:"disk,omitempty"`
	TCP        *tcpRow    `json:"tcp,omitempty"`
	KernelLog  *wireKLog  `json:"klog,omitempty"`
	// Entries counts new entries by class (model.Entries), when counted or
	// with the note that says why not.
	Entries *wireEntries `json:"en,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
	// Absent are the parts not read (model.Parts: ["cpu","tcp"]); a stream
	// without it read every part its rows carry.
	Absent model.Parts `json:"ab,omitempty"`
}

// wireEntries is model.Entries: NEW events by protocol "n" [tcp, udp,
// icmp, other], DESTROY events by class "e" (by model.Class number),
// lost events "l", the epoch "ep", top destinations "td" and sources "ts"
// as [[key, n]].
type wireEntries struct {
	Source     string                    `json:"src,omitempty"`
	Note       string                    `json:"note,omitempty"`
	Epoch      uint64                    `json:"ep,omitempty"`
	New        *[model.NumProtos]uint64  `json:"n,omitempty"`
	Ended      *[model.NumClasses]uint64 `json:"e,omitempty"`
	Evicted    *[model.NumClasses]uint64 `json:"v,omitempty"`
	Lost       uint64                    `json:"l,omitempty"`
	TopDests   []countRow                `json:"td,omitempty"`
	TopSources []countRow                `json:"ts,omitempty"`
}

type wireTable struct {
	Status       model.TableStatus `json:"s"`
	Count        uint64            `json:"n"`
	Peak         uint64            `json:"pk"`
	Max          uint64            `json:"max"`
	Buckets      uint64            `json:"b"`
	TimeWaitHold uint64            `json:"tw"`
	// Holds is the hold of each class in seconds, by model.Class number
	// (0: not read); absent in streams older than the classes.
	Holds *[model.NumClasses]uint64 `json:"h,omitempty"`
}

type wireStats struct {
	Source   string     `json:"src,omitempty"`
	Note     string     `json:"note,omitempty"`
	Reported uint       `json:"rep"`
	PerCPU   []statsRow `json:"cpu,omitempty"`
}

type wireKLog struct {
	Readable   bool      `json:"r"`
	Note       string    `json:"note,omitempty"`
	Lines      []klogRow `json:"lines,omitempty"`
	Suppressed uint64    `json:"sup,omitempty"`
}

// wireEvent is an event record.
type wireEvent struct {
	Type string `json:"type,omitempty"`
	Text string `json:"text,omitempty"`
	// EventMS is the event's time in unix milliseconds.
	EventMS int64 `json:"et,omitempty"`
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
	w := wireSample{TimeMS: ms(s.Time), IntervalMS: s.Interval.Milliseconds(), Notes: s.Notes, Absent: s.Absent}
	c := s.Conntrack
	w.Table = &wireTable{Status: c.Status, Count: c.Count, Peak: c.Peak, Max: c.Max, Buckets: c.Buckets, TimeWaitHold: c.TimeWaitHold}
	if c.Holds != (model.ClassCounts{}) {
		h := [model.NumClasses]uint64(c.Holds)
		w.Table.Holds = &h
	}
	w.Entries = entriesToWire(s.Entries)
	st := &wireStats{Source: s.CTStats.Source, Note: s.CTStats.Note}
	for i, ctr := range model.AllCounters {
		if s.CTStats.Reports(ctr) {
			st.Reported |= 1 << i
		}
	}
	for _, row := range s.CTStats.PerCPU {
		r := statsRow{uint64(row.CPU)}
		copy(r[1:], row.Values[:])
		st.PerCPU = append(st.PerCPU, r)
	}
	w.Counters = st
	for _, t := range s.CPU {
		r := cpuRow{int64(t.CPU)}
		for i, v := range t.Times() {
			r[1+i] = centis(v)
		}
		w.CPU = append(w.CPU, r)
	}
	for _, d := range s.Disks {
		w.Disk = append(w.Disk, diskRow{name: d.Name, reads: d.Reads, writes: d.Writes, busy: d.BusyMillis})
	}
	t := s.TCP
	w.TCP = &tcpRow{t.SynRetrans, t.ListenOverflows, t.ListenDrops, t.ActiveOpens, t.PassiveOpens,
		t.OutRsts, t.TimeWait, t.Established, t.PortRange[0], t.PortRange[1]}
	k := &wireKLog{Readable: s.Kernel.Readable, Note: s.Kernel.Note, Suppressed: s.Kernel.Suppressed}
	for _, l := range s.Kernel.Lines {
		k.Lines = append(k.Lines, klogRow{at: ms(l.Time), text: l.Text, netns: l.NetNS, name: l.NetNSName})
	}
	w.KernelLog = k
	return w
}

func entriesToWire(e model.Entries) *wireEntries {
	w := &wireEntries{Source: e.Source, Note: e.Note}
	if e.Counted() {
		n, ended, evicted := e.New, [model.NumClasses]uint64(e.Ended), [model.NumClasses]uint64(e.Evicted)
		w.Epoch, w.New, w.Ended, w.Lost = e.Epoch, &n, &ended, e.Lost
		if !e.EvictedUnknown { // absent: not known, as from an agent older than the counts
			w.Evicted = &evicted
		}
		for _, c := range e.TopDests {
			w.TopDests = append(w.TopDests, countRow{c.Key, c.N})
		}
		for _, c := range e.TopSources {
			w.TopSources = append(w.TopSources, countRow{c.Key, c.N})
		}
	}
	return w
}
