// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
)

// embeddedCollectionList returns the collections ListCollections answers from (readpath.patch). FerretDB copied the
// metadata of every collection of the database and sorted them, then kept the one asked for by name: a join asks
// whether its collection is capped on every aggregation, and the copies were 5 % of FerretDB's CPU for a project
// read by id. A name asked for is now looked up alone, with the same answer: none when the database or the
// collection does not exist or is hidden. FERRETDB_EMBEDDED_READPATH=off copies them all, as FerretDB does.
func embeddedCollectionList(ctx context.Context, db *database, params *backends.ListCollectionsParams) ([]*metadata.Collection, error) { //nolint:lll // for readability
	if embedded.ReadpathOff || params == nil || len(params.Name) == 0 {
		return db.r.CollectionList(ctx, db.name)
	}

	if db.r.DatabaseGetExisting(ctx, db.name) == nil {
		return nil, nil
	}

	if c := db.r.CollectionGet(ctx, db.name, params.Name); c != nil {
		return []*metadata.Collection{c}, nil
	}

	return nil, nil
}
