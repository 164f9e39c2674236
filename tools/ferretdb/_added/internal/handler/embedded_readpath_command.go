// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"sync"

	"github.com/FerretDB/wire"

	"github.com/FerretDB/FerretDB/internal/types"
)

// A command converted once (readpath.patch). clientconn converts each command's section 0 to FerretDB's documents
// to read its comment, and the command's handler converted the same bytes again (opMsgDocument): 6 % of FerretDB's
// CPU for a project read by id. Now clientconn keeps its conversion until the command is answered (even by a
// panic), and the first opMsgDocument of that message takes it; a second one (a hook that looked at the command
// first) converts again, so no two callers share a document. FERRETDB_EMBEDDED_READPATH=off converts twice, as
// FerretDB does.

// embeddedCommands holds, per message being handled, its section 0 converted and not yet taken.
var embeddedCommands sync.Map // *wire.OpMsg → *types.Document

// EmbeddedKeepCommand keeps doc, the conversion of msg's section 0, for the first opMsgDocument(msg); the function it
// returns forgets it, taken or not.
func EmbeddedKeepCommand(msg *wire.OpMsg, doc *types.Document) func() {
	if embeddedReadpathOff || doc == nil {
		return func() {}
	}

	embeddedCommands.Store(msg, doc)

	return func() { embeddedCommands.Delete(msg) }
}

// embeddedKeptCommand takes the conversion of msg's section 0 kept for it (nil when there is none).
func embeddedKeptCommand(msg *wire.OpMsg) *types.Document {
	if embeddedReadpathOff {
		return nil
	}

	doc, _ := embeddedCommands.LoadAndDelete(msg)
	res, _ := doc.(*types.Document)

	return res
}
