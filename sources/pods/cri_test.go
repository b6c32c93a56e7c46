package pods

import (
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// sandbox is a PodSandbox as cri-api encodes one: id = 1, metadata = 2
// (name = 1, uid = 2, namespace = 3, attempt = 4), state = 3.
func sandbox(id, name, uid, ns string) []byte {
	var meta []byte
	meta = protowire.AppendTag(meta, 1, protowire.BytesType)
	meta = protowire.AppendString(meta, name)
	meta = protowire.AppendTag(meta, 2, protowire.BytesType)
	meta = protowire.AppendString(meta, uid)
	meta = protowire.AppendTag(meta, 3, protowire.BytesType)
	meta = protowire.AppendString(meta, ns)
	meta = protowire.AppendTag(meta, 4, protowire.VarintType)
	meta = protowire.AppendVarint(meta, 1)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, id)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, meta)
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, 0)
	return b
}

// fakeRuntime serves a CRI runtime's ListPodSandbox over HTTP/2 without
// TLS on a unix socket, as containerd does, answering reply with status.
func fakeRuntime(t *testing.T, reply []byte, status string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "cri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/runtime.v1.RuntimeService/ListPodSandbox" || r.Header.Get("Content-Type") != "application/grpc" || r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status")
		frame := make([]byte, 5, 5+len(reply))
		binary.BigEndian.PutUint32(frame[1:], uint32(len(reply)))
		w.Write(append(frame, reply...))
		w.Header().Set("Grpc-Status", status)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return sock
}

// TestAskTheRuntime: a runtime's ListPodSandbox names its pods by UID;
// a name that is not a Kubernetes name is left out; a runtime that
// answers an error, or not in CRI's words, names none; Names asks the
// runtime first, and its names win over the kubelet's directories.
func TestAskTheRuntime(t *testing.T) {
	var reply []byte
	for _, s := range [][]byte{
		sandbox("4f1e", "coredns-5d78c9869d-abcde", "3f2a1b7c-0d4e-4f5a-9b6c-7d8e9f0a1b2c", "kube-system"),
		sandbox("9a9a", "Evil\x1b[2J", "11111111-2222-3333-4444-555555555555", "default"),
		sandbox("7c7c", "cart-7", "abcdef01-2345-6789-abcd-ef0123456789", "shop"),
	} {
		reply = protowire.AppendTag(reply, 1, protowire.BytesType)
		reply = protowire.AppendBytes(reply, s)
	}
	sock := fakeRuntime(t, reply, "0")
	got, err := listPodSandboxes(t.Context(), sock)
	if err != nil || len(got) != 2 || got["3f2a1b7c-0d4e-4f5a-9b6c-7d8e9f0a1b2c"] != "kube-system/coredns-5d78c9869d-abcde" {
		t.Fatalf("the runtime's pods: %v %v", got, err)
	}
	if _, err := listPodSandboxes(t.Context(), fakeRuntime(t, nil, "7")); !errors.Is(err, errCRIReply) {
		t.Errorf("an error status: %v", err)
	}
	if _, err := listPodSandboxes(t.Context(), fakeRuntime(t, []byte{0x0a, 0xff}, "0")); err == nil {
		t.Error("a malformed reply was read")
	}
	if _, err := listPodSandboxes(t.Context(), filepath.Join(t.TempDir(), "none.sock")); err == nil {
		t.Error("no runtime answered, yet no error")
	}
	n := New("testdata/var/log/pods")
	n.sockets = []string{filepath.Join(t.TempDir(), "gone.sock"), sock}
	if got := n.Of("abcdef01-2345-6789-abcd-ef0123456789"); got != "shop/cart-7" { // the runtime's alone
		t.Errorf("named %q", got)
	}
	if got := n.Of("11111111-2222-3333-4444-555555555555"); got != "default/web-0" { // the runtime's name was refused: the kubelet's stands
		t.Errorf("named %q", got)
	}
}
