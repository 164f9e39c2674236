// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"context"
	"time"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedEraseCheckpoint ends the compact command (erase.patch): it copies every page of the write-ahead log into
// the database file and truncates the log to zero bytes (PRAGMA wal_checkpoint(TRUNCATE)). The log holds earlier
// versions of the pages a write changed, a deleted document's text among them, until a checkpoint reuses it; after
// this none of them is on disk, and secure_delete (pool/embedded_erase.go) has zeroed the deleted text in the
// database file. While a reader keeps an older snapshot or a writer writes, the checkpoint cannot finish: it is tried
// again until the command's context ends. FERRETDB_EMBEDDED_ERASE=off: compact as FerretDB runs it.
func embeddedEraseCheckpoint(ctx context.Context, db *fsql.DB) error {
	if embedded.EraseOff {
		return nil
	}

	for {
		var busy, frames, copied int

		err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied)
		if err == nil && busy == 0 {
			return nil
		}

		if err != nil && ctx.Err() != nil {
			return lazyerrors.Error(err)
		}

		select {
		case <-ctx.Done():
			return lazyerrors.Error(ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
