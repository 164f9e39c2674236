// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package metadata

import (
	"fmt"
	"strings"
)

// EmbeddedCrudCollationKeyFunc is the SQLite function (registered by the sqlite backend, embedded_crud_unique.go)
// that gives a stored value's collation key: ferretdb_collation_key(<collation's text form>, <JSON value>).
const EmbeddedCrudCollationKeyFunc = "ferretdb_collation_key"

// embeddedCrudIndexColumn is an index's expression for a key column: with a collation (crud concern), the column's
// collation key, so that a unique index with strength 2 refuses "Ann" beside "ann", as MongoDB's.
func embeddedCrudIndexColumn(index IndexInfo, column string) string {
	if index.EmbeddedCollation == "" {
		return column
	}

	return fmt.Sprintf("%s('%s', %s)",
		EmbeddedCrudCollationKeyFunc, strings.ReplaceAll(index.EmbeddedCollation, "'", "''"), column,
	)
}
