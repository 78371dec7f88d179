// Command storm sends N concurrent unpaginated lists to a server and counts the answers by
// status, the "storm" of many clients listing every pod at once (README "Serving a real cluster
// safely"); -mode load first creates pods through a kube-apiserver, so that it and serve
// --etcd-endpoints on its etcd serve the same objects.
//
//	storm -mode load -url $KAS_URL -token $TOKEN -n 100000
//	storm -url http://127.0.0.1:PORT -n 200            # serve
//	storm -url $KAS_URL -token $TOKEN -n 200           # kube-apiserver
//
// A list whose status was 200 but whose body broke off (a server cutting it at its request
// timeout) counts as "cut". HTTP/1.1 only: one connection per list, as many clients are.
package main

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "server URL")
	token := flag.String("token", "", "bearer token")
	mode := flag.String("mode", "storm", "load or storm")
	n := flag.Int("n", 200, "concurrent lists (storm) or pods (load)")
	path := flag.String("path", "/api/v1/pods", "list path")
	flag.Parse()
	// HTTP/1.1 (TLSNextProto empty): a connection per list, not 200 streams on one.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 300, ForceAttemptHTTP2: false, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	c := &http.Client{Transport: tr}
	do := func(method, p string, body []byte) (int, int64, error) {
		req, _ := http.NewRequest(method, *url+p, bytes.NewReader(body))
		if body == nil {
			req.Body = nil
		}
		if *token != "" {
			req.Header.Set("Authorization", "Bearer "+*token)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		nb, err := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nb, err
	}
	if *mode == "load" {
		for i := 0; i < 10; i++ {
			do("POST", "/api/v1/namespaces", []byte(fmt.Sprintf(`{"metadata":{"name":"storm-%d"}}`, i)))
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < 32; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if i >= int64(*n) {
						return
					}
					body := fmt.Sprintf(`{"metadata":{"name":"pod-%06d","namespace":"storm-%d","labels":{"app":"app-%d","tier":"web"}},"spec":{"nodeName":"node-%d","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"env":[{"name":"A","value":"%0200d"}]}]}}`, i, i%10, i%50, i%100, i)
					code, _, err := do("POST", fmt.Sprintf("/api/v1/namespaces/storm-%d/pods", i%10), []byte(body))
					if err != nil || code != 201 {
						fmt.Fprintln(os.Stderr, "create", i, code, err)
					}
				}
			}()
		}
		wg.Wait()
		fmt.Printf("created %d pods in %v\n", *n, time.Since(start).Round(time.Millisecond))
		return
	}
	// res is one list's answer.
	type res struct {
		code  int
		bytes int64
		d     time.Duration
		err   error
	}
	out := make([]res, *n)
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for i := 0; i < *n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startGate
			t := time.Now()
			code, nb, err := do("GET", *path, nil)
			out[i] = res{code, nb, time.Since(t), err}
		}()
	}
	start := time.Now()
	close(startGate)
	wg.Wait()
	total := time.Since(start)
	codes := map[string]int{}
	var ds []time.Duration
	var bytesTotal int64
	for _, r := range out {
		k := fmt.Sprint(r.code)
		switch {
		case r.err != nil && r.code == 200:
			k = "cut"
		case r.err != nil:
			k = "error"
		}
		codes[k]++
		if k == "200" {
			ds = append(ds, r.d)
			bytesTotal += r.bytes
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	fmt.Printf("%d lists in %v: %v; complete 200s: %d MB in total", *n, total.Round(time.Millisecond), codes, bytesTotal>>20)
	if len(ds) > 0 {
		fmt.Printf(", %d MB each, p50 %v, max %v", bytesTotal/int64(len(ds))>>20, ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
	}
	fmt.Println()
}
