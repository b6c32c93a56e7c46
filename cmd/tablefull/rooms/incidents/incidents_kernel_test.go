package incidents

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// nginxAB is the seed's shape: an idle nginx in the namespace, and
// ApacheBench without keep-alive (a new connection per request, each
// held 120 s in TIME_WAIT after it closes) asking it as fast as it
// answers. ab gives up on a connection the full table never answers, so
// a loop starts it again, as a retrying ingest would.
func nginxAB(t *testing.T, ns *netns.NS, dir string) {
	clitest.StartNginx(t, ns, dir, "access_log off;", `listen 127.0.0.1:18180; location / { return 200 "a small object\n"; }`)
	time.Sleep(300 * time.Millisecond)
	nstest.StartGroup(t, ns.Command("sh", "-c", "while :; do ab -q -r -s 3 -c 8 -n 10000000 http://127.0.0.1:18180/ >/dev/null 2>&1; done"), nil)
}

// redisPool is a client's connection pool that leaks: eight workers
// open connections to redis, send each a PING and never close them, up
// to the pool's 6,000 — more than the table's 4,096. What fills the
// table stands open: no hold frees it.
func redisPool(t *testing.T, ns *netns.NS, dir string) {
	nstest.StartGroup(t, ns.Command("redis-server", "--port", "6392", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--maxclients", "8000", "--dir", dir), nil)
	time.Sleep(300 * time.Millisecond)
	script := `import resource, socket, threading, time
resource.setrlimit(resource.RLIMIT_NOFILE, (10000, 10000))
pool, lock = [], threading.Lock()
def worker():
    while True:
        with lock:
            if len(pool) >= 6000: return
        try:
            s = socket.create_connection(("127.0.0.1", 6392), timeout=3)
            s.sendall(b"PING\r\n"); s.recv(16)
            with lock: pool.append(s)
        except OSError: pass
        time.sleep(0.02)
for _ in range(8): threading.Thread(target=worker, daemon=True).start()
while True: time.sleep(1)
`
	nstest.StartGroup(t, ns.Command("python3", "-c", script), nil)
}
