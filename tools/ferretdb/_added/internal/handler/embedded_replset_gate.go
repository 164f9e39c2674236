// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// A database's write gate (replset.patch). SQLite writes one transaction at a time per file, and a client transaction
// keeps its SQLite transaction open between its commands: so a transaction holds its database's gate alone from its
// first write to its end, and every write outside transactions holds it shared (with the others) for its command.
// A writer therefore waits for a transaction in Go, where the wait is bounded and ordered (FIFO), instead of in
// SQLite's busy handler, which retries blindly and may hold FerretDB's own locks meanwhile. The gate comes first in
// the lock order (embedded_locks.go).

// embeddedGateShared takes db's gate for one write outside transactions; it waits while a transaction holds it, as a
// write on MongoDB waits for a transaction holding its document (until the transaction ends: committed, aborted,
// its client gone, or past its lifetime).
func embeddedGateShared(ctx context.Context, db string) (func(), error) {
	h, err := embeddedAcquire(ctx, embeddedLockKey{db: db, gate: true}, 1)
	if err != nil {
		return nil, err
	}

	return h.release, nil
}

// embeddedGateHolders are the transactions holding a database's gate alone, by database.
var embeddedGateHolders sync.Map

// embeddedGateExclusive takes db's gate for transaction txn. It waits while the transaction holding it works (a
// command of it running, or one ended less than idle ago), and at most until deadline: a holder idle for longer may
// wait for something the waiting client does (a client that runs two transactions one step at a time, or whose
// connections all wait here), so the wait ends there with MongoDB's WriteConflict, after which a driver's
// withTransaction tries the whole transaction again. Transactions that keep working wait their turn instead (the
// gate is FIFO).
func embeddedGateExclusive(ctx context.Context, db string, txn *embeddedTxn, idle time.Duration, deadline time.Time) (func(), error) { //nolint:lll // for readability
	h, err := embeddedGateWait(ctx, db, embeddedWholeWeight, idle, deadline)
	if err != nil {
		return nil, err
	}

	embeddedGateHolders.Store(db, txn)

	return func() {
		embeddedGateHolders.CompareAndDelete(db, txn)
		h.release()
	}, nil
}

// embeddedGateWait waits for weight of db's gate: at most until deadline, and no longer than the transaction
// holding the gate stays idle for idle; then WriteConflict.
func embeddedGateWait(ctx context.Context, db string, weight int64, idle time.Duration, deadline time.Time) (*embeddedHeld, error) { //nolint:lll // for readability
	if h := embeddedTryAcquire(embeddedLockKey{db: db, gate: true}, weight); h != nil {
		return h, nil // free: no wait to watch
	}

	waitCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	var stuck atomic.Bool

	watching := make(chan struct{})
	defer close(watching)

	go func() {
		tick := time.NewTicker(idle / 10)
		defer tick.Stop()

		for {
			select {
			case <-watching:
				return
			case <-tick.C:
				if h, ok := embeddedGateHolders.Load(db); ok && h.(*embeddedTxn).idleFor() > idle {
					stuck.Store(true)
					cancel()

					return
				}
			}
		}
	}()

	h, err := embeddedAcquire(waitCtx, embeddedLockKey{db: db, gate: true}, weight)
	if err != nil {
		if ctx.Err() == nil && (stuck.Load() || errors.Is(err, context.DeadlineExceeded)) {
			return nil, embeddedErrorf(
				embeddedCodeWriteConflict,
				"Write conflict: another transaction writes in database %q (the embedded database writes one "+
					"transaction at a time). Please retry your operation or multi-document transaction.",
				db,
			)
		}

		return nil, err
	}

	return h, nil
}
