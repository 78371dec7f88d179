package apistatus_test

import (
	"context"
	"fmt"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

// A cache that has not had its first list answers 429 with a Retry-After, as the apiserver's
// cacher does while it initializes.
func ExampleFromError() {
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	defer c.Stop()
	_, err := c.List(context.Background(), watchcache.ListOptions{})
	st := apistatus.FromError(err).ErrStatus
	fmt.Println(st.Code, st.Reason, st.Message, st.Details.RetryAfterSeconds)
	// Output: 429 TooManyRequests storage is (re)initializing 1
}
