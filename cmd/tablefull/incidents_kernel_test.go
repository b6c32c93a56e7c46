package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// nginxAB is the seed's shape: an idle nginx in the namespace, and
// ApacheBench without keep-alive (a new connection per request, each
// held 120 s in TIME_WAIT after it closes) asking it as fast as it
// answers. ab gives up on a connection the full table never answers, so
// a loop starts it again, as a retrying ingest would.
func nginxAB(t *testing.T, ns *netns.NS, dir string) {
	startNginx(t, ns, dir, "access_log off;", `listen 127.0.0.1:18180; location / { return 200 "a small object\n"; }`)
	time.Sleep(300 * time.Millisecond)
	nstest.StartGroup(t, ns.Command("sh", "-c", "while :; do ab -q -r -s 3 -c 8 -n 10000000 http://127.0.0.1:18180/ >/dev/null 2>&1; done"), nil)
}

// startNginx runs nginx in ns until the test ends, with everything it
// writes under dir: http's own lines, then one server of server's.
func startNginx(t *testing.T, ns *netns.NS, dir, http, server string) {
	t.Helper()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, `daemon off;
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
	%[2]s
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server { %[3]s }
}
`, dir, http, server), 0o644); err != nil {
		t.Fatal(err)
	}
	nstest.StartGroup(t, ns.Command("nginx", "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf), nil)
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
