// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/semaphore"
)

// The lock table shared by the concerns that serialise work in this program: the atomic writes (embedded_atomic.go:
// a database's, collections' and documents' locks around one statement) and the replica set's transactions
// (embedded_replset_gate.go: a database's write gate, held by a transaction from its first write to its end).
// Each lock is a FIFO weighted semaphore whose Acquire ends with the request's context; locks no request uses or waits
// for leave the table. Lock order, everywhere: a database's write gate, then its atomic lock, then collections' in
// name order, then a document's.

// embeddedWholeWeight is the weight of a database's or a collection's lock: each holder below it holds one unit,
// one that needs it alone (a statement with any filter, drop, dropDatabase) all of them.
const embeddedWholeWeight = 1 << 30

// embeddedLockKey names a lock: a database's (coll and doc ""), a collection's (doc ""), or a document's in a
// collection (doc: embeddedDocKey of its _id); or a database's write gate.
type embeddedLockKey struct {
	db, coll, doc string
	gate          bool // a database's write gate (db only), apart from its atomic lock
}

// embeddedLockEntry is a lock in use (or waited for) by refs requests; unused ones leave the table.
type embeddedLockEntry struct {
	sem  *semaphore.Weighted // FIFO, and its Acquire ends with the context
	refs int
}

var embeddedLocks = struct {
	mu      sync.Mutex
	entries map[embeddedLockKey]*embeddedLockEntry
}{entries: map[embeddedLockKey]*embeddedLockEntry{}}

// embeddedHeld is one lock taken.
type embeddedHeld struct {
	key embeddedLockKey
	e   *embeddedLockEntry
	n   int64
}

func embeddedAcquire(ctx context.Context, key embeddedLockKey, n int64) (*embeddedHeld, error) {
	return embeddedTake(key, n, func(sem *semaphore.Weighted) error { return sem.Acquire(ctx, n) })
}

// embeddedTryAcquire takes a lock if no one holds or waits for it; nil otherwise.
func embeddedTryAcquire(key embeddedLockKey, n int64) *embeddedHeld {
	held, _ := embeddedTake(key, n, func(sem *semaphore.Weighted) error {
		if !sem.TryAcquire(n) {
			return errEmbeddedBusy
		}

		return nil
	})

	return held
}

// errEmbeddedBusy: embeddedTryAcquire's lock is taken.
var errEmbeddedBusy = errors.New("the lock is taken")

// embeddedTake looks key's entry up (or adds it) and takes it with take.
func embeddedTake(key embeddedLockKey, n int64, take func(*semaphore.Weighted) error) (*embeddedHeld, error) {
	embeddedLocks.mu.Lock()
	e := embeddedLocks.entries[key]
	if e == nil {
		size := int64(embeddedWholeWeight)
		if key.doc != "" {
			size = 1
		}
		e = &embeddedLockEntry{sem: semaphore.NewWeighted(size)}
		embeddedLocks.entries[key] = e
	}
	e.refs++
	embeddedLocks.mu.Unlock()

	held := &embeddedHeld{key: key, e: e, n: n}
	if err := take(e.sem); err != nil {
		held.n = 0
		held.release()
		return nil, err
	}

	return held, nil
}

func (held *embeddedHeld) release() {
	if held.n > 0 {
		held.e.sem.Release(held.n)
	}

	embeddedLocks.mu.Lock()
	if held.e.refs--; held.e.refs == 0 {
		delete(embeddedLocks.entries, held.key)
	}
	embeddedLocks.mu.Unlock()
}

// embeddedLockSet takes locks in the order given and releases them in the reverse order.
type embeddedLockSet []*embeddedHeld

func (set *embeddedLockSet) take(ctx context.Context, key embeddedLockKey, n int64) error {
	h, err := embeddedAcquire(ctx, key, n)
	if err != nil {
		set.release()
		return err
	}

	*set = append(*set, h)

	return nil
}

func (set *embeddedLockSet) release() {
	for i := len(*set) - 1; i >= 0; i-- {
		(*set)[i].release()
	}

	*set = nil
}
