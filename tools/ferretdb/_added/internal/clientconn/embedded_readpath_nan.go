// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package clientconn

import (
	"errors"
	"math"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedCheckRequest does for a request what the wire package's check did for every message when FerretDB set
// wire.CheckNaNs: it decodes each document of an OP_MSG fully (refusing malformed BSON) and refuses a float64 NaN
// anywhere in it, with the same error. Replies are no longer decoded again for it: FerretDB builds them, and what
// it stores never holds a NaN, since every request that could store one is refused here.
func embeddedCheckRequest(body wire.MsgBody) error {
	if embedded.ReadpathOff {
		return nil // the wire package checks (wire.CheckNaNs), as in FerretDB
	}

	msg, ok := body.(*wire.OpMsg)
	if !ok {
		return nil
	}

	sections := msg.Sections()
	for i := range sections {
		for _, raw := range sections[i].Documents() {
			doc, err := raw.DecodeDeep()
			if err != nil {
				return lazyerrors.Error(err)
			}

			if err = embeddedNoNaN(doc); err != nil {
				return err
			}
		}
	}

	return nil
}

// embeddedNoNaN walks a deeply decoded value.
func embeddedNoNaN(v any) error {
	switch v := v.(type) {
	case *wirebson.Document:
		for i := range v.Len() {
			_, f := v.GetByIndex(i)
			if err := embeddedNoNaN(f); err != nil {
				return err
			}
		}

	case *wirebson.Array:
		for i := range v.Len() {
			if err := embeddedNoNaN(v.Get(i)); err != nil {
				return err
			}
		}

	case float64:
		if math.IsNaN(v) {
			return errors.New("NaN is not supported")
		}
	}

	return nil
}
