// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"fmt"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/embeddedcrud"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// An index's collation (crud concern): createIndexes' `collation` option (FerretDB: NotImplemented) is kept with the
// index, which SQLite builds on the key fields' collation keys (metadata/embedded_crud_index.go), so a unique index
// with a collation refuses values equal under it ("Ann" and "ann" with strength 2), as MongoDB's. listIndexes shows
// it. A query still compares as its own collation says (none: binary), as on MongoDB.

// embeddedCrudIndexOption reads createIndexes' collation option into index.
func embeddedCrudIndexOption(indexDoc *types.Document, opt, command string, index *backends.IndexInfo) error {
	notImplemented := handlererrors.NewCommandErrorMsgWithArgument(
		handlererrors.ErrNotImplemented, fmt.Sprintf("Index option %q is not implemented yet", opt), command,
	)

	if embedded.CrudOff {
		return notImplemented
	}

	spec, ok := must.NotFail(indexDoc.Get(opt)).(*types.Document)
	if !ok {
		return handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrTypeMismatch, "The field 'collation' must be an object", command,
		)
	}

	c, err := common.EmbeddedCrudCollator(spec)
	if err != nil {
		return err
	}

	if c != nil {
		index.EmbeddedCollation = c.String()
	}

	return nil
}

// embeddedCrudIndexCollation adds an index's collation to its listIndexes document.
func embeddedCrudIndexCollation(indexDoc *types.Document, index backends.IndexInfo) {
	if index.EmbeddedCollation == "" {
		return
	}

	c, err := embeddedcrud.ParseCollation(index.EmbeddedCollation)
	if err != nil {
		return
	}

	indexDoc.Set("collation", embeddedCrudCollationDoc(c))
}

// embeddedCrudCollationDoc is a collation as a document.
func embeddedCrudCollationDoc(c embeddedcrud.Collation) *types.Document {
	return must.NotFail(types.NewDocument(
		"locale", c.Locale,
		"strength", int32(c.Strength),
		"numericOrdering", c.Numeric,
	))
}
