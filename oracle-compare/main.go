// Command oracle-compare sends the same list requests to a real kube-apiserver and to a watchcache
// serve fed from the apiserver's etcd, and compares the answers; it also measures list latency on
// both. Standard library only, but for client-go's scheme to read protobuf answers.
//
//	go run ./oracle-compare compare -kas https://127.0.0.1:6443 -token T -ours http://127.0.0.1:8080 [-phase main|snapshot|expired] [-state f.json]
//	go run ./oracle-compare latency -kas ... -token T -ours ... [-n 20] [-kas-http1] [-interleave]
//
// compare prints a Markdown table (request × apiserver × ours × verdict) on stdout and the full
// answers as JSON lines to -raw. See compare.sh for the whole run against the oracle.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle-compare compare|latency [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kas := fs.String("kas", os.Getenv("KAS_URL"), "kube-apiserver URL")
	token := fs.String("token", os.Getenv("TOKEN"), "kube-apiserver bearer token")
	ours := fs.String("ours", os.Getenv("OURS_URL"), "watchcache serve URL")
	phase := fs.String("phase", "main", "compare: main (read-only cases), snapshot (writes, then exact/continue at the old RV), expired (old tokens after compaction)")
	state := fs.String("state", "oracle-compare/out/state.json", "compare: file keeping RVs and tokens between phases")
	raw := fs.String("raw", "", "compare: file for the full answers as JSON lines")
	n := fs.Int("n", 20, "latency: timed requests per case (after one warm-up)")
	h1 := fs.Bool("kas-http1", false, "latency: speak HTTP/1.1 to the apiserver too")
	interleave := fs.Bool("interleave", false, "latency: alternate the servers request by request instead of one block each")
	fs.Parse(os.Args[2:])
	if *kas == "" || *ours == "" {
		fmt.Fprintln(os.Stderr, "need -kas and -ours (or KAS_URL, OURS_URL)")
		os.Exit(2)
	}
	as := &server{name: "apiserver", base: *kas, token: *token, client: kasClient(!*h1)}
	us := &server{name: "ours", base: *ours, client: oursClient()}
	var err error
	switch os.Args[1] {
	case "compare":
		err = compare(as, us, *phase, *state, *raw)
	case "latency":
		err = latency(as, us, *n, *interleave)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle-compare:", err)
		os.Exit(1)
	}
}

// kasClient speaks to the apiserver as client-go does: TLS (its self-signed serving certificate,
// so verification is off) with HTTP/2 negotiated by ALPN, unless http2 is false.
func kasClient(http2 bool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		ForceAttemptHTTP2:   http2,
		MaxIdleConnsPerHost: 4,
	}
	if !http2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// oursClient speaks plain HTTP/1.1 with keep-alive: watchcache serve has no TLS.
func oursClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 60 * time.Second}
}
