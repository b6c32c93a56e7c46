package exporter

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestExporterKeepsItsCostSmall: the always-on exporter collects at GOGC 50
// unless the user set GOGC (its live heap is under 1 MB: Go's default let
// garbage grow it to 4 MB), and answers a scraper that offers gzip
// uncompressed (the compressor's tables were its largest allocation, for
// tens of kB a scrape).
func TestExporterKeepsItsCostSmall(t *testing.T) {
	exe, _ := os.Executable()
	for _, c := range []struct{ gogc, want string }{{"", "50"}, {"80", "80"}} {
		addr := fmt.Sprintf("127.0.0.1:%d", clitest.FreePort(t))
		cmd := exec.Command(exe, "exporter", "--listen", addr)
		cmd.Env = []string{"TABLEFULL_AS_MAIN=1", "PATH=" + os.Getenv("PATH")}
		if c.gogc != "" {
			cmd.Env = append(cmd.Env, "GOGC="+c.gogc)
		}
		clitest.StartDaemon(t, cmd)
		clitest.WaitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if enc := resp.Header.Get("Content-Encoding"); enc != "" {
			t.Errorf("GOGC=%q: a scrape offering gzip came back %s; want it uncompressed", c.gogc, enc)
			continue
		}
		if line := "go_gc_gogc_percent " + c.want + "\n"; !strings.Contains(string(b), line) {
			t.Errorf("GOGC=%q: no %q in the scrape", c.gogc, strings.TrimSpace(line))
		}
	}
}
