// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package pool

import (
	"net/url"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// embeddedEraseValues turns SQLite's secure_delete on for every connection (erase.patch): a deleted document's
// text, in its table's pages and in every index's, is overwritten with zeros instead of staying in free space until
// the page is used again. The compact command then checkpoints the write-ahead log into the database file and
// truncates it (sqlite/embedded_erase.go), so what was deleted is in neither file. FERRETDB_EMBEDDED_ERASE=off:
// FerretDB's own settings.
func embeddedEraseValues(values url.Values) {
	if embedded.EraseOff {
		return
	}

	values.Add("_pragma", "secure_delete(on)")
}
