// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import "os"

// embeddedPushdownOff is true when FERRETDB_EMBEDDED_PUSHDOWN=off: FerretDB's own behaviour throughout.
var embeddedPushdownOff = os.Getenv("FERRETDB_EMBEDDED_PUSHDOWN") == "off"
