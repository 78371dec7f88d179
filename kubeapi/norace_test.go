//go:build !race

package kubeapi

const raceEnabled = false
