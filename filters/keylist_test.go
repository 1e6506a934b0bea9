package filters

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// TestBuildListEqualsBuild: every kind's filter over a packed keylist.List
// (8-byte keys end to end, as the join's build hands them over) is the
// same bytes, fingerprint and formula as over the same keys as a
// [][]byte, at sizes below and above the parallel build's threshold.
func TestBuildListEqualsBuild(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	sizes := []int{0, 1, 1000, 50_000}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, n := range sizes {
		arena := make([]byte, 0, 8*n)
		var keys [][]byte
		for range n {
			arena = binary.LittleEndian.AppendUint64(arena, rng.Uint64())
			keys = append(keys, arena[len(arena)-8:len(arena):len(arena)])
		}
		for _, sp := range Kinds() {
			if !sp.Sized && sp.Kind != Exact {
				continue
			}
			a, errA := Build(sp.Kind, keys, Sizing{FPP: 0.01})
			b, errB := BuildList(sp.Kind, keylist.Packed(arena, 8), Sizing{FPP: 0.01})
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s, %d keys: errors %v and %v", sp.Kind, n, errA, errB)
			}
			if errA != nil {
				continue
			}
			ma, err := a.Marshal()
			testutil.Check(t, err)
			mb, err := b.Marshal()
			testutil.Check(t, err)
			if !bytes.Equal(ma, mb) || a.KeysFingerprint != b.KeysFingerprint || a.N != b.N || a.FPP != b.FPP {
				t.Errorf("%s, %d keys: a packed list builds another filter (%d against %d bytes, fingerprint %x against %x)",
					sp.Kind, n, len(mb), len(ma), b.KeysFingerprint, a.KeysFingerprint)
			}
		}
	}
}
