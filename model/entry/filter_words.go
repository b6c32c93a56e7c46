package entry

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
)

// entryShortOptions are conntrack(8)'s one-letter names of the options.
var entryShortOptions = map[string]string{"p": "proto", "f": "family", "s": "src", "d": "dst", "r": "reply-src", "q": "reply-dst",
	"u": "status", "m": "mark", "w": "zone", "n": "src-nat", "g": "dst-nat", "j": "any-nat", "l": "label"}

// natOptions take an address or none: -n, -g, -j.
var natOptions = map[string]bool{"src-nat": true, "dst-nat": true, "any-nat": true}

// FilterWords reads a filter typed as conntrack(8) takes it on its
// command line ("-p udp --reply-src 10.80.0.2", "--dport=53", "-n"): an
// option and its value each, long or short; a NAT option's address may
// be left out. ParseFilter checks the values.
func FilterWords(text string) (FilterArgs, error) {
	args := FilterArgs{}
	words := strings.Fields(text)
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-") && entryShortOptions[name] != "":
			name = entryShortOptions[name]
		default:
			return nil, fmt.Errorf("%w: %q is not an option (-p udp, --dport 53, …)", ErrBadFilter, safe.Text(w, 40))
		}
		if a, ok := filterAliases[name]; ok {
			name = a
		}
		switch {
		case hasValue:
		case natOptions[name] && (i+1 >= len(words) || !isAddr(words[i+1])):
			value = AnyAddress
		case i+1 >= len(words):
			return nil, fmt.Errorf("%w: --%s needs a value", ErrBadFilter, safe.Text(name, 40))
		default:
			i++
			value = words[i]
		}
		if name == "label" && args[name] != "" { // -l again: one more label every entry must have
			value = args[name] + "," + value
		}
		args[name] = value
	}
	return args, nil
}

// isAddr reports whether w is an IP address (a NAT option's value).
func isAddr(w string) bool {
	_, err := netip.ParseAddr(w)
	return err == nil
}
