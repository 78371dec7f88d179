package watchcache_test

import (
	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

func init() { watchcache.SetStatusFromError(apistatus.FromError) }
