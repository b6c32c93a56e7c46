// Package entries is tablefull entries: the conntrack table's entries as
// rows, filtered in conntrack(8)'s own vocabulary, sorted and bounded,
// and deleted by the same filter after a preview — without a shell-out.
package entries

import (
	"errors"
	"fmt"
	"io"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources"
)

// Options are tablefull entries' flags.
type Options struct {
	filter      map[string]*string
	labels      *[]string // -l, given again for each label
	Sort        string
	Desc        bool
	Limit       int
	JSON        bool
	Delete, Yes bool
	// Established lets a deletion take established TCP entries: live
	// connections, which lose their state (and behind a NAT, their flow).
	Established bool
}

// filterFlags are conntrack(8)'s options, with its short names.
var filterFlags = []struct{ name, short, usage string }{
	{"proto", "p", "entries of protocol `P` (tcp, udp, icmp, a number)"},
	{"src", "s", "original source `ADDR` or CIDR"},
	{"dst", "d", "original destination `ADDR` or CIDR"},
	{"reply-src", "r", "reply source `ADDR` or CIDR (where a DNAT sent it)"},
	{"reply-dst", "q", "reply destination `ADDR` or CIDR (the source a SNAT gave it)"},
	{"family", "f", "layer three `FAMILY` (ipv4, ipv6)"},
	{"sport", "", "original source `PORT`"},
	{"dport", "", "original destination `PORT`"},
	{"reply-port-src", "", "reply source `PORT`"},
	{"reply-port-dst", "", "reply destination `PORT`"},
	{"state", "", "TCP `STATE` (ESTABLISHED, TIME_WAIT, LISTEN, …)"},
	{"status", "u", "every one of the `STATUS`es (ASSURED, SEEN_REPLY, UNREPLIED, FIXED_TIMEOUT, EXPECTED, OFFLOAD; comma-separated)"},
	{"zone", "w", "conntrack `ZONE` (of both directions)"},
	{"orig-zone", "", "conntrack `ZONE` of the original direction only"},
	{"reply-zone", "", "conntrack `ZONE` of the reply direction only"},
	{"mark", "m", "connmark `MARK[/MASK]`"},
	{"label", "l", "conntrack `LABEL`s, every one set (connlabel.conf's names; comma-separated, or -l again)"},
	{"timeout-over", "", "more than `SECONDS` left to live (tablefull's, not conntrack's: timeouts given before a hold was lowered)"},
}

// natFlags are conntrack(8)'s NAT options, each with an address or none.
var natFlags = []struct{ name, short, usage string }{
	{"src-nat", "n", "source-NATed entries (to `ADDR`, when given)"},
	{"dst-nat", "g", "destination-NATed entries (to `ADDR`, when given)"},
	{"any-nat", "j", "entries NATed either way (to `ADDR`, when given)"},
}

// filterAliases are conntrack(8)'s other names of the options.
var filterAliases = []struct{ name, of, value string }{
	{"orig-src", "src", "ADDR"}, {"orig-dst", "dst", "ADDR"}, {"protonum", "proto", "P"}, {"orig-port-src", "sport", "PORT"}, {"orig-port-dst", "dport", "PORT"},
}

// AddFlags adds the filter and entries' own flags to fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	o.filter = map[string]*string{}
	for _, f := range filterFlags {
		if f.name == "label" {
			o.labels = fs.StringArrayP(f.name, f.short, nil, f.usage)
			continue
		}
		o.filter[f.name] = fs.StringP(f.name, f.short, "", f.usage)
	}
	for _, f := range natFlags {
		o.filter[f.name] = fs.StringP(f.name, f.short, "", f.usage)
		fs.Lookup(f.name).NoOptDefVal = entry.AnyAddress
	}
	for _, a := range filterAliases {
		o.filter[a.name] = fs.String(a.name, "", "`"+a.value+"`: conntrack(8)'s other name of --"+a.of)
	}
	fs.StringVar(&o.Sort, "sort", entry.Sorts[0], fmt.Sprintf("sort by `COLUMN` %v", entry.Sorts))
	fs.BoolVar(&o.Desc, "reverse", false, "sort descending")
	fs.IntVar(&o.Limit, "limit", 50, fmt.Sprintf("show at most `N` entries (all are counted; at most %d)", entry.MaxRows))
	fs.BoolVar(&o.JSON, "json", false, "print JSON (schema in docs/what-fills-it.md)")
	fs.BoolVar(&o.Delete, "delete", false, "delete the entries the filter matches, after a preview (needs --yes)")
	fs.BoolVar(&o.Yes, "yes", false, "with --delete: delete without stopping at the preview")
	fs.BoolVar(&o.Established, "established", false, "with --delete: established TCP entries too (live connections)")
}

// natAddress gives word, the one left after the flags, to the one NAT
// option given without an address, as conntrack(8) reads "-n 10.0.0.1".
func (o *Options) natAddress(word string) error {
	if word == "" {
		return nil
	}
	var bare []string
	for _, f := range natFlags {
		if *o.filter[f.name] == entry.AnyAddress {
			bare = append(bare, f.name)
		}
	}
	if len(bare) != 1 {
		return fmt.Errorf("unexpected argument %q (the address of one NAT option: -n 10.0.0.1, or --src-nat=10.0.0.1)", word)
	}
	*o.filter[bare[0]] = word
	return nil
}

// Run lists the entries the filter matches (natWord: the address of a
// NAT option given without "=") in this network namespace,
// or with Delete, previews them and, with Yes, deletes them
// (sources.DeleteEntries, which journals it in stateDir) and says what
// went. Its exit codes are tune's type: 2 for a filter conntrack(8)
// would not take, exitcode.Refused for a deletion refused (nothing
// deleted).
func Run(o Options, natWord, stateDir string, stdout io.Writer) error {
	if err := o.natAddress(natWord); err != nil {
		return exitcode.Error{Code: 2, Err: err}
	}
	args := entry.FilterArgs{}
	for k, v := range o.filter {
		args[k] = *v
	}
	args["label"] = strings.Join(*o.labels, ",")
	filter, err := entry.ParseFilter(args)
	if err != nil {
		return exitcode.Error{Code: 2, Err: err}
	}
	limit := o.Limit
	if o.Delete && !o.JSON {
		limit = min(limit, 10) // a preview, not the listing
	}
	list, err := sources.ListEntries(filter, o.Sort, o.Desc, limit)
	if errors.Is(err, entry.ErrBadFilter) {
		return exitcode.Error{Code: 2, Err: err}
	} else if err != nil {
		return err
	}
	if !o.Delete {
		return write(stdout, list, nil, o.JSON)
	}
	refused := entry.DeleteRefusal(list, o.Established)
	if refused == nil && !o.Yes {
		refused = errors.New("--yes needed to delete: nothing deleted")
	}
	if refused != nil {
		write(stdout, list, nil, o.JSON)
		return exitcode.Error{Code: exitcode.Refused, Err: refused}
	}
	done, err := sources.DeleteEntries(filter, o.Established, stateDir)
	if errors.Is(err, entry.ErrDeleteRefused) { // the table changed since the preview
		return exitcode.Error{Code: exitcode.Refused, Err: err}
	}
	if werr := write(stdout, list, &done, o.JSON); err == nil {
		err = werr
	}
	return err
}
