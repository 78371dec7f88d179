// Package fuzz checks the watch cache against a reference model and holds its fuzz targets.
//
// Model is the reference: the rules of reference/apiserver-semantics.md written as plainly as
// possible — a key-sorted slice per resourceVersion (a full copy of the state for every event),
// history as a list, full scans, its own pagination and continue tokens, apimachinery's selectors
// on maps, no indexes. Objects are held under storage keys, given with an event or a re-list
// object or made from the metadata; key_test.go states what the key decides (where the object is, which
// namespace reaches it, order, tokens) and what the object decides (everything selectors read).
// The model and the tests are test files: the package exports nothing. The tests drive package
// watchcache and the model with the same inputs and require identical answers:
//
//   - TestDifferential: random event streams (adds, updates moving pods between nodes and labels,
//     deletes, bookmarks, re-lists, index and field registrations) interleaved with random
//     queries (label and field selectors over indexed and unindexed fields, limits, continue
//     tokens kept across writes, Exact and NotOlderThan RVs, watches from random RVs and
//     watch-lists). Events and re-list objects (Cache.ReplaceKeyed) carry a key whenever the
//     pod's metadata does not make the key it is stored under, and one time in four when it does
//     (which must change nothing). One new pod in six is stored under a key its metadata does not
//     make (another namespace or none in the metadata, "//<name>", a key-only namespace, another
//     name); some updates move the metadata to or away from the key, some deletes by key carry an
//     object naming another pod; invalid keys, on events and in re-lists, must be refused by both
//     sides (ErrInvalidKey) and leave every answer as it was. A failure prints the seed and the
//     command that replays it:
//
//     go test ./fuzz -run 'TestDifferential$' -seed=N -v
//
//     It stops at the first failing seed. -seeds sets the number of seeds (default 30 of 400
//     operations: a second or two), -long runs 20× the seeds with 4× the operations.
//
//   - FuzzContinueToken: a token built from arbitrary bytes never panics List, and gives a valid
//     page or the apiserver's 400 ("invalid continue token: continue key is not valid...") exactly
//     as the model decodes it (rule 2.3); pages of valid tokens match the model and their tokens
//     round-trip.
//
//   - FuzzSelectors: label and field selectors are accepted and rejected as apimachinery's
//     labels.Parse and fields.ParseSelector (plus the pod field-label conversion) do, with the same
//     messages, and select the same pods as the model.
//
//   - FuzzApplyEvent: arbitrary bytes as an event's object never panic Apply; a rejected event
//     leaves every List answer byte-identical; an accepted one is served as valid JSON under the
//     key and resourceVersion the apiserver's decoder (sigs.k8s.io/json) reads from it; the model
//     accepts and rejects the same events.
//
//   - FuzzOperations: a byte string decoded into the same operations as TestDifferential; keys are
//     drawn only when bit 2 of the first byte is set, so inputs written before keys existed
//     decode as they did (the keyed-* corpus entries set it).
//
//   - TestRegression*: minimal reproductions of bugs of the core, kept with the corpus entries
//     named known-*, so that a cache with one of them fails.
//
// The seed corpora under testdata/fuzz/<FuzzName> run with every `go test`. To fuzz one target
// longer:
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzOperations$' -fuzztime 10m
//
// (FuzzOperations minimizes slowly; -fuzzminimizetime 3s keeps it fuzzing.) A crash is written to
// testdata/fuzz/<FuzzName>/<hash>; keep it there, it becomes a regression test of the seed corpus.
package fuzz
