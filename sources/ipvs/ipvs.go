// Package ipvs reads the kernel's IP Virtual Server where it is loaded:
// kube-proxy's IPVS mode keeps its Services there, with a connection
// table of its own beside nf_conntrack's. It reads /proc/net/ip_vs (the
// services and each real server's connections, and the table's size),
// the first rows of /proc/net/ip_vs_conn and conn_reuse_mode, at most
// every ReadEvery, and says "not present" where the module is not
// loaded. It never changes IPVS.
package ipvs

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// ReadEvery is how often IPVS is read at most.
const ReadEvery = 30 * time.Second

// maxListing bounds what is read of /proc/net/ip_vs: a node of many
// Services reads its first ones.
const maxListing = 1 << 20

// Reader reads IPVS under a procfs root, paced.
type Reader struct {
	proc string
	last time.Time
	have *model.IPVS
}

// NewReader reads IPVS under proc.
func NewReader(proc string) *Reader { return &Reader{proc: proc} }

// Read is IPVS at now, read again once ReadEvery passed.
func (r *Reader) Read(now time.Time) *model.IPVS {
	if r.have != nil && now.Sub(r.last) < ReadEvery && !now.Before(r.last) {
		return r.have
	}
	r.last, r.have = now, Read(r.proc)
	return r.have
}

// Read reads IPVS under proc once.
func Read(proc string) *model.IPVS {
	b, err := kernelfs.ReadBounded(filepath.Join(proc, "net", "ip_vs"), maxListing)
	if errors.Is(err, fs.ErrNotExist) {
		return &model.IPVS{}
	}
	v := &model.IPVS{Present: true}
	if err != nil {
		v.Note = "read /proc/net/ip_vs: " + err.Error()
		return v
	}
	services(v, b)
	if m, err := kernelfs.ReadBounded(filepath.Join(proc, "sys", "net", "ipv4", "vs", "conn_reuse_mode"), 64); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(m))); err == nil && n >= 0 && n <= 9 {
			v.ReuseMode = strconv.Itoa(n)
		}
	}
	if c, err := kernelfs.ReadHead(filepath.Join(proc, "net", "ip_vs_conn"), connHead); err == nil {
		v.Rows = rows(c)
	}
	return v
}

// services reads the listing's size, its services and their real
// servers' active and inactive connections.
func services(v *model.IPVS, listing []byte) {
	var svc string
	per := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(listing))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && strings.HasPrefix(f[len(f)-1], "(size="):
			v.Size, _ = strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(f[len(f)-1], "(size="), ")"), 10, 64)
		case len(f) >= 3 && (f[0] == "TCP" || f[0] == "UDP" || f[0] == "SCTP"):
			svc = f[0] + " " + addrPort(f[1])
			v.Services++
		case len(f) >= 6 && f[0] == "->" && svc != "":
			active, err1 := strconv.ParseUint(f[4], 10, 64)
			inactive, err2 := strconv.ParseUint(f[5], 10, 64)
			if err1 == nil && err2 == nil {
				v.Conns += active + inactive
				per[svc] += active + inactive
			}
		}
	}
	for k, n := range per {
		if n > 0 {
			v.Top = append(v.Top, tally.Count{Key: k, N: int(min(n, 1<<31-1))})
		}
	}
	v.Top = tally.TopCounts(v.Top, model.MaxIPVSTop)
}

// connHead is how much of /proc/net/ip_vs_conn is read: its header and
// more rows than model.MaxIPVSRows, whatever the table holds.
const connHead = 4096

// rows reads the first connections of /proc/net/ip_vs_conn: "TCP
// 0A000105 9C40 0A600001 01BB 0AF40107 192B ESTABLISHED 899".
func rows(listing []byte) []model.IPVSConn {
	var out []model.IPVSConn
	lines := strings.Split(string(listing), "\n")
	lines = lines[:len(lines)-1] // after the last newline: empty, or a line cut at the head's end
	for _, line := range lines[min(1, len(lines)):] {
		f := strings.Fields(line)
		if len(f) < 9 || len(out) >= model.MaxIPVSRows {
			continue
		}
		expires, _ := strconv.Atoi(f[8])
		out = append(out, model.IPVSConn{Proto: f[0], From: addrPort(f[1] + ":" + f[2]), To: addrPort(f[3] + ":" + f[4]),
			Dest: addrPort(f[5] + ":" + f[6]), State: safe.Text(f[7], 16), Expires: expires})
	}
	return out
}

// addrPort reads IPVS's "0A600001:01BB" (IPv4 in hex) or
// "[fd00:…:0001]:0050" into "10.96.0.1:443"; what does not read as one
// stays as it was, sanitised.
func addrPort(s string) string {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return safe.Text(s, 64)
	}
	port, err := strconv.ParseUint(s[i+1:], 16, 16)
	if err != nil {
		return safe.Text(s, 64)
	}
	host := s[:i]
	var a netip.Addr
	if strings.HasPrefix(host, "[") {
		a, err = netip.ParseAddr(strings.Trim(host, "[]"))
	} else if b, herr := hex.DecodeString(host); herr == nil && len(b) == 4 {
		a = netip.AddrFrom4([4]byte(b))
	} else {
		err = errors.New("not an address")
	}
	if err != nil {
		return safe.Text(s, 64)
	}
	return netip.AddrPortFrom(a, uint16(port)).String()
}
