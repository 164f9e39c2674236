// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package metadata

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
)

// Collections made inside a client transaction (replset.patch). The registry knows a collection as soon as it is
// made, but its table exists only in the transaction's SQLite transaction until that commits: meanwhile it is hidden
// from every other context (CollectionGet, CollectionList), as MongoDB hides what an open transaction made. When the
// transaction is rolled back, the table is gone and the registry forgets the collection.

type embeddedPendingKey struct{ db, coll string }

var embeddedPending = struct {
	mu sync.Mutex
	m  map[embeddedPendingKey]*fsql.Txn
	n  atomic.Int32 // len(m): read without the mutex on every read's path
}{m: map[embeddedPendingKey]*fsql.Txn{}}

// embeddedCreatedInTxn records that collection coll of database db was just made in ctx's transaction, if any.
// Called under r.rw.
func embeddedCreatedInTxn(ctx context.Context, r *Registry, db, coll string) {
	t := fsql.TxnFrom(ctx)
	if t == nil {
		return
	}

	key := embeddedPendingKey{db: db, coll: coll}

	embeddedPending.mu.Lock()
	embeddedPending.m[key] = t
	embeddedPending.n.Store(int32(len(embeddedPending.m)))
	embeddedPending.mu.Unlock()

	t.OnEnd(func(committed bool) {
		if !committed {
			r.rw.Lock()
			if r.colls[db] != nil {
				delete(r.colls[db], coll)
			}
			r.rw.Unlock()
		}

		embeddedPending.mu.Lock()
		delete(embeddedPending.m, key)
		embeddedPending.n.Store(int32(len(embeddedPending.m)))
		embeddedPending.mu.Unlock()
	})
}

// embeddedHidden tells whether collection coll of database db was made in a transaction other than ctx's that has
// not committed.
func embeddedHidden(ctx context.Context, db, coll string) bool {
	if embeddedPending.n.Load() == 0 {
		return false
	}

	embeddedPending.mu.Lock()
	defer embeddedPending.mu.Unlock()

	t := embeddedPending.m[embeddedPendingKey{db: db, coll: coll}]

	return t != nil && t != fsql.TxnFrom(ctx)
}
