// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package fsql

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// BeginTx starts a transaction that the caller must end with Commit or Rollback. A read-only one gives several
// queries one snapshot of the database.
func (db *DB) BeginTx(ctx context.Context) (*Tx, error) {
	sqlTx, err := db.sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return wrapTx(sqlTx, db.l), nil
}
