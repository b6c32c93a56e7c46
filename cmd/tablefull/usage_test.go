package main

import (
	"strings"
	"testing"
)

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"replay"}, {"record"}, {"--interval", "1ms"}, {"replay", "x", "--speed", "0"}, {"bogus"},
		{"record", "/tmp/tablefull-never-written", "--duration", "-5s"}, {"lab", "nosuch"}, {"lab", "healthy", "--duration", "-1s"}} {
		var out, errb strings.Builder
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
	var labErr strings.Builder
	if run([]string{"lab", "nosuch"}, &strings.Builder{}, &labErr); !strings.Contains(labErr.String(), "table-full") {
		t.Errorf("lab nosuch does not list the scenarios: %q", labErr.String())
	}
	var out, errb strings.Builder
	if code := run([]string{"replay", "/no/such/file"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "/no/such/file") {
		t.Errorf("replay of a missing file: code %d, %q", code, errb.String())
	}
}
