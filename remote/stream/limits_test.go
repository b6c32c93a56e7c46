package stream

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// allocated is the heap allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileLinesStayCheap: lines built to blow up once decoded are
// dropped (or cut) for a few times their size, each with ErrTooBig or a
// shape error, and the sample after them still decodes.
func TestHostileLinesStayCheap(t *testing.T) {
	var head bytes.Buffer
	NewEncoder(&head, model.Host{Name: "h"}, t0)
	good := `{"k":"s","t":5,"ct":{"s":"tracked","n":1,"pk":1,"max":2,"b":2,"tw":1}}` + "\n"
	const size = 4<<20 - 4096
	fill := func(prefix, unit, suffix string) string {
		n := (size - len(prefix) - len(suffix)) / len(unit)
		return prefix + strings.TrimSuffix(strings.Repeat(unit, n), ",") + suffix + "\n"
	}
	cpuRows := make([]string, MaxCPUs+1)
	for i := range cpuRows {
		cpuRows[i] = fmt.Sprintf("[%d,0,0,0,0,0,0,0,0]", i)
	}
	for name, line := range map[string]string{
		"empty arrays":        fill(`{"k":"s","cpu":[`, "[],", "]}"),
		"object keys":         fill(`{"k":"s","cen":{"by_proto":{`, `"a":0,`, "}}}"),
		"one endless row":     fill(`{"k":"s","disk":[["vda",`, "0,", "]]}"),
		"endless strings":     fill(`{"k":"s","notes":["`, "x", `"]}`),
		"too many CPUs":       `{"k":"s","cpu":[` + strings.Join(cpuRows, ",") + "]}\n",
		"kernel lines galore": fill(`{"k":"s","klog":{"r":true,"lines":[`, `[1,"t",0,""],`, "]}}"),
		"entry tops galore":   fill(`{"k":"s","en":{"src":"events","n":[1,0,0,0],"e":[0,0,0,0,0,0,0],"td":[`, `["udp/53",1],`, "]}}"),
	} {
		t.Run(name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(head.String() + line + good))
			if err := d.Header(); err != nil {
				t.Fatal(err)
			}
			var s *model.Sample
			var err error
			cost := allocated(func() { s, _, err = d.Next() })
			if err != nil {
				t.Fatalf("got %v, want the line dropped or kept and the stream going on", err)
			}
			if d.Damaged == 0 {
				for _, n := range s.Notes {
					if len(n) > MaxString {
						t.Errorf("a note of %d bytes was kept", len(n))
					}
				}
				s, _, err = d.Next() // the hostile line was a sample within the limits: the good one follows
			}
			if cost > 6*uint64(len(line))+8<<20 { // it was 25× before the limits
				t.Errorf("decoding a %d-byte line allocated %d MiB", len(line), cost>>20)
			}
			if err != nil || s == nil || s.Conntrack.Count != 1 {
				t.Errorf("the sample after it: %+v %v", s, err)
			}
			if _, _, err := d.Next(); err != io.EOF {
				t.Errorf("end: %v", err)
			}
		})
	}
}

// TestCensusZonesOnTheWire: a census's zones arrive as sent; more zones
// than a census keeps is a damaged line.
func TestCensusZonesOnTheWire(t *testing.T) {
	decode := func(zones []tally.Count) (*model.Sample, *Decoder) {
		var b bytes.Buffer
		enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
		s := twoCPUSample(1)
		s.Census = &model.Census{Total: 9, TopZones: zones}
		enc.Sample(s)
		dec := NewDecoder(&b)
		dec.Header()
		got, _, _ := dec.Next()
		return got, dec
	}
	two := []tally.Count{{Key: "zone 5", N: 7}, {Key: "zone 0", N: 2}}
	if got, _ := decode(two); got == nil || got.Census == nil || fmt.Sprint(got.Census.TopZones) != fmt.Sprint(two) {
		t.Errorf("zones arrived as %+v", got)
	}
	var many []tally.Count
	for z := range maxCensusKeys + 1 {
		many = append(many, tally.Count{Key: fmt.Sprintf("zone %d", z), N: 1})
	}
	if got, dec := decode(many); dec.Damaged == 0 {
		t.Errorf("%d zones taken: %+v", len(many), got.Census)
	}
}

// TestStaleDNATOnTheWire: a census's unanswered DNAT targets arrive with
// their counts clamped to its total; more than a census keeps is a
// damaged line.
func TestStaleDNATOnTheWire(t *testing.T) {
	decode := func(targets []model.DNATTarget) (*model.Sample, *Decoder) {
		var b bytes.Buffer
		enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
		s := twoCPUSample(1)
		s.Census = &model.Census{Total: 50, StaleDNAT: targets, DNATChecked: true}
		enc.Sample(s)
		dec := NewDecoder(&b)
		dec.Header()
		got, _, _ := dec.Next()
		return got, dec
	}
	got, _ := decode([]model.DNATTarget{{Target: "10.244.1.7:53", Entries: 1 << 41, Unreplied: 1 << 40, Via: "10.96.0.10:53", Service: "kube-system/kube-dns:dns\x1b[2J", Gone: true},
		{Target: "10.244.2.9:53", Unreplied: -3}})
	if got == nil || got.Census == nil || fmt.Sprint(got.Census.StaleDNAT) != "[{10.244.1.7:53 50 50 10.96.0.10:53 kube-system/kube-dns:dns\\x1b[2J true} {10.244.2.9:53 0 0   false}]" {
		t.Errorf("targets arrived as %v", got.Census.StaleDNAT)
	}
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Census = &model.Census{Total: 50, TopDests: []tally.Count{{Key: "10.96.0.10", N: 50}},
		DestServices: map[string]string{"10.96.0.10": "kube-system/kube-dns\x1b[2J", "10.1.1.1": "not/shown"}}
	enc.Sample(s)
	dec := NewDecoder(&b)
	dec.Header()
	if named, _, _ := dec.Next(); named == nil || fmt.Sprint(named.Census.DestServices) != `map[10.96.0.10:kube-system/kube-dns\x1b[2J]` {
		t.Errorf("destinations' Services arrived as %v", named)
	}
	many := make([]model.DNATTarget, model.StaleDNATShown+1)
	if got, dec := decode(many); dec.Damaged == 0 {
		t.Errorf("%d targets taken: %+v", len(many), got.Census)
	}
}

// TestCiliumOnTheWire: Cilium's maps arrive bounded: at most
// model.MaxCiliumMaps, none holding more entries than its size, who fills
// each at most model.MaxCiliumTops, none counting more than the map holds.
func TestCiliumOnTheWire(t *testing.T) {
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Cilium = &model.CiliumMaps{}
	for i := range 20 {
		s.Cilium.Maps = append(s.Cilium.Maps, model.CiliumMap{Name: fmt.Sprintf("cilium_ct%d", i), Entries: 1 << 50, Max: 1024})
	}
	for i := range 10 {
		s.Cilium.Maps[0].Endpoints = append(s.Cilium.Maps[0].Endpoints, tally.Count{Key: fmt.Sprintf("10.0.0.%d\x1b", i), N: 1 << 40})
	}
	enc.Sample(s)
	dec := NewDecoder(&b)
	dec.Header()
	got, _, err := dec.Next()
	if err != nil || got.Cilium == nil || len(got.Cilium.Maps) != model.MaxCiliumMaps || got.Cilium.Maps[0].Entries != 1024 {
		t.Fatalf("maps arrived as %+v (%v)", got.Cilium, err)
	}
	if e := got.Cilium.Maps[0].Endpoints; len(e) != model.MaxCiliumTops || e[0].N != 1024 {
		t.Errorf("who fills it arrived as %+v", e)
	}
}
