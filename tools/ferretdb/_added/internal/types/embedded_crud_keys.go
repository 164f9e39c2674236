// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package types

import (
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// Field names (crud concern): MongoDB 5.0 and later stores field names that start with '$' or hold '.', at any level,
// except '$'-prefixed names in an _id document (a replacement whose top-level names start with '$' is an update,
// which FerretDB already tells apart). FerretDB refused them all. One name stays refused: "$s", under which the
// SQLite backend keeps each document's types (sjson); it is refused with the message naming it.

// embeddedCrudKeysAllowed tells whether field names may start with '$' and hold '.'.
func embeddedCrudKeysAllowed() bool {
	return !embedded.CrudOff
}

// embeddedCrudCheckKey refuses the field names the embedded database cannot store.
func embeddedCrudCheckKey(key string) error {
	if embedded.CrudOff {
		return nil
	}

	if key == "$s" {
		return newValidationError(ErrValidation, fmt.Errorf(
			"invalid key: %q (the embedded database keeps its types under that name: not implemented)", key,
		))
	}

	return nil
}

// embeddedCrudCheckID refuses an _id document with a field name starting with '$', as MongoDB.
func embeddedCrudCheckID(key string, isTopLevel bool, value *Document) error {
	if embedded.CrudOff || !isTopLevel || key != "_id" {
		return nil
	}

	for _, k := range value.Keys() {
		if strings.HasPrefix(k, "$") {
			return newValidationError(ErrValidation, fmt.Errorf("invalid key: %q (key must not start with '$' sign)", k))
		}
	}

	return nil
}
