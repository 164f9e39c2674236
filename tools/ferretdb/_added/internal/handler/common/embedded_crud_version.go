// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import "github.com/FerretDB/FerretDB/internal/util/embedded"

// embeddedCrudMaxWireVersion is hello's maxWireVersion: 25, MongoDB 8.0's, with the crud concern on (the version
// buildInfo claims, build/version/embedded_crud_version.go), else FerretDB's own (21, MongoDB 7.0's). Drivers
// choose by it what they may send: the Node driver's client bulkWrite needs 25.
func embeddedCrudMaxWireVersion(ferretdb int32) int32 {
	if embedded.CrudOff {
		return ferretdb
	}

	return 25
}
