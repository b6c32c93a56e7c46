package tuning

import (
	"errors"
	"testing"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

func TestCheckChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []Change
		want    []Change
		wantErr bool
	}{
		{"re-rendered, free text dropped, sorted",
			[]Change{{Key: knob.TimeWait, Proposed: " 030 ", Current: "x\x1b]0;", Why: verdict.Prose("test", "evil\n")}, {Key: knob.Max, Proposed: "8192"}},
			[]Change{{Key: knob.Max, Proposed: "8192"}, {Key: knob.TimeWait, Proposed: "30"}}, false},
		{"port range normalised", []Change{{Key: knob.PortRange, Proposed: "10240-65535"}},
			[]Change{{Key: knob.PortRange, Proposed: "10240 65535"}}, false},
		{"unknown key", []Change{{Key: "kernel.core_pattern", Proposed: "|/tmp/pwn %p"}}, nil, true},
		{"newline in a value", []Change{{Key: knob.Max, Proposed: "1\nkernel.modprobe = /tmp/evil"}}, nil, true},
		{"newline in hashsize", []Change{{Key: knob.Hashsize, Proposed: "1\ninstall nf_conntrack /bin/sh -c 'id'"}}, nil, true},
		{"key with trailing junk", []Change{{Key: knob.Max + "\n", Proposed: "1"}}, nil, true},
		{"twice", []Change{{Key: knob.Max, Proposed: "1"}, {Key: knob.Max, Proposed: "2"}}, nil, true},
		{"too many", make([]Change, len(Knobs)+1), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckChanges(tc.in)
			if tc.wantErr {
				if !errors.Is(err, ErrBadValue) {
					t.Fatalf("got %v, %v; want ErrBadValue", got, err)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			for i := range got {
				if g, w := got[i], tc.want[i]; g.Key != w.Key || g.Proposed != w.Proposed || g.Current != w.Current || g.Why.Text() != w.Why.Text() {
					t.Errorf("change %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// FuzzParseValue: a value ParseValue accepts is numbers only, in bounds,
// and parses again to itself: what reaches a file is ours.
func FuzzParseValue(f *testing.F) {
	for _, k := range Knobs {
		f.Add(k.Key, "32768")
	}
	f.Add(knob.PortRange, "1024 - 65535")
	f.Add(knob.Max, "1\nkernel.modprobe = /tmp/evil")
	f.Fuzz(func(t *testing.T, key, value string) {
		v, err := ParseValue(key, value)
		if err != nil {
			return
		}
		for _, r := range v {
			if (r < '0' || r > '9') && r != ' ' {
				t.Fatalf("ParseValue(%q, %q) = %q", key, value, v)
			}
		}
		if again, err := ParseValue(key, v); err != nil || again != v {
			t.Fatalf("ParseValue(%q, %q) = %q, which parses to %q, %v", key, value, v, again, err)
		}
	})
}
