// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"github.com/FerretDB/wire"

	"github.com/FerretDB/FerretDB/internal/types"
)

// embeddedMarkers are what ferretdb-embedded's concerns add to buildInfo's answer, in the order registered: each
// concern registers its own (in its file's init) and sets only its own fields, so a client (the service, at start)
// can tell which concerns are on. Shared by the concerns: buildInfo's one hook (shared.patch) calls
// embeddedBuildInfo.
var embeddedMarkers []func(doc *types.Document)

// embeddedMarker registers a concern's buildInfo fields.
func embeddedMarker(set func(doc *types.Document)) {
	embeddedMarkers = append(embeddedMarkers, set)
}

// embeddedBuildInfo answers buildInfo with every concern's fields, before `ok`.
func embeddedBuildInfo(doc *types.Document) (*wire.OpMsg, error) {
	ok, _ := doc.Get("ok")
	doc.Remove("ok")

	for _, set := range embeddedMarkers {
		set(doc)
	}

	doc.Set("ok", ok)

	return documentOpMsg(doc)
}
