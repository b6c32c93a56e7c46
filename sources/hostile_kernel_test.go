package sources

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestOwnersInDelegatedSubtree: an unprivileged user (uid 65534) holds
// connections from a cgroup of their own delegated subtree that they
// named like a pod and a unit (user@65534.service/kubepods/pod3f2a-1b/
// sshd.service): the census names the owner as that user's, never a
// pod or a system unit.
func TestOwnersInDelegatedSubtree(t *testing.T) {
	for _, tool := range []string{"/usr/bin/python3", "setpriv"} { // the system's python: another user's may be unreadable
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	ns, _ := eventsNS(t)
	h, err := ns.Hold("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	tag := strconv.Itoa(os.Getpid())
	cg := testCgroup(t, "tablefull-test-"+tag+".slice/user@65534.service/kubepods/pod3f2a-1b/sshd.service")
	cmd := ns.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", netns.HoldScript, h.Addr(), "12")
	out, _ := cmd.StdoutPipe()
	var errb strings.Builder
	cmd.Stderr = &errb
	inCgroup(t, cg, cmd)
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
		t.Fatalf("client: %q, %v: %s", buf, err, errb.String())
	}
	var cen model.Census
	if err := ns.Do(func() (err error) {
		cen, err = CensusDump{Timeout: 10 * time.Second, Proc: "/proc"}.Run(10)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if cen.Owners == nil || len(cen.Owners.Top) == 0 {
		t.Fatalf("owners %+v", cen.Owners)
	}
	o := cen.Owners.Top[0].Owner
	if o.Kind != "user" || o.Group != "uid 65534: sshd.service" || strings.Contains(o.String(), "pod") {
		t.Errorf("the user's own cgroup is shown as %q (kind %q)", o.String(), o.Kind)
	}
}
