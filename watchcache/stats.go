package watchcache

// Stats are a cache's figures at one moment, for metrics and logs: plain numbers, so that a
// program exports them with whatever library it uses (the promcollector module does it for
// Prometheus).
type Stats struct {
	// Objects is the number of objects in the newest state.
	Objects int
	// ResourceVersion is the last RV applied (event, bookmark or re-list).
	ResourceVersion uint64
	// Watchers is the number of running watchers.
	Watchers int
	// EventsApplied counts the ADDED, MODIFIED and DELETED events applied since New; bookmarks and
	// re-lists are not events.
	EventsApplied uint64
	// Relists counts the Replace calls that succeeded, the first list included.
	Relists uint64
	// WindowEvents is the number of entries the window retains (the re-list entry included): how
	// far back a watch or an Exact list can reach.
	WindowEvents int
	// Snapshots is the number of window entries holding a published snapshot, plus the evicted
	// views still pinned by a running read: what holds old versions in memory.
	Snapshots int
	// WatchersBehind counts the watchers closed because they fell behind (ErrWatcherBehind).
	WatchersBehind uint64
}

// Stats returns the cache's figures. It takes the writer lock for as long as a scan of the
// window's entries lasts (microseconds for the default window), so it suits a metrics scrape, not
// a per-request call. Safe for concurrent use.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{
		ResourceVersion: c.lastRV,
		Watchers:        c.watchers.Len(),
		EventsApplied:   c.applied,
		Relists:         c.replaced,
		WatchersBehind:  c.watchers.behind,
		Snapshots:       len(c.pub.retired),
	}
	s.Objects = c.work.tree.Len()
	c.pub.mu.RLock()
	s.WindowEvents = len(c.pub.win.entries)
	for _, e := range c.pub.win.entries {
		if e.snap != nil {
			s.Snapshots++
		}
	}
	c.pub.mu.RUnlock()
	return s
}
