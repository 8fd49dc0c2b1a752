package zkwatch

import (
	"math/rand/v2"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m, stopApacheTLS) }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
