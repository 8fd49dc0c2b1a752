package kraftsandbox

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiRange is the versions of one API a listener serves.
type apiRange struct{ min, max int16 }

// Kafka 4.4.0's API versions, as its brokers and controllers answer
// ApiVersions (testdata/apiversions-4.4-*.txt, read from a real 4.4.0
// cluster). The sandbox advertises an API only when it has a handler for
// it (Cluster.handlers), so that a client asking for anything else gets
// the UnsupportedVersionException it would get from a broker without the
// API, never a silent wrong answer.
var (
	brokerAPIs = map[int16]apiRange{
		0: {0, 13}, 1: {4, 18}, 2: {1, 11}, 3: {0, 13}, 8: {2, 10}, 9: {1, 10}, 10: {0, 6}, 11: {0, 9},
		12: {0, 4}, 13: {0, 5}, 14: {0, 5}, 15: {0, 6}, 16: {0, 5}, 17: {0, 1}, 18: {0, 5}, 19: {2, 7},
		20: {1, 6}, 21: {0, 2}, 22: {0, 5}, 23: {2, 4}, 24: {0, 5}, 25: {0, 4}, 26: {0, 5}, 27: {1, 2},
		28: {0, 6}, 29: {1, 3}, 30: {1, 3}, 31: {1, 3}, 32: {1, 4}, 33: {0, 2}, 34: {1, 2}, 35: {1, 5},
		36: {0, 2}, 37: {0, 3}, 38: {1, 3}, 39: {1, 2}, 40: {1, 2}, 41: {1, 3}, 42: {0, 3}, 43: {0, 2},
		44: {0, 1}, 45: {0, 1}, 46: {0, 0}, 47: {0, 0}, 48: {0, 1}, 49: {0, 1}, 50: {0, 0}, 51: {0, 0},
		55: {0, 2}, 57: {0, 2}, 60: {0, 2}, 61: {0, 0}, 64: {0, 0}, 65: {0, 0}, 66: {0, 2}, 68: {0, 1},
		69: {0, 1}, 74: {0, 1}, 75: {0, 0}, 80: {0, 1}, 81: {0, 0}, 94: {0, 0},
	}
	controllerAPIs = map[int16]apiRange{
		1: {4, 18}, 17: {0, 1}, 18: {0, 5}, 19: {2, 7}, 20: {1, 6}, 29: {1, 3}, 30: {1, 3}, 31: {1, 3},
		32: {1, 4}, 33: {0, 2}, 36: {0, 2}, 37: {0, 3}, 43: {0, 2}, 44: {0, 1}, 45: {0, 1}, 46: {0, 0},
		49: {0, 1}, 55: {0, 2}, 57: {0, 2}, 60: {0, 2}, 64: {0, 0}, 80: {0, 1}, 81: {0, 0}, 94: {0, 0},
	}
)

// served is the range of key a node of that role advertises: Kafka's
// range, capped at the newest version kmsg can encode, and only when the
// sandbox handles the key.
func (c *Cluster) served(controller bool, key int16) (apiRange, bool) {
	table := brokerAPIs
	if controller {
		table = controllerAPIs
	}
	r, ok := table[key]
	if !ok || c.handlers[key] == nil {
		return apiRange{}, false
	}
	req := kmsg.RequestForKey(key)
	if req == nil {
		return apiRange{}, false
	}
	r.max = min(r.max, req.MaxVersion())
	if r.max < r.min {
		return apiRange{}, false
	}
	return r, true
}
