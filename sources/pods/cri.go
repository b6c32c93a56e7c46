package pods

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// CRISockets are the CRI runtimes' sockets tablefull asks for pods'
// names: containerd's and CRI-O's.
var CRISockets = []string{"/run/containerd/containerd.sock", "/run/crio/crio.sock"}

// Bounds of one call to a runtime: its time and the reply it may send.
const (
	criTimeout  = time.Second
	maxCRIReply = 4 << 20
)

// errCRIReply is a reply that is not a CRI response.
var errCRIReply = errors.New("not a CRI reply")

// listPodSandboxes asks the CRI runtime at socket for its pod sandboxes
// (runtime.v1.RuntimeService/ListPodSandbox, read-only) and returns them
// by UID as "namespace/name". The reply is foreign: bounded, and every
// name checked.
func listPodSandboxes(ctx context.Context, socket string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, criTimeout)
	defer cancel()
	reply, err := Unary(ctx, socket, "runtime.v1.RuntimeService/ListPodSandbox", nil)
	if err != nil {
		return nil, err
	}
	return parseSandboxes(reply)
}

// Unary makes one unary gRPC call of method ("package.Service/Method")
// to the runtime at socket with the encoded request req, and returns the
// encoded reply, at most maxCRIReply bytes. It speaks gRPC itself —
// HTTP/2 without TLS on the unix socket — rather than link gRPC's client
// for a question or two; ctx bounds it.
func Unary(ctx context.Context, socket, method string, req []byte) ([]byte, error) {
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protocols, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}
	defer tr.CloseIdleConnections()
	frame := make([]byte, 5, 5+len(req)) // gRPC's frame: not compressed, the length, the message
	binary.BigEndian.PutUint32(frame[1:], uint32(len(req)))
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://cri/"+method, bytes.NewReader(append(frame, req...)))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/grpc")
	r.Header.Set("TE", "trailers")
	resp, err := tr.RoundTrip(r)
	if err != nil {
		return nil, fmt.Errorf("ask %s: %w", socket, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCRIReply+1))
	if err != nil {
		return nil, fmt.Errorf("read %s's reply: %w", socket, err)
	}
	status := resp.Trailer.Get("Grpc-Status")
	if status == "" {
		status = resp.Header.Get("Grpc-Status") // a trailers-only reply: an error
	}
	if status != "0" || len(body) > maxCRIReply {
		return nil, fmt.Errorf("%s answered status %q (%s): %w", socket, status, resp.Trailer.Get("Grpc-Message"), errCRIReply)
	}
	if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
		return nil, fmt.Errorf("%s: %w", socket, errCRIReply)
	}
	return body[5:], nil
}

// parseSandboxes reads a ListPodSandboxResponse (cri-api's api.proto:
// items = 1, each a PodSandbox whose metadata = 2 holds name = 1, uid =
// 2, namespace = 3), keeping the pods whose names are Kubernetes names.
func parseSandboxes(b []byte) (map[string]string, error) {
	out := map[string]string{}
	err := fields(b, func(num protowire.Number, v []byte) error {
		if num != 1 || len(out) >= maxPods {
			return nil
		}
		return fields(v, func(num protowire.Number, meta []byte) error {
			if num != 2 {
				return nil
			}
			var name, uid, ns string
			err := fields(meta, func(num protowire.Number, s []byte) error {
				switch num {
				case 1:
					name = string(s)
				case 2:
					uid = string(s)
				case 3:
					ns = string(s)
				}
				return nil
			})
			if err == nil && label(ns, 63) && label(name, 253) && uidLike(uid) {
				out[uid] = ns + "/" + name
			}
			return err
		})
	})
	return out, err
}

// fields calls each for every length-delimited field of a message and
// skips the others; a malformed message is an error.
func fields(b []byte, each func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errCRIReply
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return errCRIReply
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return errCRIReply
		}
		if err := each(num, v); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
