// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/handler/handlerparams"
	"github.com/FerretDB/FerretDB/internal/types"
)

// findAndModify's `fields` (a projection of the document it returns; Mongoose sends it for `select`): FerretDB
// refuses it (NotImplemented). The projection is checked before the command runs (an invalid one changes nothing),
// taken out of the command, and applied to the `value` of the reply with find's projection (crud concern).
func init() {
	embeddedCrudFeatures = append(embeddedCrudFeatures, embeddedCrudFields)
}

func embeddedCrudFields(_ context.Context, call *embeddedCall, doc *types.Document) (bool, embeddedCrudAfter, error) {
	if call.command != "findAndModify" && call.command != "findandmodify" {
		return false, nil, nil
	}

	v, err := doc.Get("fields")
	if err != nil {
		return false, nil, nil
	}

	doc.Remove("fields")

	fields, ok := v.(*types.Document)
	if !ok {
		return false, nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrTypeMismatch,
			"BSON field 'findAndModify.fields' is the wrong type '"+handlerparams.AliasFromType(v)+"', expected type 'object'",
			"fields",
		)
	}

	if fields.Len() == 0 {
		return true, nil, nil
	}

	projection, inclusion, err := common.ValidateProjection(fields)
	if err != nil {
		return false, nil, err
	}

	after := func(reply *types.Document) error {
		value, err := reply.Get("value")
		if err != nil {
			return nil
		}

		d, ok := value.(*types.Document)
		if !ok {
			return nil
		}

		projected, err := common.ProjectDocument(d, projection, nil, inclusion)
		if err != nil {
			return err
		}

		reply.Set("value", projected)

		return nil
	}

	return true, after, nil
}
