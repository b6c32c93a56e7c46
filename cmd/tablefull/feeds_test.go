package main

import (
	"reflect"
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
		got, err := sshArgv(tt.dest, "tablefull", "agent")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("sshArgv(%q) err %v, want %q", tt.dest, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("sshArgv(%q) = %q, %v; want %q", tt.dest, got, err, tt.want)
		}
		for _, a := range got {
			if strings.Contains(a, "StrictHostKeyChecking") {
				t.Errorf("host-key checking touched: %q", got)
			}
		}
	}
}

func TestViaArgv(t *testing.T) {
	got, err := viaArgv(`kubectl exec -n "my ns" pod-1 -- tablefull agent`)
	want := []string{"kubectl", "exec", "-n", "my ns", "pod-1", "--", "tablefull", "agent"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("viaArgv = %q, %v; want %q", got, err, want)
	}
	got, _ = viaArgv(`sh -c 'echo $HOME; rm x'`)
	if len(got) != 3 || got[2] != "echo $HOME; rm x" {
		t.Errorf("quoted argument split: %q", got)
	}
	if _, err := viaArgv("   "); err == nil {
		t.Errorf("empty --via accepted")
	}
	if _, err := viaArgv(`unterminated "quote`); err == nil {
		t.Errorf("unterminated quote accepted")
	}
}

func TestNetnsArgvRefusesUnknown(t *testing.T) {
	if _, err := netnsArgv("no-such-namespace-here"); err == nil || !strings.Contains(err.Error(), "no such namespace") {
		t.Errorf("unknown namespace: %v", err)
	}
	if _, err := netnsArgv("/no/such/path"); err == nil {
		t.Errorf("missing path accepted")
	}
	for _, name := range []string{"..", ".", "-n", "a\x1b]0;x", "a b"} {
		if _, err := netnsArgv(name); err == nil || !strings.Contains(err.Error(), "not a namespace name") {
			t.Errorf("--netns %q: %v", name, err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"replay"}, {"record"}, {"--interval", "1ms"}, {"replay", "x", "--speed", "0"}, {"bogus"}} {
		var out, errb strings.Builder
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"replay", "/no/such/file"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "/no/such/file") {
		t.Errorf("replay of a missing file: code %d, %q", code, errb.String())
	}
}

func TestDeployScriptHasNoSingleQuote(t *testing.T) {
	if strings.Contains(deployScript, "'") {
		t.Errorf("the deploy script travels in single quotes and must not contain one")
	}
}
