// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"errors"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// embeddedCrudUniqueViolation tells whether an update was refused by a unique index (crud concern): MongoDB answers
// it with a duplicate-key error (11000), as an insert; FerretDB gave an internal error (with the concern off, still).
func embeddedCrudUniqueViolation(err error) bool {
	var se *sqlite3.Error

	return !embedded.CrudOff && errors.As(err, &se) && se.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE
}
