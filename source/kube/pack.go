package kube

// packBlock is the size of the blocks a list's objects are packed into. Each object of its own is
// rounded up by the allocator to its size class: 8% more than the JSON for generated pods of
// 3.5 KiB (3,808 B held per 3,511 B event, BenchmarkSync in ctrlcache). A block is a multiple of
// the page size, which the allocator does not round, and its unused tail averages half an object:
// under 1% of a block for objects of a few KiB.
const packBlock = 256 << 10

// packMax is the largest object packed: a larger one has an allocation of its own, so that a block
// is never mostly one object's tail.
const packMax = packBlock / 16

// packer copies objects into shared blocks, one after the other. A block stays allocated while any
// object in it is referenced: objects replaced or deleted after the list free their space only
// with the last object of their block (Options.PackLists says what that costs).
//
// Concurrency: a packer is used by one goroutine.
type packer struct {
	block []byte
}

// copy returns a copy of b in the current block (or of its own when b is large). Its capacity is
// its length: an append to it cannot write into the next object.
func (p *packer) copy(b []byte) []byte {
	if len(b) > packMax {
		return append(make([]byte, 0, len(b)), b...)
	}
	if cap(p.block)-len(p.block) < len(b) {
		p.block = make([]byte, 0, packBlock)
	}
	n := len(p.block)
	p.block = append(p.block, b...)
	return p.block[n:len(p.block):len(p.block)]
}
