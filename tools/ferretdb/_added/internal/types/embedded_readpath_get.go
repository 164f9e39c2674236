// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package types

import (
	"fmt"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// A missing key's error, formatted only when read (readpath.patch). Document.Get answers a missing key with an
// error, and commands ask for many optional fields they do not have (the options FerretDB ignores or lacks, on every
// aggregate and find): formatting those messages with fmt.Errorf was 3 % of FerretDB's CPU for a project read by
// id, and nearly no caller reads them. The message is the same.

// embeddedKeyNotFoundFormat is the message of Document.Get's error for a missing key (FerretDB's own words).
const embeddedKeyNotFoundFormat = "types.Document.Get: key not found: %q"

// embeddedKeyNotFoundError is Document.Get's error for a key its document does not have.
type embeddedKeyNotFoundError struct {
	key string
}

// Error implements error.
func (e *embeddedKeyNotFoundError) Error() string {
	return fmt.Sprintf(embeddedKeyNotFoundFormat, e.key)
}

// embeddedKeyNotFound returns the error of Document.Get for key; FERRETDB_EMBEDDED_READPATH=off formats it at once.
func embeddedKeyNotFound(key string) error {
	if embeddedReadpathOff {
		return fmt.Errorf(embeddedKeyNotFoundFormat, key)
	}

	return &embeddedKeyNotFoundError{key: key}
}

// embeddedReadpathOff is true when FERRETDB_EMBEDDED_READPATH=off.
var embeddedReadpathOff = embedded.ReadpathOff
