// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package metadata

import (
	"fmt"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// Dates in SortKey columns (part of pushdown.patch's concern; switch FERRETDB_EMBEDDED_PUSHDOWN_DATES=off).
//
// sjson stores a BSON date as its milliseconds since the epoch (a JSON number, type `date` in `$s`). Its SortKey is
// the BLOB 0x09 + the 16 lower-case hex digits of ms + 2^62: fixed length, so byte order is the order of the
// instants, and 0x09 sorts above the booleans' 0x08 and below OtherTypes, which is BSON's order (ObjectId < Boolean <
// Date < Timestamp). Dates outside ±2^62 ms (some 146 million years) get OtherTypes: their queries stay FerretDB's.

// DateOffset is added to a date's milliseconds in its SortKey (so every modelled one is a positive int64).
const DateOffset = int64(1) << 62

// dateSortKeyExpr is the SortKey of a date whose milliseconds are v (an SQL expression).
func dateSortKeyExpr(v string) string {
	return fmt.Sprintf(
		`CASE WHEN %[1]s >= -%[2]d AND %[1]s < %[2]d THEN CAST(char(9) || printf('%%016x', %[1]s + %[2]d) AS BLOB) ELSE %[3]s END`,
		v, DateOffset, OtherTypes,
	)
}

// UnmodelledKeys is the least SortKey of the values queries may not use: OtherTypes; with dates switched off, every
// date too (the date's tag byte, 0x09), so a field holding dates is left to FerretDB as before dates were modelled.
func UnmodelledKeys() string {
	if embedded.PushdownDatesOff {
		return "x'09'"
	}

	return OtherTypes
}
