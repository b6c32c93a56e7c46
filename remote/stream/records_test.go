package stream

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
)

// everyFieldLines are lines our Encoder writes, with every field a sample
// or an event can carry, strings that need escapes among them.
func everyFieldLines(t testing.TB) [][]byte {
	s := twoCPUSample(0)
	s.Census = &model.Census{Total: 4096, ByProto: map[string]int{"tcp": 4000, "udp": 96}, TCPState: map[string]int{"TIME_WAIT": 3900},
		TopPorts: []tally.Count{{Key: "tcp/3900", N: 3900}}, TopZones: []tally.Count{{Key: "zone\x1b 5", N: 96}}, At: t0,
		StaleDNAT: []model.DNATTarget{{Target: "10.244.1.7:53", Unreplied: 40, Gone: true}}, DNATChecked: true,
		ZoneLimits: &model.ZoneLimits{Default: 1000, Zones: []model.ZoneLimit{{Zone: 5, Limit: 150}}}, ZoneLimitsNote: "", Took: time.Second,
		Owners: &model.Owners{Top: []model.OwnerCount{{Owner: model.Owner{Comm: "duck\"db\x1b", PID: 42, Group: "a b.service", Kind: "unit"}, N: 3, Peer: "10.0.0.1:80", PeerN: 3}},
			Unowned: model.ClassCounts{model.ClassTCPDone: 1}, Sockets: 4}}
	s.Namespaces = &model.Namespaces{Rows: []model.NetNS{{Inode: 9, Name: "cni-1", Kind: "netns", PID: 7, Count: 40, DropsRead: true}}, Others: 2}
	s.Drift = &knob.Drifts{Checked: []string{knob.Max}, Drifted: []knob.Drift{{Knob: knob.Max, Persisted: "262144", Live: "65536"}}}
	s.Listeners = &model.Listeners{Pressed: []model.Listener{{Addr: "127.0.0.1:8080", Queue: 6, Backlog: 5,
		Owner: model.Owner{Comm: "py\u202ethon", PID: 9, Group: "slow.service", Kind: "unit"}}}, Somaxconn: 4096, Listening: 2}
	s.Who = &model.Who{Conns: []model.ConnFlow{{Owner: model.Owner{Comm: "duck\tdb", PID: 4242, Group: "user.slice", Kind: "cgroup"},
		Dest: "10.5.5.14:3900", Opened: 120, Closed: 118, LifeSum: 236 * time.Millisecond, Life: [model.LifeBuckets]uint32{0, 100, 18}}},
		Drops:       []model.DropFlow{{Owner: model.Owner{Group: "user.slice", Kind: "cgroup"}, Src: "10.0.0.1", Dest: "10.5.5.14:3900", Proto: 6, N: 30}},
		OtherOpened: 4, Lost: 1}
	s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "snat", Chain: "ip nat\u202e post", Addrs: []string{"10.0.0.1-10.0.0.4"}, Ports: [2]uint16{20000, 20007}, Flags: []string{"random-fully"}}}}
	s.Allowance = []model.Allowance{{Iface: "ens5\x1b", Driver: "ena", Exceeded: 1 << 40, Available: 3, AvailableRead: true}}
	s.Cilium = &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_ct4\x1b_global", Entries: 510000, Max: 524288}}, Note: "open cilium_ct6_global: permission denied",
		Drops: []model.CiliumDrop{{Reason: 155, Name: "CT: Map insertion failed\x1b", Packets: 42, Rose: 20}}}
	s.Ports = &model.PortUse{Dests: []model.DestPorts{{Src: "10.0.0.2", Dst: "10.0.0.9:80\x1b", Ports: 28000, TimeWait: 12}}, Outbound: 28000, Inbound: 3}
	s.IPVS = &model.IPVS{Present: true, Size: 4096, Conns: 3, Services: 1, Top: []tally.Count{{Key: "TCP 10.9.9.9:80\x1b", N: 3}}, ReuseMode: "1",
		Rows: []model.IPVSConn{{Proto: "TCP", From: "10.0.0.5:40000", To: "10.9.9.9:80", Dest: "127.0.0.1:80", State: "SYN_RECV", Expires: 59}}}
	s.Flushes = &model.Flushes{Watching: true, Deleted: 1000, Recent: []model.Flush{{From: t0, To: t0, Entries: 1000, UDP: 1000,
		Dests: []model.FlushDest{{Dest: "udp 10.96.0.10:53", Entries: 1000, Service: "kube-system/kube\x1b-dns:dns"}}}}}
	s.Absent = model.Parts(model.PartDisks)
	s.Kernel.Lines = append(s.Kernel.Lines, model.KernelLine{Time: t0, Text: "a <tag> & \"quote\" \\ é \u2028 \x01 \xff end", NetNSName: "ns\tname"})
	s.Notes = append(s.Notes, "", "naïve", "bad \xfe\xfe utf-8")
	s.Disks = append(s.Disks, model.DiskIO{Name: "nvme0n1", Reads: 1 << 63}, model.DiskIO{Name: "vda"})
	s.CPU[0].IRQ = -3
	var buf bytes.Buffer
	enc, err := NewEncoder(&buf, model.Host{Name: "h"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	enc.Sample(s)
	enc.Sample(model.Sample{Time: t0, Conntrack: model.Conntrack{Status: model.TableNoModule}})
	enc.Event(Event{Time: t0, Type: "apply", Text: `{"ok":true,"knob":"<max>"}`})
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	return lines[1 : len(lines)-1] // after the header, before the empty tail
}

// TestScanReadsWhatWeWrite: every line our Encoder writes is read by the
// scanner (not handed to encoding/json), to the values encoding/json reads.
func TestScanReadsWhatWeWrite(t *testing.T) {
	var d lineDecoder
	for i, line := range everyFieldLines(t) {
		got, ok := d.scan(line)
		if !ok {
			t.Fatalf("line %d is not read by the scanner: %s", i, line)
		}
		want, err := decodeJSON(line)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line %d:\nscan %+v\njson %+v", i, got, want)
		}
	}
}

// TestScanLeavesOddLinesToJSON: valid JSON our Encoder never writes goes
// to encoding/json, which reads it as it always did.
func TestScanLeavesOddLinesToJSON(t *testing.T) {
	for _, line := range []string{
		`{"k":"s", "t":1}`,              // whitespace
		`{"K":"s","t":1}`,               // a key in another case
		`{"k":"s","t":1,"t":2}`,         // a key twice
		`{"k":"s","t":1.0}`,             // a fraction
		`{"k":"s","t":1e3}`,             // an exponent
		`{"k":"s","tcp":null}`,          // null
		`{"k":"s","zz":[1]}`,            // a field we do not know
		`{"k":"s","ct":{"n":1,"n":2}}`,  // a nested key twice
		`{"k":"s","notes":["a\u00e9"]}`, // an escape the scanner hands on
		`{"k":"s","cpu":[[0,1,2,3,4,5,6,7,-0]]}`,
	} {
		var d lineDecoder
		got, err := d.decode([]byte(line))
		want, wantErr := decodeJSON([]byte(line))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decode %+v %v, encoding/json %+v %v", line, got, err, want, wantErr)
		}
	}
}

// FuzzScanAgrees is the differential target: whatever the scanner
// accepts, encoding/json accepts too and reads to the same record.
func FuzzScanAgrees(f *testing.F) {
	for _, line := range everyFieldLines(f) {
		f.Add(line)
	}
	f.Add([]byte(`{"k":"s","t":-9223372036854775808,"tcp":[18446744073709551615,0,0,0,0,0,0,0,0,0]}`))
	f.Add([]byte(`{"k":"s","disk":[["a\"b",1,2,3]],"klog":{"r":false,"lines":[]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var d lineDecoder
		got, ok := d.scan(line)
		if !ok {
			return
		}
		want, err := decodeJSON(line)
		if err != nil {
			t.Fatalf("the scanner read %q, encoding/json refuses it: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nscan %+v\njson %+v", line, got, want)
		}
	})
}

// TestScanKeepsLittle: what a decoder keeps from line to line is bounded
// by the limits, not by what a stream sends: a long disk name is decoded
// but not kept, and a row array grown past a sample's limits is let go.
func TestScanKeepsLittle(t *testing.T) {
	var d lineDecoder
	long := strings.Repeat("d", 1000)
	if rec, ok := d.scan([]byte(`{"k":"s","disk":[["` + long + `",1,2,3],["vda",1,2,3]]}`)); !ok || rec.Disk[0].name != long {
		t.Fatalf("a long disk name: %v %+v", ok, rec.Disk)
	}
	if _, kept := d.names[long]; kept || len(d.names) != 1 {
		t.Errorf("the decoder keeps %d names, the long one %v: want only vda", len(d.names), kept)
	}
	rows := strings.Repeat("[0,0,0,0,0,0,0,0,0],", MaxCPUs+1)
	if _, ok := d.scan([]byte(`{"k":"s","cpu":[` + rows[:len(rows)-1] + `]}`)); !ok {
		t.Fatal("the scanner refused rows past the limits (checkRows refuses them, after)")
	}
	if d.cpu != nil {
		t.Errorf("a row array of %d kept for the next line", cap(d.cpu))
	}
}
