package ruleset

import (
	"bufio"
	"bytes"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// Services are the Services kube-proxy wrote into a ruleset, by the
// protocol and address:port a flow asks for (a Service's address) or is
// sent to (an endpoint): "udp 10.96.0.10:53" → "kube-system/kube-dns:dns".
type Services map[string]string

// maxServices bounds what a ruleset's Services hold: a node of thousands
// of Services keeps the first ones read, not the cluster.
const maxServices = 1 << 16

// serviceKey is a Services key.
func serviceKey(proto string, ap netip.AddrPort) string { return proto + " " + ap.String() }

// Of is the Service named for a DNAT target: by the address its
// clients asked for, else by the target itself; "" where none is.
func (s Services) Of(t model.DNATTarget) string {
	for _, a := range []string{t.Via, t.Target} {
		if ap, err := netip.ParseAddrPort(a); err == nil {
			if name := s[serviceKey("udp", ap)]; name != "" {
				return name
			}
		}
	}
	return ""
}

// ByAddr is the Service named for an address on any port ("NS/NAME",
// the port's name left out: one address serves a Service's ports), or
// "" where none is.
func (s Services) ByAddr(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return ""
	}
	best := ""
	for k, name := range s { // the least name: a map's order is not stable
		ap, err := netip.ParseAddrPort(k[strings.IndexByte(k, ' ')+1:])
		if err != nil || ap.Addr() != a {
			continue
		}
		if svc, _, _ := strings.Cut(name, ":"); best == "" || svc < best {
			best = svc
		}
	}
	return best
}

// nftServiceElement is an element of kube-proxy's service-ips map in
// nftables mode: "ADDR . PROTO . PORT : goto service-HASH-NS/NAME/PROTO/PORTNAME"
// (servicePortChainNameBase in kube-proxy's pkg/proxy/nftables).
var nftServiceElement = regexp.MustCompile(`([0-9a-f.:]+) \. (tcp|udp|sctp) \. ([0-9]+) : goto service-[A-Z2-7]{8}-([a-z0-9.-]+)/([a-z0-9.-]+)/(?:tcp|udp|sctp)/([a-z0-9-]*)`)

// nftEndpointChain is a chain of kube-proxy's endpoint in nftables mode:
// "endpoint-HASH-NS/NAME/PROTO/PORTNAME__IP/PORT", an IPv6 address's
// colons written as dots there (servicePortEndpointChainNameBase).
var nftEndpointChain = regexp.MustCompile(`chain endpoint-[A-Z2-7]{8}-([a-z0-9.-]+)/([a-z0-9.-]+)/(tcp|udp|sctp)/([a-z0-9-]*)__([0-9a-f.]+)/([0-9]+) \{`)

// chainAddr is the address an endpoint chain's name holds: an IPv4
// address as it is, an IPv6 one with its dots made colons again.
func chainAddr(s string) string {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return s
	}
	return strings.ReplaceAll(s, ".", ":")
}

// ParseServices reads the Services of kube-proxy's two nftables-backed
// modes: nftables mode from `nft list ruleset` (its service-ips map and
// endpoint chains), iptables mode (iptables-nft included) from
// `iptables-save -t nat` (the comments it writes: "NS/NAME:PORT cluster
// IP" on KUBE-SERVICES rules, "NS/NAME:PORT" on each KUBE-SEP's DNAT),
// since nft does not print an iptables rule's comment (and
// `ip6tables-save -t nat` after it for IPv6 Services). Either may be nil.
func ParseServices(nftListing, iptablesSave []byte) Services {
	s := Services{}
	add := func(proto, addr, port, name string) {
		a, err := netip.ParseAddr(addr)
		n, perr := strconv.ParseUint(port, 10, 16)
		if err == nil && perr == nil && len(s) < maxServices {
			ap := netip.AddrPortFrom(a, uint16(n))
			s[serviceKey(proto, ap)] = name
		}
	}
	for _, m := range nftServiceElement.FindAllSubmatch(nftListing, -1) {
		add(string(m[2]), string(m[1]), string(m[3]), portName(string(m[4])+"/"+string(m[5]), string(m[6])))
	}
	for _, m := range nftEndpointChain.FindAllSubmatch(nftListing, -1) {
		add(string(m[3]), chainAddr(string(m[5])), string(m[6]), portName(string(m[1])+"/"+string(m[2]), string(m[4])))
	}
	sc := bufio.NewScanner(bytes.NewReader(iptablesSave))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if r, ok := iptablesServiceRule(sc.Text()); ok {
			add(r.proto, r.addr, r.port, r.name)
		}
	}
	return s
}

// portName is "NS/NAME:PORTNAME", or "NS/NAME" for a Service's one
// unnamed port, as kube-proxy's ServicePortName prints it.
func portName(service, port string) string {
	if port == "" {
		return service
	}
	return service + ":" + port
}

// serviceRule is what one kube-proxy rule of iptables mode says.
type serviceRule struct{ proto, addr, port, name string }

// iptablesServiceRule reads "-A KUBE-SERVICES -d VIP/32 (/128) -p udp -m comment
// --comment "NS/NAME:PORT cluster IP" ... --dport N -j KUBE-SVC-…" and
// "-A KUBE-SEP-… -p udp -m comment --comment NS/NAME:PORT ... -j DNAT
// --to-destination IP:PORT", as kube-proxy's pkg/proxy/iptables writes
// them (appendServiceCommentLocked; the cluster IP rule's comment).
func iptablesServiceRule(line string) (serviceRule, bool) {
	w := shellWords(line)
	if len(w) < 2 || w[0] != "-A" {
		return serviceRule{}, false
	}
	var r serviceRule
	var dport, to, comment string
	for i := 0; i+1 < len(w); i++ {
		switch w[i] {
		case "-p":
			r.proto = w[i+1]
		case "-d":
			r.addr = strings.TrimSuffix(strings.TrimSuffix(w[i+1], "/32"), "/128")
		case "--dport":
			dport = w[i+1]
		case "--to-destination":
			to = w[i+1]
		case "--comment":
			comment = w[i+1]
		}
	}
	switch {
	case w[1] == "KUBE-SERVICES" && strings.HasSuffix(comment, " cluster IP") && dport != "":
		r.port, r.name = dport, strings.TrimSuffix(comment, " cluster IP")
	case strings.HasPrefix(w[1], "KUBE-SEP-") && to != "" && comment != "":
		ap, err := netip.ParseAddrPort(to)
		if err != nil {
			return serviceRule{}, false
		}
		r.addr, r.port, r.name = ap.Addr().String(), strconv.Itoa(int(ap.Port())), comment
	default:
		return serviceRule{}, false
	}
	if !strings.Contains(r.name, "/") || strings.ContainsAny(r.name, " \t") {
		return serviceRule{}, false
	}
	return r, r.proto != ""
}

// shellWords splits an iptables-save line into its words, a double-quoted
// one (a comment with spaces) as one.
func shellWords(line string) []string {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				return append(out, line[1:])
			}
			out, line = append(out, line[1:end+1]), line[end+2:]
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		out, line = append(out, word), rest
	}
	return out
}
