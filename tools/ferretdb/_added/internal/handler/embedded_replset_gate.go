// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"errors"
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

// embeddedGateExclusive takes db's gate for a transaction. Transactions wait their turn in arrival order (the gate
// is FIFO) for as long as they may: until deadline (the transaction's time limit, its command's maxTimeMS, or
// maxTransactionLockRequestTimeoutMillis when that is set), or until the client's connection closes. At the deadline
// the wait ends with MongoDB's WriteConflict (TransientTransactionError), after which a driver's withTransaction
// tries the whole transaction again.
func embeddedGateExclusive(ctx context.Context, db string, deadline time.Time) (func(), error) {
	if h := embeddedTryAcquire(embeddedLockKey{db: db, gate: true}, embeddedWholeWeight); h != nil {
		return h.release, nil // free: no wait to bound
	}

	waitCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	h, err := embeddedAcquire(waitCtx, embeddedLockKey{db: db, gate: true}, embeddedWholeWeight)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, embeddedErrorf(
				embeddedCodeWriteConflict,
				"Write conflict: another transaction writes in database %q (the embedded database writes one "+
					"transaction at a time) and this one waited for it until its time limit. Please retry your "+
					"operation or multi-document transaction.",
				db,
			)
		}

		return nil, err
	}

	return h.release, nil
}
