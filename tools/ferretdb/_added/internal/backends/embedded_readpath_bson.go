// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package backends

// BSONIterator is implemented by the documents iterators of backends that can hand out each document as BSON
// straight from storage (without building a types.Document). The handler uses it for results the backend proved
// exact (QueryResult.PushedDown).
type BSONIterator interface {
	// AppendNextBSON appends the next document's BSON to dst; at the end it returns iterator.ErrIteratorDone
	// (wrapped). On any error the iterator is done, as after Next. When keep is not nil, only the top-level fields it
	// keeps are appended, in the document's order (an inclusion projection of top-level fields).
	AppendNextBSON(dst []byte, keep func(name string) bool) ([]byte, error)
}
