package entry

import (
	"errors"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestLabelFilter: -l names, comma-separated or given again, match the
// entries that have every one of their bits set, as conntrack -L -l does;
// a name connlabel.conf lacks is refused, and a filter whose names were
// never looked up lists nothing.
func TestLabelFilter(t *testing.T) {
	conf := ParseConnlabel("# a comment\n5 five\n7\tseven # trailing\n200 huge\n9 five\n70 high\nnot-a-line\n")
	if len(conf) != 3 || conf["five"] != 5 || conf["seven"] != 7 || conf["high"] != 70 {
		t.Fatalf("connlabel.conf read as %v", conf)
	}
	args, err := FilterWords("-p udp -l five -l high")
	if err != nil || args["label"] != "five,high" {
		t.Fatalf("-l twice: %v %v", args, err)
	}
	f, err := ParseFilter(args)
	if err != nil || strings.Join(f.Labels, ",") != "five,high" || !strings.Contains(f.String(), "-l five,high") {
		t.Fatalf("parse: %+v %v", f, err)
	}
	if _, err := NewList(f, "", false, 10); !errors.Is(err, ErrLabelsUnread) {
		t.Errorf("a filter by labels not looked up listed: %v", err)
	}
	if f.Match(model.Flow{Proto: 17, Labels: [2]uint64{1 << 5, 1 << 6}}) {
		t.Error("a filter by labels not looked up matched")
	}
	f, err = f.WithLabelBits(conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		labels [2]uint64
		want   bool
	}{{[2]uint64{1 << 5, 1 << 6}, true}, {[2]uint64{1<<5 | 1<<7, 1<<6 | 1}, true}, {[2]uint64{1 << 5, 0}, false}, {[2]uint64{0, 1 << 6}, false}, {}} {
		if got := f.Match(model.Flow{Proto: 17, Labels: c.labels}); got != c.want {
			t.Errorf("labels %x: match %v, want %v", c.labels, got, c.want)
		}
	}
	if _, err := (Filter{Labels: []string{"nine"}}).WithLabelBits(conf); !errors.Is(err, ErrBadFilter) || !strings.Contains(err.Error(), "--label nine: not a label of connlabel.conf") {
		t.Errorf("an unknown name: %v", err)
	}
	for _, bad := range []string{"a b", "x;rm", strings.Repeat("a", 65), ""} {
		if _, err := ParseFilter(FilterArgs{"label": bad}); bad != "" && err == nil {
			t.Errorf("label %q taken", bad)
		}
	}
}
