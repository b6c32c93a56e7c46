package model

import (
	"strings"
	"testing"
)

func TestRuleZoneFull(t *testing.T) {
	zones := []Count{{"zone 5", 150}, {"zone 0", 70}, {"zone 7", 30}}
	for _, tc := range []struct {
		name   string
		limits *ZoneLimits
		want   string // "" for no verdict
	}{
		{"no OVS limits read", nil, ""},
		{"zone 5 at its own limit", &ZoneLimits{Zones: []ZoneLimit{{5, 150}}},
			"zone 5 holds 150 entries of its OVS limit 150 (the table at 250 of max 262,144): OVS refuses that zone's new connections"},
		{"its fix names the zone", &ZoneLimits{Zones: []ZoneLimit{{5, 150}}}, "ovs-appctl dpctl/ct-set-limits zone=5,limit=N"},
		{"the default limit binds a zone without its own", &ZoneLimits{Default: 30}, "zone 5 holds 150 entries of its OVS limit 30; zone 7 holds 30 entries of its OVS limit 30 (the table"},
		{"zone 0 (the host's own flows too) only by a limit of its own", &ZoneLimits{Default: 60, Zones: []ZoneLimit{{5, 0}, {7, 0}}}, ""},
		{"zone 0 at a limit set for it", &ZoneLimits{Zones: []ZoneLimit{{0, 70}}}, "zone 0 holds 70 entries of its OVS limit 70"},
		{"a zone's own 0 is no limit, whatever the default", &ZoneLimits{Default: 10, Zones: []ZoneLimit{{5, 0}, {0, 0}, {7, 0}}}, ""},
		{"under its limit", &ZoneLimits{Zones: []ZoneLimit{{5, 1000}}}, ""},
	} {
		v, ok := ruleZoneFull(Inputs{Sample: table(250, 250, 262144), Census: &Census{Total: 250, TopZones: zones, ZoneLimits: tc.limits}})
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: %s", tc.name, v)
		case tc.want != "" && (!ok || !strings.Contains(v.Text(), tc.want)):
			t.Errorf("%s: %v %q, want %q", tc.name, ok, v.Text(), tc.want)
		}
	}
}

func TestZoneOf(t *testing.T) {
	for key, want := range map[string]bool{"zone 5": true, "zone 65535": true, "zone 0": true, "zone 65536": false, "zone 5x": false, "zone -1": false, "tcp/53": false} {
		if z, ok := ZoneOf(key); ok != want || (ok && ZoneKey(z) != key) {
			t.Errorf("ZoneOf(%q) = %d, %v", key, z, ok)
		}
	}
}
