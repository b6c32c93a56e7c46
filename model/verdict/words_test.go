package verdict

import (
	"strings"
	"testing"
)

func TestWordsSay(t *testing.T) {
	ws := Words{"drops": "{drops} drops"}
	c := ws.Say(Numbers, "drops", N("drops", 8, Packets))
	if got := c.Text(); got != "8 drops" {
		t.Errorf("text %q, want 8 drops", got)
	}
	if f := c.Faults(); len(f) != 0 {
		t.Errorf("faults of a whole clause: %v", f)
	}
	lost := ws.Say(Numbers, "drops.none")
	if f := lost.Faults(); len(f) != 1 || !strings.Contains(f[0], "no template") {
		t.Errorf("a key with no words: faults %v", f)
	}
	if got := lost.Text(); got != "{drops.none?}" {
		t.Errorf("a key with no words reads %q", got)
	}
}

func TestWordsMerge(t *testing.T) {
	all, err := Merge(Words{"a": "x"}, Words{"b": "y"})
	if err != nil || len(all) != 2 || all["a"] != "x" || all["b"] != "y" {
		t.Fatalf("merge: %v %v", all, err)
	}
	if _, err := Merge(Words{"a": "x"}, Words{"a": "x"}); err == nil {
		t.Error("a key written twice was merged")
	}
}

func TestWordsCompose(t *testing.T) {
	ws := Words{"sum": "{a}/s × {b}", "plus": " + ", "end": " = {total}"}
	a, b := N("a", 2, PerSecond), N("b", 30, Seconds)
	c := ws.Compose(Numbers, "plan", Part{Key: "sum", Facts: []Fact{a, b}, Nth: "0"}, Part{Key: "plus"},
		Part{Key: "sum", Facts: []Fact{N("a", 1, PerSecond), b}, Nth: "1"}, Part{Key: "end", Facts: []Fact{N("total", 90, Entries)}})
	if got, want := c.Text(), "2/s × 30 s + 1/s × 30 s = 90"; got != want {
		t.Errorf("composed %q, want %q", got, want)
	}
	if f := c.Faults(); len(f) != 0 {
		t.Errorf("faults of a whole composition: %v", f)
	}
	if f := ws.Compose(Numbers, "plan", Part{Key: "sum", Facts: []Fact{a, b}}, Part{Key: "gone"}).Faults(); len(f) != 1 || !strings.Contains(f[0], "gone") {
		t.Errorf("a part with no words: faults %v", f)
	}
}
