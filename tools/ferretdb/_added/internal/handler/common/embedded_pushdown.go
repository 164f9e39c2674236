// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import "github.com/FerretDB/FerretDB/internal/util/embedded"

// embeddedPushdownOff: the pushdown's switch (pushdown.patch), for the projection iterator.
var embeddedPushdownOff = embedded.PushdownOff
