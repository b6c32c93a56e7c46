package model

import (
	"encoding/json"
	"strings"
)

// Part is a part of a sample that can be missing: not read (unreadable
// here, not scraped by Prometheus), as opposed to read and zero.
type Part uint8

// The parts a sample may lack.
const (
	PartCPU Part = 1 << iota
	PartDisks
	PartTCP
	allParts = PartCPU | PartDisks | PartTCP
)

// partNames are the parts as JSON, panels and the exporter name them.
var partNames = []struct {
	p    Part
	name string
}{{PartCPU, "cpu"}, {PartDisks, "disks"}, {PartTCP, "tcp"}}

// Parts is a set of parts.
type Parts uint8

// Has reports whether p is in the set.
func (s Parts) Has(p Part) bool { return s&Parts(p) != 0 }

// With is the set with p added.
func (s Parts) With(p Part) Parts { return s | Parts(p) }

// Valid is the set without bits no part has (a stream's value, checked).
func (s Parts) Valid() Parts { return s & Parts(allParts) }

// String names the parts: "cpu, tcp".
func (s Parts) String() string {
	var names []string
	for _, n := range partNames {
		if s.Has(n.p) {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", ")
}

// MarshalJSON writes the set as a list of names.
func (s Parts) MarshalJSON() ([]byte, error) {
	names := []string{}
	for _, n := range partNames {
		if s.Has(n.p) {
			names = append(names, n.name)
		}
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads the list MarshalJSON writes; unknown names are
// ignored.
func (s *Parts) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	*s = 0
	for _, name := range names {
		for _, n := range partNames {
			if n.name == name {
				*s = s.With(n.p)
			}
		}
	}
	return nil
}

// Known reports whether the rates of part p were read at both ends of
// the interval.
func (r Rates) Known(p Part) bool { return !r.Absent.Has(p) }
