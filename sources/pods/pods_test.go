package pods

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNamesFromTheKubeletsDirectories: a pod's UID is named by its
// kubelet directory, NAMESPACE_NAME_UID; a directory of another shape is
// passed over; a pod started after a read is named once the read is
// older than refreshEvery; no directory at all names nothing.
func TestNamesFromTheKubeletsDirectories(t *testing.T) {
	n := New("testdata/var/log/pods")
	for uid, want := range map[string]string{
		"3f2a1b7c-0d4e-4f5a-9b6c-7d8e9f0a1b2c": "kube-system/coredns-5d78c9869d-abcde",
		"11111111-2222-3333-4444-555555555555": "default/web-0",
		"3f2a1b7c-0000":                        "", // its namespace is not a Kubernetes name
		"x":                                    "",
		"":                                     "",
	} {
		if got := n.Of(uid); got != want {
			t.Errorf("%q named %q, want %q", uid, got, want)
		}
	}
	dir := t.TempDir()
	live := New(dir)
	const uid = "abcdef01-2345-6789-abcd-ef0123456789"
	if live.Of(uid) != "" {
		t.Fatal("named before its directory was made")
	}
	if err := os.Mkdir(filepath.Join(dir, "shop_cart-7_"+uid), 0o755); err != nil {
		t.Fatal(err)
	}
	if live.Of(uid) != "" {
		t.Error("read again before refreshEvery")
	}
	live.mu.Lock()
	live.at = live.at.Add(-refreshEvery - time.Second)
	live.mu.Unlock()
	for end := time.Now().Add(5 * time.Second); live.Of(uid) != "shop/cart-7"; time.Sleep(10 * time.Millisecond) { // read again in the background
		if time.Now().After(end) {
			t.Fatalf("a new pod named %q after a refresh", live.Of(uid))
		}
	}
	if New(filepath.Join(dir, "none")).Of(uid) != "" || (*Names)(nil).Of(uid) != "" || New(filepath.Join(dir, "none"), dir).Of(uid) != "shop/cart-7" {
		t.Error("no directory named a pod")
	}
}
