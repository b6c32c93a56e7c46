package verdict

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model/units"
)

// Unit is what a fact's value counts, and so how every medium prints it.
type Unit string

// The units facts are in.
const (
	Entries Unit = "entries"
	Packets Unit = "packets"
	// Number is a count of anything else: CPUs, namespaces, ports,
	// events, buckets.
	Number Unit = "number"
	// PerSecond is a rate, printed as a number ("80"); the template says
	// of what ("{rate}/s", "{rate} new/s").
	PerSecond Unit = "per second"
	// Seconds is a timeout or hold, printed "120 s"; Duration a span,
	// printed "2 m 5 s".
	Seconds  Unit = "seconds"
	Duration Unit = "duration"
	Percent  Unit = "percent"
	Bytes    Unit = "bytes"
	// Ratio is a fraction printed with one decimal: a chain's depth.
	Ratio Unit = "ratio"
	// Name is a fact that is words: a class, an owner, a peer, a table,
	// a clock time. Its Text is what is printed; Value is 0.
	Name Unit = "name"
)

// Fact is one thing a verdict says, typed: a number with its unit, where
// it was read (Source: the kernel's file, counter or dump) and what it is
// about (Scope: which table, over which span); or a name. A product is a
// fact computed from others (Of), printed from them so it cannot
// disagree with them.
type Fact struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Text   string  `json:"text,omitempty"`
	Unit   Unit    `json:"unit"`
	Source string  `json:"source,omitempty"`
	Scope  string  `json:"scope,omitempty"`
	// AtLeast marks a lower bound ("≥ 80"): events were lost, or a
	// full table refused the rest.
	AtLeast bool `json:"at_least,omitempty"`
	// Of are the operands of a product (Times) or a quotient (Over), as
	// printed; Op says which ("×", "÷").
	Of []Fact `json:"of,omitempty"`
	Op string `json:"op,omitempty"`
}

// N is a number fact.
func N[T int | int64 | uint64 | uint32 | float64](name string, v T, u Unit) Fact {
	return Fact{Name: name, Value: float64(v), Unit: u}
}

// D is a span of time, in seconds.
func D(name string, d time.Duration) Fact {
	return Fact{Name: name, Value: d.Seconds(), Unit: Duration}
}

// W is a fact of words: a name, a class, a peer, a clock time.
func W(name, text string) Fact { return Fact{Name: name, Text: text, Unit: Name} }

// Times is the product of a and b as they are printed, so what is read
// computes: 80.4/s × 120 s prints "80/s × 120 s = 9,600".
func Times(name string, u Unit, a, b Fact) Fact {
	return Fact{Name: name, Value: math.Round(a.Printed() * b.Printed()), Unit: u, Of: []Fact{a, b}, Op: "×",
		Source: a.Name + " × " + b.Name, Scope: a.Scope}
}

// Over is a ÷ b as they are printed: 4,096 ÷ 120 s is a ceiling of 34/s.
func Over(name string, u Unit, a, b Fact) Fact {
	v := 0.0
	if b.Printed() != 0 {
		v = a.Printed() / b.Printed()
	}
	return Fact{Name: name, Value: v, Unit: u, Of: []Fact{a, b}, Op: "÷", Source: a.Name + " ÷ " + b.Name, Scope: a.Scope}
}

// Sum is the total of terms as they are printed: what a working set of
// several classes adds up to.
func Sum(name string, u Unit, terms ...Fact) Fact {
	v := 0.0
	for _, t := range terms {
		v += t.Printed()
	}
	return Fact{Name: name, Value: v, Unit: u, Of: terms, Op: "+", Source: "the sum of its terms"}
}

// From says where f was read and what it is about.
func (f Fact) From(source, scope string) Fact {
	f.Source, f.Scope = source, scope
	return f
}

// Lower marks f a lower bound.
func (f Fact) Lower() Fact {
	f.AtLeast = true
	return f
}

// String is f's value as every medium prints it: "4,096", "30 s",
// "94 %", "≥ 80", "512 MiB".
func (f Fact) String() string {
	s := f.value()
	if f.AtLeast {
		s = "≥ " + s
	}
	return s
}

func (f Fact) value() string {
	switch f.Unit {
	case Name:
		return f.Text
	case Duration:
		if f.Value > 0 && f.Value < 1 {
			return strconv.Itoa(int(f.Value*1000)) + " ms"
		}
		return units.Dur(time.Duration(f.Value * float64(time.Second)))
	case Seconds:
		return units.Int(uint64(max(math.Round(f.Value), 0))) + " s"
	case Percent:
		return strconv.Itoa(int(math.Round(f.Value))) + " %"
	case Bytes:
		return units.Bytes(uint64(max(f.Value, 0)))
	case Ratio:
		return fmt.Sprintf("%.1f", f.Value)
	case PerSecond:
		return units.Num(f.Value)
	}
	if f.Value == math.Trunc(f.Value) && f.Value >= 0 {
		return units.Int(uint64(f.Value))
	}
	return units.Num(f.Value)
}

// Printed is f's value rounded as String prints it: a product is taken
// of this, so what is read computes.
func (f Fact) Printed() float64 {
	switch f.Unit {
	case Name:
		return 0
	case Seconds, Percent:
		return math.Round(f.Value)
	case Duration:
		if f.Value < 1 {
			return math.Trunc(f.Value*1000) / 1000
		}
		return math.Round(f.Value)
	case Bytes:
		return f.Value
	case Ratio:
		return math.Round(f.Value*10) / 10
	}
	switch v := f.Value; {
	case v <= 0:
		return 0
	case v < 10 && v != math.Trunc(v):
		return math.Round(v*10) / 10
	default:
		return math.Round(v)
	}
}

// faults are the ways f disagrees with itself: a product that is not the
// product of its operands as printed.
func (f Fact) faults() []string {
	if f.Op == "+" {
		want := 0.0
		for _, t := range f.Of {
			want += t.Printed()
		}
		if math.Abs(f.Printed()-want) > 0.5 {
			return []string{fmt.Sprintf("%s prints %s, and its terms add to %s", f.Name, f, units.Num(want))}
		}
		return nil
	}
	if len(f.Of) != 2 {
		return nil
	}
	for _, o := range f.Of {
		if f.Op == "×" && o.Unit == PerSecond && o.Printed() == 0 {
			return []string{fmt.Sprintf("%s is a product of a rate not counted (%s %s)", f.Name, o.Name, o)}
		}
	}
	a, b := f.Of[0].Printed(), f.Of[1].Printed()
	want, slack := a*b, 0.5
	if f.Op == "÷" {
		if b == 0 {
			return nil
		}
		want = a / b
		if want < 10 { // printed to a tenth below ten
			slack = 0.05
		}
	}
	if math.Abs(f.Printed()-want) > slack {
		return []string{fmt.Sprintf("%s prints %s, and %s %s %s is %s", f.Name, f, f.Of[0], f.Op, f.Of[1], units.Num(want))}
	}
	return nil
}

// Cited is f with where it was read: "count 4,096 (nf_conntrack_count;
// this table)"; a name is its words alone.
func (f Fact) Cited() string {
	if f.Unit == Name || f.Source == "" {
		return f.Name + " " + f.String()
	}
	if f.Scope == "" {
		return f.Name + " " + f.String() + " (" + f.Source + ")"
	}
	return f.Name + " " + f.String() + " (" + f.Source + "; " + f.Scope + ")"
}
