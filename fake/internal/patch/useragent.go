package patch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
)

// ManagerFromUserAgent is the field manager the apiserver records for a write without a
// fieldManager parameter: the User-Agent up to its first "/", without unprintable characters,
// cut to the longest prefix of at most 128 bytes. client-go's default User-Agent
// "kubectl/v1.37.2 (linux/amd64) kubernetes/abc" gives "kubectl"; a Go binary's default gives
// its executable name. Apply never uses it: it requires an explicit manager.
//
// It is a pure function, safe to call from any goroutine.
func ManagerFromUserAgent(userAgent string) string {
	head, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range head {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
