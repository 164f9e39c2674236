// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package sqlite

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/resource"
)

// A checked read in one statement.
//
// A query on SortKey fields first checks that no stored document holds another type in them (embeddedPlan.check):
// BEGIN, the check's statement, the query's statement, then the end of the read transaction that gives both one
// snapshot. Here the check goes into the query itself, as a column of every row: a bit per field, 1 when an index
// search finds another type there (an uncorrelated subquery, which SQLite runs once per statement). One statement is
// one snapshot, so no transaction is needed, and one statement is stepped instead of three. A project by id reads its
// teacher this way, by the teacher's unique teacher_id, and a page reads its teachers.
//
// The check's answer comes with the first row. When it finds another type, or when there is no row (and so no
// answer), the query is planned and read again as before, the check in a transaction with the read: the rows read so
// far are dropped, none was handed out. A merge (embedded_pushdown_merge.go) needs several statements, and a read of
// record IDs alone is FerretDB's own: both are read as before.

// maxCheckedFields bounds the fields of a checked read: their bits must fit one of SQLite's integers.
const maxCheckedFields = 62

// queryChecked runs the query in one statement with its check when it can (ok true): the query must check fields,
// and must not be a merge or a read of record IDs. ok is false when the query is to be read as before: it has no
// field to check, it is of another kind, the check found another type, or no row came.
func (c *collection) queryChecked(ctx context.Context, db *fsql.DB, meta *metadata.Collection, params *backends.QueryParams) (*backends.QueryResult, bool, error) { //nolint:lll // for readability
	if params.OnlyRecordIDs {
		return nil, false, nil
	}

	var sort *types.Document
	if params.Pushdown != nil {
		sort = params.Pushdown.Sort
	}

	p := newEmbeddedPlan(meta, params.Filter, sort)

	fields := p.checkFields()
	if len(fields) == 0 || len(fields) > maxCheckedFields {
		return nil, false, nil
	}

	// As the check passing leaves it (it only drops conditions and the sort).
	s := &embeddedStatement{plan: p, pd: params.Pushdown, limit: params.Limit}
	s.pushed = s.pd != nil && p.exact && p.sorted

	if _, merged := s.mergeable(); merged {
		return nil, false, nil
	}

	selectClause := prepareSelectClause(meta.TableName, params.Comment, false, false)
	from := fmt.Sprintf(" FROM %q", p.table)

	bits := make([]string, len(fields))
	for i, f := range fields {
		bits[i] = fmt.Sprintf(
			"(EXISTS (SELECT 1 FROM %q WHERE %s >= %s) << %d)", p.table, metadata.SortKey(f), metadata.UnmodelledKeys(), i,
		)
	}

	checked := strings.TrimSuffix(selectClause, from) + ", (" + strings.Join(bits, " | ") + ")" + from

	q, args := s.sql(checked)

	rows, err := querierOf(db, nil)(ctx, q, args...)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	if !rows.Next() {
		err = rows.Err()
		rows.Close()

		if err != nil {
			return nil, false, lazyerrors.Error(err)
		}

		return nil, false, nil
	}

	var text string
	var other int64

	if err = rows.Scan(&text, &other); err != nil {
		rows.Close()
		return nil, false, lazyerrors.Error(err)
	}

	if other != 0 {
		rows.Close()
		return nil, false, nil
	}

	iter := &checkedIterator{ctx: ctx, rows: rows, first: stored(text), pending: true, token: resource.NewToken()}
	resource.Track(iter, iter.token)

	return &backends.QueryResult{Iter: iter, PushedDown: s.pushed}, true, nil
}

// checkedIterator hands out the documents of a checked read: rows of the stored document and the check's bits (all
// 0). The first row has been read already: its document's text is first.
type checkedIterator struct {
	ctx   context.Context
	rows  *fsql.Rows // protected by m
	token *resource.Token
	first []byte
	m     sync.Mutex
	// pending: first is still to be handed out.
	pending bool
}

// next returns the next document's JSON text.
func (iter *checkedIterator) next() ([]byte, error) {
	if iter.rows == nil {
		return nil, iterator.ErrIteratorDone
	}

	if err := context.Cause(iter.ctx); err != nil {
		iter.close()
		return nil, lazyerrors.Error(err)
	}

	if iter.pending {
		data := iter.first
		iter.first, iter.pending = nil, false

		return data, nil
	}

	if !iter.rows.Next() {
		err := iter.rows.Err()

		iter.close()

		if err == nil {
			err = iterator.ErrIteratorDone
		}

		return nil, lazyerrors.Error(err)
	}

	var text string
	var other int64

	if err := iter.rows.Scan(&text, &other); err != nil {
		iter.close()
		return nil, lazyerrors.Error(err)
	}

	return stored(text), nil
}

// Next implements iterator.Interface.
func (iter *checkedIterator) Next() (struct{}, *types.Document, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	var unused struct{}

	data, err := iter.next()
	if err != nil {
		return unused, nil, err
	}

	doc, err := unmarshalDocument(data)
	if err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	return unused, doc, nil
}

// AppendNextBSON implements backends.BSONIterator.
func (iter *checkedIterator) AppendNextBSON(dst []byte, keep func(name string) bool) ([]byte, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	data, err := iter.next()
	if err != nil {
		return dst, err
	}

	if dst, err = appendStoredBSON(dst, data, keep); err != nil {
		iter.close()
	}

	return dst, err
}

// Close implements iterator.Interface.
func (iter *checkedIterator) Close() {
	iter.m.Lock()
	defer iter.m.Unlock()

	iter.close()
}

func (iter *checkedIterator) close() {
	if iter.rows != nil {
		iter.rows.Close()
		iter.rows = nil
	}

	resource.Untrack(iter, iter.token)
}

// check interfaces
var (
	_ types.DocumentsIterator = (*checkedIterator)(nil)
	_ backends.BSONIterator   = (*checkedIterator)(nil)
)
