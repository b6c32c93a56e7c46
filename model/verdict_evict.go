package model

import "fmt"

// nothingToEvict says why a full table drops without evicting: its
// entries are assured (established), which early drop never frees; ""
// when it evicted, or when that is not known.
func nothingToEvict(in Inputs) string {
	r := in.Rates
	if r.CTTotal.Get(Drop) == 0 || r.CTTotal.Get(EarlyDrop) > 0 {
		return ""
	}
	if cs := in.Census; cs != nil && cs.AssuredCounted && cs.Total > 0 && cs.Assured*10 >= cs.Total*9 {
		return fmt.Sprintf("nothing to evict: %s of %s entries are assured (%s unreplied), which early drop never frees: raise nf_conntrack_max or lower the established timeout, not the TIME_WAIT hold",
			Int(uint64(cs.Assured)), Int(uint64(cs.Total)), Int(uint64(cs.Unreplied)))
	}
	if cf, ok := in.Fill.Top(); ok && cf.Class.Standing() && in.Fill.Counted {
		return fmt.Sprintf("nothing to evict: %s entries stand open (established), which early drop never frees: raise nf_conntrack_max or lower the established timeout, not the TIME_WAIT hold",
			Int(cf.Entries))
	}
	return ""
}
