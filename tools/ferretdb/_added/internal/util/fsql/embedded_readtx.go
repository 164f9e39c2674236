// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package fsql

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// BeginTx starts a transaction that the caller must end with Commit or Rollback. A read-only one gives several
// queries one snapshot of the database. In a client's transaction (ctx carries a Txn: replset.patch), it returns nil:
// the statements then run in that transaction, which is one snapshot already.
//
// Shared: the pushdown reads in one, and the client transactions of the replica set make it unnecessary.
func (db *DB) BeginTx(ctx context.Context) (*Tx, error) {
	if TxnFrom(ctx) != nil {
		return nil, nil //nolint:nilnil // see above
	}

	sqlTx, err := db.sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return wrapTx(sqlTx, db.l), nil
}
