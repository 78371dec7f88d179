package fake

import (
	"context"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// metav1Object is the metadata accessor of an object (meta.Accessor).
type metav1Object = metav1.Object

// generateNameAttempts is how many names the apiserver tries for a generateName create before it
// answers AlreadyExists (maxNameGenerationCreateAttempts in the apiserver's generic store).
const generateNameAttempts = 8

// maxGeneratedBase is how much of generateName a generated name keeps: the name limit (63) less
// the 5 random characters (names.MaxGeneratedNameLength).
const maxGeneratedBase = 63 - 5

// generateName returns generateName followed by 5 random characters of the apiserver's alphabet
// (utilrand.String: consonants and digits that spell no words), from the server's seeded source.
func (s *Server) generateName(base string) string {
	if len(base) > maxGeneratedBase {
		base = base[:maxGeneratedBase]
	}
	return base + s.names.suffix()
}

// fillSystemFields sets what the apiserver sets on every create (rest.FillObjectMetaSystemFields
// and BeforeCreate): a new uid, creationTimestamp now (to the second, as it is serialized), no
// deletion timestamp or grace period.
func (s *Server) fillSystemFields(m metav1Object) {
	m.SetUID(s.names.uid())
	m.SetCreationTimestamp(metav1.NewTime(s.opts.Now().Truncate(1e9)))
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
}

// rvString is a resourceVersion as metadata carries it.
func rvString(rv uint64) string { return strconv.FormatUint(rv, 10) }

// contextBackground is the context of reads the server makes for itself.
func contextBackground() context.Context { return context.Background() }
