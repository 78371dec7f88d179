package bench

//go:generate ./gen.sh
