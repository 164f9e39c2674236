// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import "github.com/FerretDB/FerretDB/internal/util/embedded"

// embeddedUpsertedIndex is the "index" of an upserted document in update's reply, shared by FerretDB's update
// (msg_update.go, crud.patch) and the atomic concern's (embedded_atomic.go), which numbers the statements itself.
// MongoDB gives the index of the statement that upserted it (drivers read bulkWrite's upsertedIds from it); FerretDB
// counted the upserted documents (0, 1, ...), which it still does with the crud concern off (embedded.CrudOff).
func embeddedUpsertedIndex(statement, upsertedBefore int) int32 {
	if embedded.CrudOff {
		return int32(upsertedBefore)
	}

	return int32(statement)
}
