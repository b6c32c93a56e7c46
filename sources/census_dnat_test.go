package sources

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestCheckDNATTargets: the unanswered DNAT targets the ruleset no longer
// names are gone; a ruleset not read leaves every one unjudged.
func TestCheckDNATTargets(t *testing.T) {
	targets := func() *model.Census {
		return &model.Census{StaleDNAT: []model.DNATTarget{{Target: "10.244.1.7:53", Unreplied: 30}, {Target: "10.244.2.9:53", Unreplied: 12}}}
	}
	c := targets()
	checkDNATTargets(c, func(context.Context) ([]byte, error) {
		return []byte("table ip nat { chain svc { udp dport 53 dnat to 10.244.2.9:53 } }"), nil
	}, nil)
	if !c.DNATChecked || fmt.Sprint(c.StaleDNAT) != "[{10.244.1.7:53 0 30   true} {10.244.2.9:53 0 12   false}]" {
		t.Errorf("checked %v: %v", c.DNATChecked, c.StaleDNAT)
	}
	c = targets()
	checkDNATTargets(c, func(context.Context) ([]byte, error) { return nil, errors.New("nft is not installed") }, nil)
	if c.DNATChecked || c.StaleDNAT[0].Gone || c.StaleDNAT[1].Gone {
		t.Errorf("an unread ruleset judged: %v %v", c.DNATChecked, c.StaleDNAT)
	}
	c = targets()
	checkDNATTargets(c, func(context.Context) ([]byte, error) { // IPVS's DNAT: no rule names any target
		return []byte("table ip filter { chain input { type filter hook input priority 0; } }"), nil
	}, nil)
	if c.DNATChecked {
		t.Errorf("a ruleset without any DNAT judged the targets gone: %v", c.StaleDNAT)
	}
}
