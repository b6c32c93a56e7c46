package diagnose

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

func TestRuleZoneFull(t *testing.T) {
	zones := []tally.Count{{Key: "zone 5", N: 150}, {Key: "zone 0", N: 70}, {Key: "zone 7", N: 30}}
	for _, tc := range []struct {
		name   string
		limits *model.ZoneLimits
		want   string // "" for no verdict
	}{
		{"no OVS limits read", nil, ""},
		{"zone 5 at its own limit", &model.ZoneLimits{Zones: []model.ZoneLimit{{Zone: 5, Limit: 150}}},
			"zone 5 holds 150 entries of its OVS limit 150 (the table at 250 of max 262,144): OVS refuses that zone's new connections"},
		{"its fix names the zone", &model.ZoneLimits{Zones: []model.ZoneLimit{{Zone: 5, Limit: 150}}}, "ovs-appctl dpctl/ct-set-limits zone=5,limit=N"},
		{"the default limit binds a zone without its own", &model.ZoneLimits{Default: 30}, "zone 5 holds 150 entries of its OVS limit 30; zone 7 holds 30 entries of its OVS limit 30 (the table"},
		{"zone 0 (the host's own flows too) only by a limit of its own", &model.ZoneLimits{Default: 60, Zones: []model.ZoneLimit{{Zone: 5, Limit: 0}, {Zone: 7, Limit: 0}}}, ""},
		{"zone 0 at a limit set for it", &model.ZoneLimits{Zones: []model.ZoneLimit{{Zone: 0, Limit: 70}}}, "zone 0 holds 70 entries of its OVS limit 70"},
		{"a zone's own 0 is no limit, whatever the default", &model.ZoneLimits{Default: 10, Zones: []model.ZoneLimit{{Zone: 5, Limit: 0}, {Zone: 0, Limit: 0}, {Zone: 7, Limit: 0}}}, ""},
		{"under its limit", &model.ZoneLimits{Zones: []model.ZoneLimit{{Zone: 5, Limit: 1000}}}, ""},
	} {
		v, ok := ruleZoneFull(Inputs{Sample: table(250, 250, 262144), Census: &model.Census{Total: 250, TopZones: zones, ZoneLimits: tc.limits}})
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
		if z, ok := model.ZoneOf(key); ok != want || (ok && model.ZoneKey(z) != key) {
			t.Errorf("ZoneOf(%q) = %d, %v", key, z, ok)
		}
	}
}
