// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"errors"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/embeddedcrud"
)

// embeddedCrudUniqueViolation tells whether an update was refused by a unique index (crud concern): MongoDB answers
// it with a duplicate-key error (11000), as an insert; FerretDB gave an internal error (with the concern off, still).
func embeddedCrudUniqueViolation(err error) bool {
	var se *sqlite3.Error

	return !embedded.CrudOff && errors.As(err, &se) && se.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE
}

// The function of collated indexes (metadata/embedded_crud_index.go): a JSON string's collation key (a BLOB, whose
// byte order is the collation's order), any other value as it is (SQLite never finds a BLOB equal to TEXT, a number
// or NULL). Registered whatever the switches say: a database with a collated index needs it to be written at all.
func init() {
	err := sqlite3.RegisterDeterministicScalarFunction(
		metadata.EmbeddedCrudCollationKeyFunc, 2,
		func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
			spec, _ := args[0].(string)

			text, ok := args[1].(string)
			if !ok || len(text) == 0 || text[0] != '"' {
				return args[1], nil
			}

			var s string
			if err := json.Unmarshal([]byte(text), &s); err != nil {
				return args[1], nil //nolint:nilerr // not a JSON string: the value as it is
			}

			c, err := embeddedcrud.ParseCollation(spec)
			if err != nil {
				return nil, err
			}

			key, done, err := c.Keyer()
			if err != nil {
				return nil, err
			}
			defer done()

			return []byte(key(s)), nil
		},
	)
	if err != nil {
		panic(err)
	}
}
