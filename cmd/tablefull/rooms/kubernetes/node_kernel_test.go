package kubernetes

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/remote/report"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/sources/netns"
)

// nodeTopology is a Kubernetes node in three namespaces: a node that
// forwards and masquerades (as a CNI does) for a pod, a plain namespace
// and a server, each behind a veth of the node's.
type nodeTopology struct {
	node, pod, plain, server *netns.NS
	srv                      *netns.Server
}

func newNodeTopology(t *testing.T, tag string) nodeTopology {
	t.Helper()
	mk := func(prefix string) *netns.NS {
		ns, err := netns.Create(prefix + tag)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ns.Delete() })
		return ns
	}
	n := nodeTopology{node: mk("tft-node-"), pod: mk("tft-pod-"), plain: mk("tft-plain-"), server: mk("tft-srv-")}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	for i, ns := range []*netns.NS{n.pod, n.plain, n.server} {
		peer := fmt.Sprintf("vn%d%s", i, tag)
		ip("link", "add", peer, "netns", n.node.Name, "type", "veth", "peer", "name", "eth0", "netns", ns.Name)
		ip("-n", ns.Name, "addr", "add", fmt.Sprintf("10.97.%d.2/24", i+1), "dev", "eth0")
		ip("-n", ns.Name, "link", "set", "eth0", "up")
		ip("-n", ns.Name, "route", "add", "default", "via", fmt.Sprintf("10.97.%d.1", i+1))
		ip("-n", n.node.Name, "addr", "add", fmt.Sprintf("10.97.%d.1/24", i+1), "dev", peer)
		ip("-n", n.node.Name, "link", "set", peer, "up")
	}
	if _, err := n.node.Output("sysctl", "-qw", "net.ipv4.ip_forward=1"); err != nil {
		t.Fatal(err)
	}
	if err := n.node.Nft(fmt.Sprintf(`table inet tablefull_node {
	chain forward {
		type filter hook forward priority 0; policy accept;
		ct state established,related accept
	}
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "vn2%s" masquerade
	}
}
`, tag)); err != nil {
		t.Fatal(err)
	}
	n.srv = &netns.Server{Body: []byte("ok\n")}
	if err := n.server.Serve("10.97.3.2:0", n.srv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.srv.Close() })
	return n
}

// TestNodeNamesPodsAndNamespaces: a node capped at 400 entries forwards
// and masquerades a pod's and a plain namespace's connections, one per
// request, to a server. The node's verdict, its console's census panel,
// its exporter and its report name the first by its pod and the second
// by its namespace's name (never by a process in it), and the probes
// the node's agent loads count both clients' new connections, though
// they are made in other namespaces.
func TestNodeNamesPodsAndNamespaces(t *testing.T) {
	clitest.NeedKernel(t, "python3", "tmux")
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("needs the kernel's BTF")
	}
	tag := strconv.Itoa(os.Getpid())
	n := newNodeTopology(t, tag)
	clitest.LowerMax(t, 400)
	uid := "9a8b7c6d_" + fmt.Sprintf("%012d", os.Getpid())
	podName := fmt.Sprintf("pod 9a8b7c6d-%012d", os.Getpid())
	plainName := "netns tft-plain-" + tag
	podCg := clitest.CgroupAt(t, "tablefull-test-"+tag+"-kubepods.slice/kubepods-besteffort-pod"+uid+".slice/cri-containerd-0a1b2c3d4e5f6789.scope")
	plainCg := clitest.UnitCgroup(t, "tablefull-test-plain-"+tag+".service")

	feed := clitest.StartClassFeed(t, n.node, 500*time.Millisecond)
	feed.P.SetCensus(true)
	clitest.PythonIn(t, n.pod, podCg, clitest.ChurnScript, n.srv.Addr(), "60", "40")
	clitest.PythonIn(t, n.plain, plainCg, clitest.ChurnScript, n.srv.Addr(), "30", "40")

	console := clitest.StartTmux(t, 200, 50, "", "--netns", n.node.Name)
	console.WaitFor("tablefull")

	var rec bytes.Buffer
	enc, err := stream.NewEncoder(&rec, model.Host{Name: "node"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e := exporter.New("test")
	var full string
	who, census := map[string]bool{}, map[string]bool{}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		s := clitest.NextSample(t, feed.P)
		f := feed.An.Add(s)
		enc.Sample(s)
		e.Observe(s)
		if s.Who != nil {
			for _, c := range s.Who.Conns {
				if c.Opened > 0 {
					who[c.Owner.String()] = true
				}
			}
		}
		if s.Census != nil && s.Census.Owners != nil {
			for _, o := range s.Census.Owners.Top {
				if o.Forwarded {
					census[o.Owner.String()] = true
				}
			}
		}
		for _, v := range f.Verdicts {
			if v.Kind == verdict.TableFull {
				full = v.Text()
			}
		}
		if full != "" && clitest.OwnerNamed(who, podName) && clitest.OwnerNamed(who, plainName) && clitest.OwnerNamed(census, podName) && clitest.OwnerNamed(census, plainName) {
			break
		}
	}
	if !clitest.OwnerNamed(who, podName) || !clitest.OwnerNamed(who, plainName) {
		t.Errorf("the probes counted new connections of %v: want the pod's (%s) and the plain namespace's (%s)", clitest.SetKeys(who), podName, plainName)
	}
	if !clitest.OwnerNamed(census, podName) || !clitest.OwnerNamed(census, plainName) {
		t.Errorf("the census's forwarded owners are %v: want %s and %s", clitest.SetKeys(census), podName, plainName)
	}
	if !strings.Contains(full, podName) || strings.Contains(full, "python3 (pid") {
		t.Errorf("TABLE FULL does not name the pod first: %q", full)
	}
	if !strings.Contains(full, "admits ") || !strings.Contains(full, "(pinned); demand ≥ ") || strings.Contains(full, " 0 new/s held") {
		t.Errorf("TABLE FULL does not say what the pinned table admits and what it is asked: %q", full)
	}

	console.Keys("c")
	console.WaitFor("census:", podName, plainName)

	srv := httptest.NewServer(exporter.Handler(e, "/metrics"))
	defer srv.Close()
	body := clitest.ScrapeText(t, srv.URL+"/metrics")
	for _, want := range []string{`pod="9a8b7c6d-` + fmt.Sprintf("%012d", os.Getpid()) + `"`, `netns="tft-plain-` + tag + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the exporter's owner series lack %s", want)
		}
	}

	rep, err := report.Build(bytes.NewReader(rec.Bytes()), report.Options{Source: "node"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := rep.Write(dir, false); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{podName, plainName} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the report does not name %s", want)
		}
	}
}
