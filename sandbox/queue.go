package sandbox

import "sync"

// queue is an unbounded FIFO. Producers never block: the controller must be
// able to send to a broker while that broker sends to the controller, as
// Kafka's request queues allow.
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	head  int
	ready chan struct{} // holds one token while items are waiting
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop waits for the next item; ok is false when stop is closed first.
func (q *queue[T]) pop(stop <-chan struct{}) (v T, ok bool) {
	for {
		q.mu.Lock()
		if q.head < len(q.items) {
			v = q.items[q.head]
			var zero T
			q.items[q.head] = zero
			q.head++
			if q.head == len(q.items) {
				q.items, q.head = q.items[:0], 0
			} else if q.head > 1024 && q.head*2 > len(q.items) {
				q.items = append(q.items[:0:0], q.items[q.head:]...)
				q.head = 0
			}
			q.mu.Unlock()
			return v, true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-stop:
			return v, false
		}
	}
}
