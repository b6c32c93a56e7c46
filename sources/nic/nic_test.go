package nic

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestEthtoolStatsOfAVeth: the ioctl path on a real NIC driver — a veth
// pair in a namespace of the test's own: its driver is veth and its
// statistic peer_ifindex is its peer's index.
func TestEthtoolStatsOfAVeth(t *testing.T) {
	kernelfstest.Need(t, "a namespace")
	ns, err := netns.Create(fmt.Sprintf("tft-nic-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Delete()
	if out, err := ns.Command("ip", "link", "add", "tfta", "type", "veth", "peer", "name", "tftb").CombinedOutput(); err != nil {
		t.Fatalf("ip link add: %v %s", err, out)
	}
	peer, err := ns.Output("cat", "/sys/class/net/tftb/ifindex")
	if err != nil {
		t.Fatal(err)
	}
	var driver string
	var stats map[string]uint64
	if err := ns.Do(func() (err error) { driver, stats, err = new(ethtoolBuffers).stats("tfta"); return err }); err != nil {
		t.Fatal(err)
	}
	want, _ := strconv.ParseUint(string(peer[:len(peer)-1]), 10, 64)
	if got, ok := stats["peer_ifindex"]; driver != "veth" || !ok || got != want {
		t.Errorf("driver %q, peer_ifindex %d (%v), want veth and %d; stats %v", driver, got, ok, want, stats)
	}
}

// TestReaderFindsTheNICsThatKeepAllowances: only the NICs whose driver
// keeps the counters are read, each NIC's allowance as its statistics
// say (available only where the driver keeps it), the interfaces listed
// again after RescanEvery; a NIC that fails to answer is left out.
func TestReaderFindsTheNICsThatKeepAllowances(t *testing.T) {
	sys := t.TempDir()
	link := func(iface, driver string) {
		dev := filepath.Join(sys, "class", "net", iface, "device")
		os.MkdirAll(dev, 0o755)
		os.Symlink("../../../../bus/pci/drivers/"+driver, filepath.Join(dev, "driver"))
	}
	link("ens5", "ena")
	link("ens6", "ena")
	link("eth0", "virtio_net")
	os.MkdirAll(filepath.Join(sys, "class", "net", "lo"), 0o755)
	asked := map[string]int{}
	r := &Reader{sys: sys, Stats: func(iface string) (string, map[string]uint64, error) {
		asked[iface]++
		switch iface {
		case "ens5":
			return "ena", map[string]uint64{"conntrack_allowance_exceeded": 312, "conntrack_allowance_available": 0, "bw_in_allowance_exceeded": 9}, nil
		case "ens6":
			return "ena", map[string]uint64{"conntrack_allowance_exceeded": 4}, nil // an older driver: no available
		case "ens7":
			return "", nil, errors.New("no such device")
		}
		t.Errorf("read %s, whose driver keeps no allowance", iface)
		return "", nil, nil
	}}
	t0 := time.Unix(1000, 0)
	got := r.Read(t0)
	if len(got) != 2 || got[0].Iface != "ens5" || got[0].Exceeded != 312 || !got[0].AvailableRead || got[1].AvailableRead || got[1].Exceeded != 4 {
		t.Errorf("allowances %+v", got)
	}
	link("ens7", "ena")
	if got := r.Read(t0.Add(time.Second)); len(got) != 2 || asked["ens7"] != 0 {
		t.Errorf("listed again within %s: %+v", RescanEvery, got)
	}
	if got := r.Read(t0.Add(RescanEvery)); len(got) != 2 || asked["ens7"] != 1 {
		t.Errorf("after %s: ens7 asked %d times, allowances %+v", RescanEvery, asked["ens7"], got)
	}
}
