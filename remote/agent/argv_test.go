package agent

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSSHArgv(t *testing.T) {
	tests := []struct {
		dest    string
		want    []string
		wantErr string
	}{
		{"garage", []string{"ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "--", "garage", "tablefull", "agent"}, ""},
		{"ops@10.5.5.14:2222", []string{"ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-p", "2222", "--", "ops@10.5.5.14", "tablefull", "agent"}, ""},
		{"-oProxyCommand=touch /tmp/pwned", nil, "want [user@]host"},
		{"host;rm -rf /", nil, "want [user@]host"},
		{"host:99999", nil, "bad port"},
		{"$(reboot)", nil, "want [user@]host"},
		{"", nil, "want [user@]host"},
	}
	for _, tt := range tests {
		got, err := SSHArgv(tt.dest, "tablefull", "agent")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SSHArgv(%q) err %v, want %q", tt.dest, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SSHArgv(%q) = %q, %v; want %q", tt.dest, got, err, tt.want)
		}
		for _, a := range got {
			if strings.Contains(a, "StrictHostKeyChecking") {
				t.Errorf("host-key checking touched: %q", got)
			}
		}
	}
}

func TestViaArgv(t *testing.T) {
	got, err := ViaArgv(`kubectl exec -n "my ns" pod-1 -- tablefull agent`)
	want := []string{"kubectl", "exec", "-n", "my ns", "pod-1", "--", "tablefull", "agent"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("viaArgv = %q, %v; want %q", got, err, want)
	}
	got, _ = ViaArgv(`sh -c 'echo $HOME; rm x'`)
	if len(got) != 3 || got[2] != "echo $HOME; rm x" {
		t.Errorf("quoted argument split: %q", got)
	}
	if _, err := ViaArgv("   "); err == nil {
		t.Errorf("empty --via accepted")
	}
	if _, err := ViaArgv(`unterminated "quote`); err == nil {
		t.Errorf("unterminated quote accepted")
	}
}

func TestNetnsArgvRefusesUnknown(t *testing.T) {
	if _, err := NetnsArgv("no-such-namespace-here"); err == nil || !strings.Contains(err.Error(), "no such namespace") {
		t.Errorf("unknown namespace: %v", err)
	}
	if _, err := NetnsArgv("/no/such/path"); err == nil {
		t.Errorf("missing path accepted")
	}
	for _, name := range []string{"..", ".", "-n", "a\x1b]0;x", "a b"} {
		if _, err := NetnsArgv(name); err == nil || !strings.Contains(err.Error(), "not a namespace name") {
			t.Errorf("--netns %q: %v", name, err)
		}
	}
}

func TestDeployScriptHasNoSingleQuote(t *testing.T) {
	if strings.Contains(deployScript, "'") {
		t.Errorf("the deploy script travels in single quotes and must not contain one")
	}
}

// FuzzSSHArgv: a destination becomes an argv whose host cannot be an
// option and carries no shell or control character; the remote command
// stays our own words.
func FuzzSSHArgv(f *testing.F) {
	f.Add("root@web-3:2222")
	f.Add("-oProxyCommand=sh")
	f.Add("[::1]:22")
	f.Fuzz(func(t *testing.T, dest string) {
		argv, err := SSHArgv(dest, "tablefull", "agent")
		if err != nil {
			return
		}
		i := slices.Index(argv, "--")
		if i < 0 || len(argv) != i+4 || argv[i+2] != "tablefull" || argv[i+3] != "agent" {
			t.Fatalf("SSHArgv(%q) = %q", dest, argv)
		}
		host := argv[i+1]
		if strings.HasPrefix(host, "-") || strings.ContainsAny(host, " \t\n'\"`$;&|<>\\\x00") {
			t.Fatalf("SSHArgv(%q) passes host %q", dest, host)
		}
	})
}

// FuzzViaArgv: any --via command splits into a non-empty argv or an
// error, never a panic.
func FuzzViaArgv(f *testing.F) {
	f.Add(`kubectl exec -i pod -- tablefull agent`)
	f.Add(`sh -c "unterminated`)
	f.Fuzz(func(t *testing.T, command string) {
		if argv, err := ViaArgv(command); err == nil && len(argv) == 0 {
			t.Fatalf("ViaArgv(%q) gave an empty argv", command)
		}
	})
}

// FuzzNetnsArgv: a namespace name that is not a path is accepted only as
// a plain name (never ".", "..", an option or control text).
func FuzzNetnsArgv(f *testing.F) {
	f.Add("h1")
	f.Add("..")
	f.Add("-n")
	f.Fuzz(func(t *testing.T, name string) {
		argv, err := NetnsArgv(name)
		if err != nil || strings.Contains(name, "/") {
			return
		}
		if name == "." || name == ".." || strings.HasPrefix(name, "-") || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("NetnsArgv(%q) = %q", name, argv)
		}
	})
}
