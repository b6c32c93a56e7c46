package netns

import (
	"fmt"
	"net"
	"sync"
)

// HoldScript is a python3 client that opens argv[2] connections to the
// address argv[1] and keeps them, printing "held" once they are open.
const HoldScript = `import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
conns = [socket.create_connection((host, int(port))) for _ in range(int(sys.argv[2]))]
print("held", flush=True)
time.sleep(600)
`

// Holder accepts connections in a namespace and keeps them open until
// Close: connections that stand, as a pool's or a client's that never
// lets go.
type Holder struct {
	ln   net.Listener
	mu   sync.Mutex
	held []net.Conn
}

// Hold listens on addr inside the namespace.
func (n *NS) Hold(addr string) (*Holder, error) {
	h := &Holder{}
	if err := n.Do(func() (err error) { h.ln, err = net.Listen("tcp", addr); return err }); err != nil {
		return nil, fmt.Errorf("listen %s in %s: %w", addr, n.Name, err)
	}
	go func() {
		for {
			c, err := h.ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.held = append(h.held, c)
			h.mu.Unlock()
		}
	}()
	return h, nil
}

// Addr is the address it listens on.
func (h *Holder) Addr() string { return h.ln.Addr().String() }

// Close stops accepting and closes every connection held.
func (h *Holder) Close() error {
	err := h.ln.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.held {
		c.Close()
	}
	h.held = nil
	return err
}
