package nstest

import (
	"os"
	"path/filepath"
)

// StatText is a namespace's /proc/PID/net/stat/nf_conntrack on 2 CPUs:
// 0x12c = 300 entries, drops 0x10 + 0x20 and early drops 1.
const StatText = `entries  clashres found new invalid ignore delete chainlength insert insert_failed drop early_drop icmp_error  expect_new expect_create expect_delete search_restart
0000012c  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000010  00000001  00000000  00000000  00000000  00000000  00000000
0000012c  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000000  00000020  00000000  00000000  00000000  00000000  00000000  00000000
`

// FakeNetnsProcess makes process pid under proc, inside namespace inode ns,
// with StatText for its namespace's table; it returns that stat file.
func FakeNetnsProcess(proc, pid, ns, comm string) string {
	dir := filepath.Join(proc, pid)
	os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
	os.MkdirAll(filepath.Join(dir, "net", "stat"), 0o755)
	os.Symlink("net:["+ns+"]", filepath.Join(dir, "ns", "net"))
	os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644)
	stat := filepath.Join(dir, "net", "stat", "nf_conntrack")
	os.WriteFile(stat, []byte(StatText), 0o644)
	return stat
}
