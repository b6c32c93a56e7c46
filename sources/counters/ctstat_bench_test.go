package counters

import (
	"fmt"
	"strings"
	"testing"
)

// bigCTStat is /proc/net/stat/nf_conntrack of a 384-CPU host, the
// modern header.
func bigCTStat() []byte {
	var b strings.Builder
	b.WriteString("entries clashres found new invalid ignore delete chainlength insert insert_failed drop early_drop icmp_error expect_new expect_create expect_delete search_restart\n")
	for cpu := range 384 {
		fmt.Fprintf(&b, "%08x 00000001 00000000 00000000 %08x 00000000 00000000 00000003 00000000 00000004 %08x 0000004d 00000005 00000000 00000000 00000000 0004583e\n", 4096, cpu, cpu*7)
	}
	return []byte(b.String())
}

// BenchmarkCTStatRead: what reading the per-CPU counters costs each
// interval (the glance far from the cap reads them every second) on a
// 384-CPU host, parsed by the file's parser as it runs.
func BenchmarkCTStatRead(b *testing.B) {
	in := bigCTStat()
	var p ctStatParser
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.parse(in); err != nil {
			b.Fatal(err)
		}
	}
}
