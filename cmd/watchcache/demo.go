package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// demo loads generated pods into a cache and prints the answers and timings of the queries a user
// runs against a cluster: pages, a continue page, a node's pods with and without an index, a
// selective label, an exact-resourceVersion list after churn, and a watch on one node.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg testdata.Config
	fs.IntVar(&cfg.Pods, "pods", 100000, "pods to load")
	fs.IntVar(&cfg.Nodes, "nodes", 500, "nodes the pods run on")
	fs.IntVar(&cfg.Namespaces, "namespaces", 20, "namespaces the pods live in")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of the generated cluster")
	churnEvents := fs.Int("churn-events", 5000, "pod changes applied before the exact-RV list and during the watch")
	node := fs.String("node", "node-7", "the node whose pods are listed and watched")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: watchcache demo [flags]\n\nLoad generated pods into a watch cache and time typical queries.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo: unexpected arguments %q", fs.Args())
	}
	if cfg.Pods <= 0 || *churnEvents < 0 {
		return fmt.Errorf("demo: --pods must be > 0 and --churn-events ≥ 0")
	}
	log, err := newLogger(stderr, "info")
	if err != nil {
		return err
	}
	d := &demoRun{ctx: ctx, out: stdout, log: log}
	return d.run(cfg, *churnEvents, *node)
}

type demoRun struct {
	ctx context.Context
	out io.Writer
	log *slog.Logger
	tw  *tabwriter.Writer
}

func (d *demoRun) run(cfg testdata.Config, churnEvents int, node string) error {
	src := &generated{gen: testdata.New(cfg), log: d.log}
	cfg = src.gen.Config()
	pods := watchcache.New(watchcache.Options{
		Resource: watchcache.Resource{Name: "pods", Namespaced: true},
		// The demo applies its churn as fast as it can: keep the whole run in the window.
		WindowEvents: max(watchcache.DefaultWindowEvents, 2*churnEvents),
		WindowAge:    -1,
	})
	defer pods.Stop()

	start := time.Now()
	objs, err := src.pods(d.ctx, cfg.Pods)
	if err != nil {
		return err
	}
	genTook := time.Since(start)
	var size int
	for _, o := range objs {
		size += len(o)
	}
	src.rv = uint64(cfg.Pods)
	start = time.Now()
	if err := pods.Replace(objs, src.rv); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "Loaded %d pods (%d MiB of JSON, %d nodes, %d namespaces): generated in %v, Replace in %v.\n\n",
		cfg.Pods, size>>20, cfg.Nodes, cfg.Namespaces, genTook.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	d.tw = tabwriter.NewWriter(d.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(d.tw, "query\titems\tcontinue\tremaining\tresourceVersion\ttime")

	first, err := d.list("first page, all namespaces, limit=500", pods, watchcache.ListOptions{Limit: 500})
	if err != nil {
		return err
	}
	if _, err := d.list("next page (continue token)", pods, watchcache.ListOptions{Limit: 500, Continue: first.Continue}); err != nil {
		return err
	}
	nodeSel := "spec.nodeName=" + node
	if _, err := d.list(nodeSel+", no index (scan)", pods, watchcache.ListOptions{FieldSelector: nodeSel, Limit: 500}); err != nil {
		return err
	}
	t := time.Now()
	if err := pods.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
		return err
	}
	fmt.Fprintf(d.tw, "AddIndex(field spec.nodeName)\t\t\t\t\t%v\n", since(t))
	if _, err := d.list(nodeSel+", indexed", pods, watchcache.ListOptions{FieldSelector: nodeSel, Limit: 500}); err != nil {
		return err
	}

	key, value, share := selectiveLabel(objs, 0.01)
	labelSel := key + "=" + value
	label := fmt.Sprintf("%s (%.1f%% of pods)", labelSel, 100*share)
	if _, err := d.list(label+", no index", pods, watchcache.ListOptions{LabelSelector: labelSel, Limit: 500}); err != nil {
		return err
	}
	t = time.Now()
	if err := pods.AddIndex(index.Spec{Kind: index.Label, Name: key}); err != nil {
		return err
	}
	fmt.Fprintf(d.tw, "AddIndex(label %s)\t\t\t\t\t%v\n", key, since(t))
	if _, err := d.list(label+", indexed", pods, watchcache.ListOptions{LabelSelector: labelSel, Limit: 500}); err != nil {
		return err
	}

	// Churn, with a watch on one node open from the RV before it.
	before := pods.ResourceVersion()
	wctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	w, err := pods.Watch(wctx, watchcache.WatchOptions{
		FieldSelector: nodeSel, ResourceVersion: strconv.FormatUint(before, 10),
	})
	if err != nil {
		return err
	}
	counts := map[watchcache.EventType]int{}
	var lastAt time.Time
	var lastRV uint64
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for ev := range w.Events() {
			counts[ev.Type]++
			lastAt, lastRV = time.Now(), ev.ResourceVersion
		}
	}()
	churn := src.gen.NewChurn(1)
	t = time.Now()
	for range churnEvents {
		src.rv++
		ch := churn.Next(src.rv)
		if err := pods.Apply(watchcache.Event{Type: eventType(ch.Type), Object: ch.Object, ResourceVersion: src.rv}); err != nil {
			return err
		}
	}
	applyTook := time.Since(t)
	appliedAt := time.Now()
	if _, err := d.list(fmt.Sprintf("Exact RV %d (before %d changes), limit=500", before, churnEvents), pods, watchcache.ListOptions{
		ResourceVersion: strconv.FormatUint(before, 10), ResourceVersionMatch: watchcache.MatchExact, Limit: 500,
	}); err != nil {
		return err
	}
	if _, err := d.list(nodeSel+", Exact RV "+strconv.FormatUint(before, 10), pods, watchcache.ListOptions{
		FieldSelector: nodeSel, ResourceVersion: strconv.FormatUint(before, 10), ResourceVersionMatch: watchcache.MatchExact,
	}); err != nil {
		return err
	}
	if _, err := d.list(nodeSel+", latest", pods, watchcache.ListOptions{FieldSelector: nodeSel}); err != nil {
		return err
	}
	if err := d.tw.Flush(); err != nil {
		return err
	}

	// Let the watch drain what is queued, then stop it.
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-watchDone
	fmt.Fprintf(d.out, "\nApplied %d pod changes in %v (%.0f/s).\n", churnEvents, applyTook.Round(time.Millisecond),
		float64(churnEvents)/applyTook.Seconds())
	lag := "n/a"
	if !lastAt.IsZero() {
		lag = lastAt.Sub(appliedAt).Round(time.Microsecond).String()
		if lastAt.Before(appliedAt) {
			lag = "0 (delivered while applying)"
		}
	}
	fmt.Fprintf(d.out, "Watch %s from RV %d: %d ADDED, %d MODIFIED, %d DELETED, last RV %d; last event after the last change: %s.\n",
		nodeSel, before, counts[watchcache.Added], counts[watchcache.Modified], counts[watchcache.Deleted], lastRV, lag)
	return nil
}

// list runs one list and prints a row.
func (d *demoRun) list(name string, c *watchcache.Cache, o watchcache.ListOptions) (*watchcache.ListResult, error) {
	t := time.Now()
	res, err := c.List(d.ctx, o)
	took := since(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cont, remaining := "no", ""
	if res.Continue != "" {
		cont = "yes"
	}
	if res.RemainingItemCount != nil {
		remaining = strconv.FormatInt(*res.RemainingItemCount, 10)
	}
	fmt.Fprintf(d.tw, "%s\t%d\t%s\t%s\t%d\t%v\n", name, len(res.Items), cont, remaining, res.ResourceVersion, took)
	return res, nil
}

func since(t time.Time) time.Duration {
	d := time.Since(t)
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// selectiveLabel finds the label (key, value) whose share of the objects is closest to want,
// reading at most 20,000 objects.
func selectiveLabel(objs [][]byte, want float64) (key, value string, share float64) {
	type kv struct{ k, v string }
	counts := map[kv]int{}
	n := min(len(objs), 20000)
	for _, o := range objs[:n] {
		gjson.GetBytes(o, "metadata.labels").ForEach(func(k, v gjson.Result) bool {
			if k.Str != "pod-template-hash" {
				counts[kv{k.Str, v.Str}]++
			}
			return true
		})
	}
	type cand struct {
		kv
		share float64
	}
	var cands []cand
	for p, c := range counts {
		cands = append(cands, cand{p, float64(c) / float64(n)})
	}
	if len(cands) == 0 {
		return "app", "none", 0
	}
	dist := func(s float64) float64 {
		if s > want {
			return s - want
		}
		return want - s
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(dist(a.share), dist(b.share)); c != 0 {
			return c
		}
		return cmp.Compare(a.k+"="+a.v, b.k+"="+b.v)
	})
	return cands[0].k, cands[0].v, cands[0].share
}
