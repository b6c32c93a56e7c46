package entries

import (
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/units"
)

// Schema names the JSON tablefull entries --json prints.
const Schema = "tablefull.entries/1"

// row is one entry as JSON.
type row struct {
	Proto      string     `json:"proto"`
	State      string     `json:"state,omitempty"`
	Timeout    uint32     `json:"timeout"`
	Src        string     `json:"src"`
	Dst        string     `json:"dst"`
	SPort      uint16     `json:"sport,omitempty"`
	DPort      uint16     `json:"dport,omitempty"`
	ReplySrc   string     `json:"reply_src"`
	ReplyDst   string     `json:"reply_dst"`
	ReplySPort uint16     `json:"reply_sport,omitempty"`
	ReplyDPort uint16     `json:"reply_dport,omitempty"`
	Zone       uint16     `json:"zone"`
	Mark       uint32     `json:"mark"`
	Assured    bool       `json:"assured"`
	Unreplied  bool       `json:"unreplied"`
	Packets    *[2]uint64 `json:"packets,omitempty"`
	Bytes      *[2]uint64 `json:"bytes,omitempty"`
}

func rowOf(f model.Flow) row {
	r := row{Proto: protoName(f.Proto), Timeout: f.Timeout, Src: addr(f.Src), Dst: addr(f.Dst), SPort: f.SrcPort, DPort: f.DstPort,
		ReplySrc: addr(f.ReplySrc), ReplyDst: addr(f.ReplyDst), ReplySPort: f.ReplySrcPort, ReplyDPort: f.ReplyDstPort,
		Zone: f.Zone, Mark: f.Mark, Assured: f.Status&model.StatusAssured != 0, Unreplied: f.Status&model.StatusSeenReply == 0}
	if f.TCPState >= 0 && f.TCPState < len(model.TCPStates) {
		r.State = model.TCPStates[f.TCPState]
	}
	if f.Accounted {
		r.Packets, r.Bytes = &f.Packets, &f.Bytes
	}
	return r
}

// Doc is what tablefull entries --json prints (docs/json.md).
type Doc struct {
	Schema      string          `json:"schema"`
	Filter      string          `json:"filter"`
	SortedBy    string          `json:"sorted_by"`
	Descending  bool            `json:"descending"`
	Matched     int             `json:"matched"`
	Established int             `json:"established"`
	Assured     int             `json:"assured"`
	Unreplied   int             `json:"unreplied"`
	Accounted   int             `json:"accounted"`
	Entries     []row           `json:"entries"`
	Deletion    *entry.Deletion `json:"deletion,omitempty"`
}

// write prints the list, and what a deletion did, as text or JSON.
func write(w io.Writer, l *entry.List, done *entry.Deletion, asJSON bool) error {
	rows := l.Rows()
	if asJSON {
		out := Doc{Schema, l.Filter.String(), l.Sort, l.Desc, l.Matched, l.Established, l.Assured, l.Unreplied, l.Accounted, []row{}, done}
		for _, f := range rows {
			out.Entries = append(out.Entries, rowOf(f))
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROTO\tSTATE\tTIMEOUT\tORIGINAL\tREPLY\tFLAGS")
	for _, f := range rows {
		r := rowOf(f)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s → %s\t%s → %s\t%s\n", r.Proto, or(r.State, "-"), r.Timeout,
			hostPort(f.Src, f.SrcPort), hostPort(f.Dst, f.DstPort), hostPort(f.ReplySrc, f.ReplySrcPort), hostPort(f.ReplyDst, f.ReplyDstPort), flags(r))
	}
	tw.Flush()
	_, err := fmt.Fprintln(w, summary(l, len(rows), done))
	return err
}

// summary is the listing's last line: what matched, what is shown, and
// what a deletion did.
func summary(l *entry.List, shown int, done *entry.Deletion) string {
	filter := l.Filter.String()
	if filter == "" {
		filter = "no filter"
	}
	s := fmt.Sprintf("%s entries match (%s): %s established, %s assured, %s unreplied; %d shown, by %s",
		units.Int(uint64(l.Matched)), filter, units.Int(uint64(l.Established)), units.Int(uint64(l.Assured)), units.Int(uint64(l.Unreplied)), shown, l.Sort)
	if l.Desc {
		s += " descending"
	}
	if l.Matched > 0 && l.Accounted == 0 {
		s += "; packet counts off (nf_conntrack_acct=0; sysctl -w net.netfilter.nf_conntrack_acct=1 counts entries made after it)"
	}
	if done != nil {
		s += "\n" + done.String()
	}
	return s
}

func flags(r row) string {
	var f []string
	if r.Assured {
		f = append(f, "assured")
	}
	if r.Unreplied {
		f = append(f, "unreplied")
	}
	if r.Zone != 0 {
		f = append(f, "zone="+strconv.Itoa(int(r.Zone)))
	}
	if r.Mark != 0 {
		f = append(f, "mark="+strconv.FormatUint(uint64(r.Mark), 10))
	}
	if r.Packets != nil {
		f = append(f, fmt.Sprintf("packets=%d/%d bytes=%d/%d", r.Packets[0], r.Packets[1], r.Bytes[0], r.Bytes[1]))
	}
	return strings.Join(f, " ")
}

func protoName(p uint8) string {
	if n := model.DestKey(p, 0); n != "" {
		return strings.TrimSuffix(n, "/0")
	}
	return strconv.Itoa(int(p))
}

func addr(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func hostPort(a netip.Addr, port uint16) string {
	if port == 0 {
		return addr(a)
	}
	return netip.AddrPortFrom(a, port).String()
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
