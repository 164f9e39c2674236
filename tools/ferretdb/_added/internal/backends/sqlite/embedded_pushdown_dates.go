// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"fmt"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// Dates in the pushdown (part of pushdown.patch's concern; switch FERRETDB_EMBEDDED_PUSHDOWN_DATES=off): a filter's
// date is compared with metadata.SortKey's BLOB of a date (metadata/embedded_pushdown_dates.go), and a range on a
// date is bracketed to the dates, as MongoDB's comparisons match only values of the bound's type.

// dateKey returns the SortKey BLOB of a date, or false when dates are switched off or the date is outside the range
// SortKey models.
func dateKey(t time.Time) ([]byte, bool) {
	if embedded.PushdownDatesOff {
		return nil, false
	}

	ms := t.UnixMilli()
	if ms < -metadata.DateOffset || ms >= metadata.DateOffset {
		return nil, false
	}

	return append([]byte{9}, fmt.Sprintf("%016x", ms+metadata.DateOffset)...), true
}

// dateBracket is the condition that keeps a range on column k among the dates.
func dateBracket(k string) string {
	return k + " >= x'09' AND " + k + " < x'0a'"
}
