// Package inproc is an http.RoundTripper that serves each request with an http.Handler of the same
// process: the client's *http.Request becomes the server-side request the handler would get from
// net/http's server, and what the handler writes becomes the client's *http.Response, with no
// socket, no HTTP parsing and no net/http server in between.
//
// The answer is the one a net/http server on a loopback connection gives a net/http client:
// the same status, headers (Date, sniffed Content-Type, Content-Length for a short answer,
// chunked for a long or flushed one) and body. A response the handler flushes streams: RoundTrip
// returns at the first flush, and the handler's later writes reach the body as they happen.
// Closing the body or ending the request's context cancels the handler's context, as a closed
// connection does.
//
//	t := inproc.New(handler, "127.0.0.1:8080")
//	client := &http.Client{Transport: t}
//	resp, err := client.Get("http://127.0.0.1:8080/healthz")
package inproc
