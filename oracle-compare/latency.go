package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// latency times the same first pages on both servers: one warm-up request, then n sequential
// requests per case. With interleave the servers alternate request by request (both see the same
// background load, but each also runs while the other one's garbage collector does); otherwise
// each server gets its requests in one block while the other is idle.
func latency(as, us *server, n int, interleave bool) error {
	cases := []struct{ name, path string }{
		{"all pods, first page of 500", pods + "?limit=500"},
		{"spec.nodeName=node-7 (limit 500)", pods + "?limit=500&fieldSelector=spec.nodeName%3Dnode-7"},
		{"app=web, first page of 500", pods + "?limit=500&labelSelector=app%3Dweb"},
		{"all pods, RV=0, limit 500", pods + "?limit=500&resourceVersion=0"},
		{"spec.nodeName=node-7, RV=0", pods + "?limit=500&fieldSelector=spec.nodeName%3Dnode-7&resourceVersion=0"},
		{"all pods, exact RV page (continue, page 2)", ""},
	}
	fmt.Printf("| case | apiserver items / bytes | ours items / bytes | apiserver median (min–max) | ours median (min–max) | ratio |\n|---|---|---|---|---|---|\n")
	for _, c := range cases {
		aPath, oPath := c.path, c.path
		if c.path == "" {
			// The second page of a 500-item walk, from each server's own token.
			a := as.get(pods + "?limit=500")
			o := us.get(pods + "?limit=500")
			aPath = pods + "?limit=500&continue=" + a.Continue
			oPath = pods + "?limit=500&continue=" + o.Continue
		}
		var ad, od []time.Duration
		var aw, ow answer
		timed := func(s *server, p string, i int, warm *answer, ds *[]time.Duration) error {
			runtime.GC() // the client's garbage from decoding the last answer is not the server's time
			a := s.get(p)
			if a.Code != 200 {
				return fmt.Errorf("%s: %s: %s", c.name, s.name, a.summary())
			}
			if i == 0 {
				*warm = a
			} else {
				*ds = append(*ds, a.Took)
			}
			return nil
		}
		if interleave {
			for i := range n + 1 {
				if err := timed(as, aPath, i, &aw, &ad); err != nil {
					return err
				}
				if err := timed(us, oPath, i, &ow, &od); err != nil {
					return err
				}
			}
		} else {
			for i := range n + 1 {
				if err := timed(as, aPath, i, &aw, &ad); err != nil {
					return err
				}
			}
			time.Sleep(200 * time.Millisecond) // let the apiserver's GC settle
			for i := range n + 1 {
				if err := timed(us, oPath, i, &ow, &od); err != nil {
					return err
				}
			}
		}
		am, om := median(ad), median(od)
		fmt.Printf("| %s | %d / %d | %d / %d | %s (%s–%s) | %s (%s–%s) | %.1f× |\n", c.name,
			len(aw.Items), aw.Bytes, len(ow.Items), ow.Bytes,
			ms(am), ms(slices.Min(ad)), ms(slices.Max(ad)), ms(om), ms(slices.Min(od)), ms(slices.Max(od)),
			float64(am)/float64(om))
	}

	// A whole walk of all pods in pages of 500, as kubectl get pods -A --chunk-size=500 does: the
	// sum of the pages' request times (what the client spends decoding them is left out).
	walk := func(s *server) (time.Duration, int, int) {
		pages := chain(s, pods+"?limit=500", "", -1)
		var took time.Duration
		items := 0
		for _, p := range pages {
			items += len(p.Items)
			took += p.Took
		}
		return took, len(pages), items
	}
	var aw, ow []time.Duration
	var ap, ai, op, oi int
	for range 5 {
		d, p, i := walk(as)
		aw, ap, ai = append(aw, d), p, i
		d, p, i = walk(us)
		ow, op, oi = append(ow, d), p, i
	}
	fmt.Printf("| full walk, limit=500 (median of 5) | %d pages / %d items | %d pages / %d items | %s | %s | %.1f× |\n",
		ap, ai, op, oi, ms(median(aw)), ms(median(ow)), float64(median(aw))/float64(median(ow)))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
