package lab

// udpLoad is a scenario's UDP clients.
type udpLoad int

const (
	noUDP udpLoad = iota
	// racingLookups are resolvers' lookups (netns.Lookups): two queries
	// at one instant from one socket.
	racingLookups
	// steadySenders keep a socket each and send every 250 ms
	// (netns.Senders).
	steadySenders
)

// LookupsAddr is where a UDP scenario's clients send: an address its
// ruleset DNATs to the echo servers.
const LookupsAddr = "127.0.0.53:53"

// serve starts the scenario's servers: the echo servers of a UDP
// scenario, otherwise the HTTP server on 127.0.0.1:18080.
func (l *Lab) serve() (err error) {
	if l.Scenario.udp != noUDP {
		l.echo, err = l.NS.ServeEcho(l.Scenario.echo...)
		return err
	}
	l.server = l.Scenario.server()
	if err := l.NS.Serve("127.0.0.1:18080", l.server); err != nil {
		return err
	}
	l.serving = true
	return nil
}
