package exporter

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// nsClient is an HTTP client whose connections are opened inside ns.
func nsClient(ns *netns.NS, timeout time.Duration, keepAlive bool) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: !keepAlive,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			err := ns.Do(func() error {
				var err error
				c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
				return err
			})
			return c, err
		}}}
}

// freshScrape is one scrape of url over a new connection made inside ns,
// and how long it took.
func freshScrape(ns *netns.NS, url string) (time.Duration, error) {
	start := time.Now()
	resp, err := nsClient(ns, time.Second, false).Get(url)
	if err != nil {
		return time.Since(start), err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), nil
}

// TestExporterThroughAFullTable: Prometheus and the exporter inside a
// namespace, its traffic tracked. The table fills to its cap after the
// scrape connection was made: scrapes go on over the kept-alive
// connection, and the table-full alert fires. A fresh connection to the
// exporter is dropped by the full table — until the shipped notrack rule
// is loaded, after which a fresh scrape takes well under a second.
func TestExporterThroughAFullTable(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 64, Servers: true})
	clitest.NeedKernel(t, "prometheus")
	const capMax, exporterAddr, promPort = 64, "127.0.0.1:9874", 19090
	ns := clitest.LabNS(t)
	// The test's own queries to Prometheus must get in while the table is
	// full: its API port, and only it, is left untracked.
	if err := ns.Nft(fmt.Sprintf(`table inet testapi {
	chain pre { type filter hook prerouting priority raw; tcp dport %[1]d notrack; tcp sport %[1]d notrack; }
	chain out { type filter hook output priority raw; tcp dport %[1]d notrack; tcp sport %[1]d notrack; }
}`, promPort)); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exp := ns.Command(exe, "exporter", "--listen", exporterAddr, "--interval", "1s")
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	clitest.StartDaemon(t, exp)

	dir := t.TempDir()
	cfg := clitest.PrometheusConfig(t, dir, "1s", exporterAddr)
	clitest.StartDaemon(t, ns.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort), "--log.level=warn"))
	promURL := fmt.Sprintf("http://127.0.0.1:%d", promPort)
	client := nsClient(ns, 5*time.Second, true)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := client.Get(promURL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("Prometheus in the namespace did not get ready")
		}
	}
	c, err := api.NewClient(api.Config{Address: promURL, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	prom := promv1.NewAPI(c)
	for deadline := time.Now().Add(20 * time.Second); clitest.Vector(t, prom, `up{job="tablefull"}`, "job")["tablefull"] != 1; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Prometheus never scraped the exporter")
		}
	}
	if took, err := freshScrape(ns, "http://"+exporterAddr+"/metrics"); err != nil {
		t.Fatalf("a fresh scrape before the table filled: %v (%s)", err, took)
	}

	clitest.LowerMax(t, capMax)
	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := ns.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 300, DialTimeout: 300 * time.Millisecond, Deadline: 4 * time.Second})
	if err != nil || res.Failed == 0 {
		t.Fatalf("load: %+v %v: the table did not fill", res, err)
	}
	pinnedAt := time.Now()

	if !waitFiring(t, prom, "ConntrackTableFull", 20*time.Second) {
		t.Error("ConntrackTableFull did not fire while the table was full")
	}
	time.Sleep(time.Until(pinnedAt.Add(8 * time.Second)))
	count, _ := ns.Output("cat", "/proc/sys/net/netfilter/nf_conntrack_count")
	if clitest.MustUint(t, count) < capMax {
		t.Fatalf("the table is at %s, not at its cap %d: the test proves nothing", count, capMax)
	}
	window := fmt.Sprintf("%ds", int(time.Since(pinnedAt).Seconds()))
	if up := clitest.Vector(t, prom, `min_over_time(up{job="tablefull"}[`+window+`])`, "job")["tablefull"]; up != 1 {
		t.Errorf("up fell to %v while the table was full: the kept-alive scrape connection did not survive", up)
	}
	if n := clitest.Vector(t, prom, `count_over_time(up{job="tablefull"}[`+window+`])`, "job")["tablefull"]; n < 5 {
		t.Errorf("only %v scrapes in %s while the table was full", n, window)
	}

	if took, err := freshScrape(ns, "http://"+exporterAddr+"/metrics"); err == nil {
		t.Errorf("a fresh scrape got into the full table in %s without the rule: the rule's test proves nothing", took)
	}
	// Prometheus scrapes over loopback here: this host is both sides, so
	// both shipped rules, the scraper's with the exporter's address.
	for _, f := range []string{"tablefull-exporter-notrack.nft", "tablefull-scraper-notrack.nft"} {
		rule, err := os.ReadFile("../../../../deploy/nftables/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := ns.Nft(string(rule)); err != nil {
			t.Fatalf("the shipped rule %s does not load: %v", f, err)
		}
	}
	if err := ns.Nft("add element inet tablefull_scraper_notrack exporters4 { 127.0.0.1 }"); err != nil {
		t.Fatal(err)
	}
	if took, err := freshScrape(ns, "http://"+exporterAddr+"/metrics"); err != nil || took > time.Second {
		t.Errorf("a fresh scrape with the notrack rule into a full table: %v after %s, want under 1 s", err, took)
	}
}
