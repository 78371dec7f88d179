//go:build race

package kubeapi

// raceEnabled: the race detector slows client-go's decoding ≈10×; TestInformerUnderChurn then
// syncs 2,000 pods instead of 10,000 so that the package stays within go test's timeout on 2 cores.
const raceEnabled = true
