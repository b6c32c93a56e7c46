package model

import "testing"

func TestOwnerString(t *testing.T) {
	for _, c := range []struct {
		o    Owner
		want string
	}{
		{Owner{Comm: "duckdb", PID: 4242, Group: "user.slice", Kind: "cgroup"}, "duckdb (pid 4242, user.slice)"},
		{Owner{Comm: "curl", PID: 7, Group: "churn.service", Kind: "unit"}, "curl (pid 7, churn.service)"},
		{Owner{Comm: "envoy", PID: 9, Group: "3f2a-1b", Kind: "pod"}, "pod 3f2a-1b (envoy, pid 9)"}, {Owner{Comm: "timeout", PID: 24297, Group: "dg-pod", Kind: "netns"}, "netns dg-pod (timeout, pid 24297)"},
		{Owner{Comm: "sh", PID: 1, Group: "/", Kind: "cgroup"}, "sh (pid 1)"}, {Owner{Group: "/", Kind: "cgroup"}, "root cgroup"},
		{Owner{Group: "0123456789ab", Kind: "container"}, "container 0123456789ab"},
		{Owner{}, "unknown"},
		{Owner{Comm: "nginx (pid 1)", PID: 4242}, `"nginx (pid 1)" (pid 4242)`},
		{Owner{Comm: "kworker/0:1", PID: 5}, "kworker/0:1 (pid 5)"},
	} {
		if got := c.o.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

func TestDominantOwner(t *testing.T) {
	duck := OwnerCount{Owner: Owner{Comm: "duckdb", PID: 4242, Group: "user.slice", Kind: "cgroup"}, N: 910, Peer: "10.5.5.14:3900", PeerN: 900}
	web := OwnerCount{Owner: Owner{Comm: "nginx", PID: 3, Group: "nginx.service", Kind: "unit"}, Accepted: true, N: 600, Peer: "10.0.0.9:5000", PeerN: 10}
	for _, c := range []struct {
		name string
		o    *Owners
		want string
	}{
		{"one owner holds most", &Owners{Top: []OwnerCount{duck, {N: 40}}, Unowned: ClassCounts{ClassTCPDone: 50}},
			"91 % of the table's entries held by duckdb (pid 4242, user.slice) → 10.5.5.14:3900"},
		{"closed entries outweigh it", &Owners{Top: []OwnerCount{duck}, Unowned: ClassCounts{ClassTCPDone: 1000}}, ""},
		{"a server, peers spread", &Owners{Top: []OwnerCount{web}}, "100 % of the table's entries accepted by nginx (pid 3, nginx.service)"},
		{"a pod's traffic through its node", &Owners{Top: []OwnerCount{{Owner: Owner{Group: "3f2a-1b", Kind: "pod"}, Forwarded: true, N: 80, Peer: "10.0.0.9:443", PeerN: 80}}},
			"100 % of the table's entries forwarded from pod 3f2a-1b → 10.0.0.9:443"},
		{"a DNS server's lookups, their resolvers gone", &Owners{Top: []OwnerCount{{Owner: Owner{Comm: "dnsmasq", PID: 7, Group: "dnsmasq.service", Kind: "unit"}, Served: true, N: 399, Peer: "udp/53", PeerN: 399}}},
			"100 % of the table's entries are requests to udp/53 answered by dnsmasq (pid 7, dnsmasq.service), their clients' sockets gone: the clients make them"},
		{"not attributed", &Owners{Error: "sock_diag: permission denied"}, ""},
		{"not known", nil, ""},
	} {
		if got := c.o.DominantText(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestUnownedText(t *testing.T) {
	if got := (Owners{}).UnownedText(); got != "no entries to own" {
		t.Errorf("%q", got)
	}
	if got := (Owners{Top: []OwnerCount{{N: 3}}}).UnownedText(); got != "every entry has an owner here" {
		t.Errorf("%q", got)
	}
	got := (Owners{Unowned: ClassCounts{ClassTCPDone: 3000, ClassUDPSingle: 12}}).UnownedText()
	if got != "3,000 tcp-closed, 12 udp with no socket here (closed and held by their timeout, forwarded, or from elsewhere)" {
		t.Errorf("%q", got)
	}
}
