package stream

import (
	"strings"
	"testing"
)

// TestCensusCountsBounded: a census on the stream whose parts exceed its
// whole is bounded where it lands: the dying list is a part of the count
// read as the census began, never more.
func TestCensusCountsBounded(t *testing.T) {
	head := `{"tablefull":"stream","v":1,"host":{"name":"h"}}` + "\n"
	line := `{"k":"s","t":5,"cen":{"total":3,"count_before":300,"count_after":300,"count_read":true,"dying":18446744073709551615,"dying_read":true}}`
	d := NewDecoder(strings.NewReader(head + line + "\n"))
	if err := d.Header(); err != nil {
		t.Fatal(err)
	}
	s, _, err := d.Next()
	if err != nil || s == nil || s.Census == nil {
		t.Fatalf("%v %+v", err, s)
	}
	if c := s.Census; c.Dying != 300 || !c.DyingRead {
		t.Errorf("dying %d of a count of %d", c.Dying, c.CountBefore)
	}
}
