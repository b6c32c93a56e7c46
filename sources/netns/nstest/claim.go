package nstest

// A Claim is what a test asks of the machine that every namespace shares:
// the conntrack cap (nf_conntrack_max) and the hashsize, one for the
// whole machine (KERNEL.md: the count is a namespace's, the cap the
// host's), and the machine's time. Tests whose claims agree run side by
// side, each in namespaces of its own; the others wait their turn.
type Claim struct {
	// Max is the cap the test sets and keeps, with as many buckets (0: it
	// keeps the host's).
	Max uint64
	// Changes says the test, or the tune or lab it runs, changes the knobs
	// while it runs, never below Max (0: to any value): no other test that
	// sets them, or tracks more than half of Max, runs beside it.
	Changes bool
	// Entries is the most entries the test's namespaces hold at once: a
	// test beside it may set the cap only to twice that or more.
	Entries int
	// Alone says the test reads what every namespace shares (the hash's
	// chains, the collector's passes), times the machine or loads every
	// CPU of it: no other claim runs beside it.
	Alone bool
	// Servers says the test starts servers that load the machine while
	// they start and scrape (a Prometheus and the exporters it scrapes)
	// and times what they serve: at most ServerSlots such claims run at
	// once, whatever else agrees with them.
	Servers bool
	// Quiet says the test's workload must keep a pace on CPUs it shares
	// (the seed's tenfold; a churn that must stand over half a cap): no
	// Heavy claim runs beside it.
	Quiet bool
	// Heavy says the test loads the CPUs for minutes (a virtual machine,
	// package and image builds, a fleet's import into two engines): no
	// Quiet claim runs beside it.
	Heavy bool
}

// ServerSlots is how many Servers claims run at once: two Prometheus
// servers and their exporters share the machine with the kernel tests
// beside them; five at once were seen to miss their screens' and
// their series' times.
const ServerSlots = 2

// setsKnobs says whether c writes the global knobs.
func (c Claim) setsKnobs() bool { return c.Max > 0 || c.Changes }

// agrees says whether tests claiming c and o may run at once.
func (c Claim) agrees(o Claim) bool {
	switch {
	case c.Alone || o.Alone:
		return false
	case c.Quiet && o.Heavy || o.Quiet && c.Heavy:
		return false
	case c.setsKnobs() && o.setsKnobs():
		return c.Max == o.Max && !c.Changes && !o.Changes
	case c.setsKnobs():
		return c.Max >= 2*uint64(o.Entries)
	case o.setsKnobs():
		return o.Max >= 2*uint64(c.Entries)
	}
	return true
}
