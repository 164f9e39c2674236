// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package clientconn

import (
	"github.com/FerretDB/wire"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// embeddedCrudNoReply tells whether a request gets no reply: an OP_MSG with the moreToCome flag (an unacknowledged,
// w:0 write). MongoDB sends nothing back for it; a reply would be read by the driver as the answer to its next
// command on the connection (crud.patch).
func embeddedCrudNoReply(reqBody wire.MsgBody) bool {
	if embedded.CrudOff {
		return false
	}

	msg, ok := reqBody.(*wire.OpMsg)

	return ok && msg.Flags.FlagSet(wire.OpMsgMoreToCome)
}
