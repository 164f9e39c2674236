// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package version

import "github.com/FerretDB/FerretDB/internal/util/embedded"

// embeddedCrudVersion is the MongoDB version the server claims (buildInfo, serverStatus, explain): 8.0.0 with the
// crud concern on, whose commands answer as MongoDB 8.0's do (client bulkWrite, the sort of updateOne and
// replaceOne), else FerretDB's own (7.0). hello's maxWireVersion follows it (handler/common/embedded_crud_version.go).
func embeddedCrudVersion(major, minor, patch int64) (int64, int64, int64) {
	if embedded.CrudOff {
		return major, minor, patch
	}

	return 8, 0, 0
}
