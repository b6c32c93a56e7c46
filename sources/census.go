package sources

import (
	"context"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/ovs"
	"github.com/tablefull/tablefull/sources/owners"
	"github.com/tablefull/tablefull/sources/pods"
	"github.com/tablefull/tablefull/sources/ruleset"
)

// CensusDump counts the conntrack table as ctnetlink.Dump walks it, and
// joins its entries to the sockets that own them. It needs
// CAP_NET_ADMIN and reads the caller's network namespace.
type CensusDump struct {
	// Timeout bounds the whole dump.
	Timeout time.Duration
	// Holds are the classes' holds now in seconds (0: unknown): with
	// them, entries whose timeouts were given under longer ones are
	// counted, and with the established timeout, open connections idle
	// over an hour.
	Holds model.ClassCounts
	// Proc, when set, is the process root the entries' owners are found
	// under (/proc): the census then joins them to the namespace's
	// sockets (Census.Owners), and reads the count as it begins and ends
	// (expired entries not yet reaped: Census.CountBefore).
	Proc string
	// Ruleset, when set, lists the namespace's ruleset: read only when
	// the dump found UDP entries a DNAT sent somewhere, to tell which
	// targets are gone (Census.StaleDNAT). IptablesRules, when set, lists
	// iptables' nat table then, for the Service names kube-proxy's
	// iptables mode writes in comments nft does not print.
	Ruleset       func(context.Context) ([]byte, error)
	IptablesRules func(context.Context) ([]byte, error)
	// ZoneLimits, when set, reads OVS's limits per zone: asked only when
	// the dump found entries in zones.
	ZoneLimits func() (*model.ZoneLimits, error)
	// Kernel is the running kernel's release ("" unknown): a kernel
	// before 5.16 assures UDP early, so its assured UDP entries are
	// classed by the hold they have left (model.ClassHeld).
	Kernel string
}

// kernelRelease is the running kernel's release under proc ("" when not
// read).
func kernelRelease(proc string) string {
	r, _ := kernelfs.ReadSysctl(kernelfs.SysctlPath(proc, "kernel.osrelease"))
	return r
}

// TakeCensus is the census of the table of this network namespace as
// the console and tablefull census take it: bounded by a minute, joined
// to the sockets under proc, with the classes' holds (from the last
// sample's; read from proc when nil), its DNAT targets judged by the
// ruleset, its zones checked against OVS's limits and its pods named.
func TakeCensus(proc string, holds *model.ClassCounts) (model.Census, error) {
	if holds == nil {
		h := HoldsNow(proc)
		holds = &h
	}
	c, err := CensusDump{Timeout: time.Minute, Holds: *holds, Proc: proc, Ruleset: ruleset.List, IptablesRules: ruleset.ListIptablesNAT,
		ZoneLimits: ovs.ReadZoneLimits, Kernel: kernelRelease(proc)}.Run(model.CensusTop)
	c.NamePods(pods.OnNode(proc).Of)
	return c, err
}

// HoldsNow reads the classes' holds under proc as a sample does; one not
// read stays 0: unknown.
func HoldsNow(proc string) model.ClassCounts {
	t := counters.NewTable(proc)
	defer t.Close()
	c, _ := t.Read()
	return c.Holds
}

// Run dumps and counts; top is the length of each top list.
func (d CensusDump) Run(top int) (model.Census, error) {
	start := time.Now()
	c := model.NewCensusCounter(d.Holds)
	c.AssuredEarly = model.UDPAssuredEarly(d.Kernel)
	var ix *owners.SocketIndex
	var found *model.Owners
	if d.Proc != "" {
		var err error
		if ix, err = owners.DumpSockets(owners.SocketDump{Timeout: d.Timeout}); err != nil {
			found = &model.Owners{Error: err.Error()}
		} else {
			ix.AwayProc = d.Proc
		}
	}
	before, beforeRead := d.readCount()
	err := ctnetlink.Dump(d.Timeout, func(f model.Flow, interrupted bool) {
		if interrupted {
			c.MarkApproximate()
		}
		c.Add(f)
		if ix != nil {
			ix.Add(f)
		}
	})
	if err != nil {
		return model.Census{}, err
	}
	out := c.Census(top)
	if after, afterRead := d.readCount(); beforeRead && afterRead {
		out.CountBefore, out.CountAfter, out.CountRead = before, after, true
		if before >= uint64(max(0, out.Total))+model.StaleMin { // counted but not listed: expired, or dying
			if n, err := ctnetlink.CountDying(d.Timeout); err == nil {
				out.Dying, out.DyingRead = n, true
			}
		}
	}
	if ix != nil {
		o := ix.Owners(owners.NewRoots(d.Proc), model.OwnersShown)
		found = &o
	}
	out.Owners = found
	if d.Ruleset != nil {
		checkDNATTargets(&out, d.Ruleset, d.IptablesRules)
	}
	if out.TopZones != nil && d.ZoneLimits != nil {
		if l, err := d.ZoneLimits(); err != nil {
			out.ZoneLimitsNote = err.Error()
		} else {
			out.ZoneLimits = l
		}
	}
	out.At, out.Took = time.Now(), time.Since(start)
	return out, nil
}

// checkDNATTargets reads the ruleset (list, bounded by 2 s) when the
// dump found DNAT targets, and judges each by it (model.JudgeDNAT),
// naming their Services where kube-proxy wrote them (iptables, when set,
// lists iptables' nat table for the comments of its iptables mode). A
// ruleset not read, or one that holds no DNAT at all (the DNAT is IPVS's
// or a BPF program's, which no rule names), leaves them unjudged
// (DNATChecked false).
func checkDNATTargets(c *model.Census, list, iptables func(context.Context) ([]byte, error)) {
	if !c.HasDNAT() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	listing, err := list(ctx)
	if err != nil || !ruleset.HasDNAT(listing) {
		return
	}
	var saved []byte
	if iptables != nil {
		saved, _ = iptables(ctx) // no names without it, the judgement stands
	}
	services := ruleset.ParseServices(listing, saved)
	c.JudgeDNAT(ruleset.NamedIn(listing).Names, services.Of)
	c.NameDests(services.ByAddr)
}

// readCount reads the namespace's count under Proc; false without Proc
// or when it is not readable.
func (d CensusDump) readCount() (uint64, bool) {
	if d.Proc == "" {
		return 0, false
	}
	v, err := kernelfs.ReadSysctlUint(kernelfs.SysctlPath(d.Proc, counters.KeyCount))
	return v, err == nil
}
