// Package promcollector exports the figures of watch caches and of the sources feeding them as
// Prometheus metrics: a prometheus.Collector any program embedding the caches registers, with or
// without watchcache serve.
//
//	col := promcollector.New()
//	col.AddCache("", "pods", podCache)
//	col.AddSource("etcd", func() any { return src.Stats() })
//	prometheus.MustRegister(col)
//
// It is a module of its own so that the core does not depend on client_golang.
package promcollector

import (
	"reflect"
	"strings"
	"sync"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/watchcache/watchcache/watchcache"
)

// namespace prefixes every metric name.
const namespace = "watchcache"

// cacheMetric is one figure of watchcache.Stats.
type cacheMetric struct {
	desc  *prometheus.Desc
	typ   prometheus.ValueType
	value func(s watchcache.Stats) float64
}

// cacheLabels identify a cache as the apiserver's metrics identify a resource.
var cacheLabels = []string{"group", "resource"}

func cacheDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, cacheLabels, nil)
}

var cacheMetrics = []cacheMetric{
	{cacheDesc("objects", "Objects in the cache's newest state."), prometheus.GaugeValue,
		func(s watchcache.Stats) float64 { return float64(s.Objects) }},
	{cacheDesc("resource_version", "The last resourceVersion the cache applied (event, bookmark or re-list)."), prometheus.GaugeValue,
		func(s watchcache.Stats) float64 { return float64(s.ResourceVersion) }},
	{cacheDesc("watchers", "Running watchers."), prometheus.GaugeValue,
		func(s watchcache.Stats) float64 { return float64(s.Watchers) }},
	{cacheDesc("events_applied_total", "ADDED, MODIFIED and DELETED events applied."), prometheus.CounterValue,
		func(s watchcache.Stats) float64 { return float64(s.EventsApplied) }},
	{cacheDesc("relists_total", "Re-lists (Replace) applied, the first list included."), prometheus.CounterValue,
		func(s watchcache.Stats) float64 { return float64(s.Relists) }},
	{cacheDesc("window_events", "Entries the window retains: how far back a watch or an exact list reaches."), prometheus.GaugeValue,
		func(s watchcache.Stats) float64 { return float64(s.WindowEvents) }},
	{cacheDesc("snapshots", "Snapshots held: published window entries and evicted ones still pinned by a read."), prometheus.GaugeValue,
		func(s watchcache.Stats) float64 { return float64(s.Snapshots) }},
	{cacheDesc("watchers_behind_total", "Watchers closed because they fell behind."), prometheus.CounterValue,
		func(s watchcache.Stats) float64 { return float64(s.WatchersBehind) }},
}

// Collector is a prometheus.Collector over caches and sources. Add and Remove may be called at any
// time, concurrently with collection (a cache of a custom resource comes and goes with its CRD).
//
// It is an unchecked collector (Describe sends nothing): the metrics of a source are named after
// the fields of its stats, which it learns only when it collects them.
type Collector struct {
	mu       sync.Mutex
	caches   map[cacheID]*watchcache.Cache
	sources  map[string]func() any
	revision func() (uint64, error)
}

// lagDesc is the lag of each cache behind its source's revision.
var lagDesc = cacheDesc("resource_version_lag", "Revisions the source has reached that the cache has not applied yet (etcd's revision minus the cache's resourceVersion).")

// SetRevision tells the Collector how to learn the revision the source of every cache has reached
// (source/etcd's CurrentResourceVersion: one revision for all resources, as etcd's), so that it
// exports watchcache_resource_version_lag per cache. It is called once per scrape; an error leaves
// the lag out of that scrape. nil removes it.
func (c *Collector) SetRevision(rev func() (uint64, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.revision = rev
}

type cacheID struct{ group, resource string }

// New returns an empty Collector.
func New() *Collector {
	return &Collector{caches: map[cacheID]*watchcache.Cache{}, sources: map[string]func() any{}}
}

// AddCache exports the Stats of cache under the labels group ("" for the core group) and
// resource, replacing a cache added before under the same labels.
func (c *Collector) AddCache(group, resource string, cache *watchcache.Cache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.caches[cacheID{group, resource}] = cache
}

// RemoveCache stops exporting the cache of group and resource.
func (c *Collector) RemoveCache(group, resource string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.caches, cacheID{group, resource})
}

// AddSource exports the counters of a source under the label source=name. stats returns a struct
// (or a pointer to one), such as source/etcd's or source/kube's Stats: each exported integer field
// becomes the counter watchcache_source_<field in snake case>_total (Reconnects:
// watchcache_source_reconnects_total); other fields are ignored. It is called once per scrape, from
// the scraping goroutine.
func (c *Collector) AddSource(name string, stats func() any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources[name] = stats
}

// Describe sends nothing: the Collector is unchecked (see Collector).
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect sends the current figures of every cache and source.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	caches := make(map[cacheID]*watchcache.Cache, len(c.caches))
	for id, cache := range c.caches {
		caches[id] = cache
	}
	sources := make(map[string]func() any, len(c.sources))
	for name, f := range c.sources {
		sources[name] = f
	}
	revision := c.revision
	c.mu.Unlock()
	var rev uint64
	haveRev := false
	if revision != nil {
		r, err := revision()
		rev, haveRev = r, err == nil
	}
	for id, cache := range caches {
		s := cache.Stats()
		for _, m := range cacheMetrics {
			ch <- prometheus.MustNewConstMetric(m.desc, m.typ, m.value(s), id.group, id.resource)
		}
		if haveRev {
			lag := uint64(0)
			if rev > s.ResourceVersion {
				lag = rev - s.ResourceVersion
			}
			ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, float64(lag), id.group, id.resource)
		}
	}
	for name, f := range sources {
		for field, v := range counters(f()) {
			desc := prometheus.NewDesc(prometheus.BuildFQName(namespace, "source", snake(field)+"_total"),
				"The source's "+field+" counter.", []string{"source"}, nil)
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, name)
		}
	}
}

// counters returns the exported integer fields of the struct v holds, by field name.
func counters(v any) map[string]float64 {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]float64{}
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		switch fv := rv.Field(i); fv.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[f.Name] = float64(fv.Uint())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[f.Name] = float64(fv.Int())
		}
	}
	return out
}

// snake turns a Go field name into a metric name part: ProgressRequests → progress_requests,
// HTTPErrors → http_errors.
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
