// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package metadata

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// The SQLite indexes ferretdb-embedded keeps beside FerretDB's own, so that queries can be answered from indexes:
//
//   - on IDColumn, the expression FerretDB's own `_id` reads, updates and deletes compare (FerretDB's unique `_id`
//     index is on another expression, which SQLite does not match);
//   - for every index a client declares, one on the same fields' SortKey columns (FerretDB's own is on JSON text:
//     it keeps uniqueness as FerretDB defines it, but orders numbers as text and cannot tell types apart);
//   - for every such field that leads no index, one on that field alone, so that checking the field's values
//     (see the sqlite package's pushdown) is a search, not a scan.
//
// A SortKey column is a virtual generated column of the collection's table, added when an index first needs it:
// queries name the column instead of repeating its long expression, which SQLite would parse again in every
// statement. FerretDB selects and inserts its own column by name, so it sees none of this; FerretDB's metadata lists
// none of these indexes. They follow the declared indexes (syncEmbeddedIndexes) and go with the table when the
// collection is dropped (columns stay until then).
const (
	// EmbeddedIndexPrefix starts the name of every such index after its table name.
	EmbeddedIndexPrefix = "__ferretdb_embedded_"

	// The `_id` index has the name the project's earlier index watcher gave it, so existing files keep theirs.
	embeddedIDIndexSuffix = EmbeddedIndexPrefix + "id_path"

	// sortKeyColumnPrefix starts the names of SortKey columns.
	sortKeyColumnPrefix = "_ferretdb_k_"
)

// OtherTypes is the SortKey of every value whose order or equality SortKey does not model: documents, arrays,
// binary data, timestamps, regular expressions (and dates beyond ±2^62 ms). No other SortKey is as large.
const OtherTypes = "x'ff'"

// SafeField reports whether field is a top-level field name that SortKey can express inside SQL text:
// ^[A-Za-z_][A-Za-z0-9_-]{0,62}$, checked byte by byte (a regular expression cost 2 % of a read by id: every plan
// checks its fields).
func SafeField(field string) bool {
	if len(field) == 0 || len(field) > 63 {
		return false
	}

	for i := 0; i < len(field); i++ {
		c := field[i]

		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}

	return true
}

// SortKey returns the column (a quoted SQL identifier) holding, for a top-level field of the stored document, a
// value that SQLite compares as BSON compares the field's value, for the types it models:
//
//	missing, null         NULL
//	int, long             INTEGER (exact)
//	double                REAL (CAST: sjson may write a large double as integer digits that are not its value)
//	string                TEXT (BINARY collation: byte order, as BSON)
//	objectId              BLOB 0x07 + lower-case hex (fixed length: byte order)
//	bool                  BLOB 0x08 + '0' or '1'
//	date                  BLOB 0x09 + 16 hex digits of ms + 2^62 (embedded_pushdown_dates.go)
//	anything else         OtherTypes
//
// SQLite orders NULL < numbers < TEXT < BLOB, and INTEGER and REAL by value, so this is BSON's order among those
// types. sjson keeps each value's type in the document's `$s` key. The field must be SafeField, and the column
// exists only for the fields of EmbeddedKeyFields.
func SortKey(field string) string {
	return fmt.Sprintf("%q", sortKeyColumnPrefix+field)
}

// sortKeyExpr is the expression of SortKey's column.
func sortKeyExpr(field string) string {
	t := fmt.Sprintf(`(%s->>'$."$s".p."%s".t')`, DefaultColumn, field)
	v := fmt.Sprintf(`(%s->>'$."%s"')`, DefaultColumn, field)

	return fmt.Sprintf(
		`CASE coalesce(%[1]s, 'null') WHEN 'int' THEN %[2]s WHEN 'long' THEN %[2]s `+
			`WHEN 'double' THEN CAST(%[2]s AS REAL) WHEN 'string' THEN %[2]s `+
			`WHEN 'objectId' THEN CAST(char(7) || %[2]s AS BLOB) WHEN 'bool' THEN CAST(char(8) || %[2]s AS BLOB) `+
			`WHEN 'date' THEN %[4]s WHEN 'null' THEN NULL ELSE %[3]s END`,
		t, v, OtherTypes, dateSortKeyExpr(v),
	)
}

// TypeOf returns an SQL expression giving the sjson type name of a top-level field ('string', 'int', ...).
func TypeOf(field string) string {
	return fmt.Sprintf(`(%s->>'$."$s".p."%s".t')`, DefaultColumn, field)
}

// EmbeddedKeyFields maps the fields of c's declared indexes that have a SortKey column to whether queries may use
// it: all but `_id` (compared as FerretDB compares it), each leading an index on its SortKey. Nil for capped
// collections (queried as FerretDB does).
func EmbeddedKeyFields(c *Collection) map[string]bool {
	if c.Capped() {
		return nil
	}

	fields := map[string]bool{}

	for _, index := range c.Settings.Indexes {
		if embeddedKey(index.Key) {
			for _, k := range index.Key {
				fields[k.Field] = k.Field != "_id"
			}
		}
	}

	return fields
}

// embeddedKey reports whether an index's key gets an index on the SortKey of its fields (not `_id` alone).
func embeddedKey(key []IndexKeyPair) bool {
	if len(key) == 0 || (len(key) == 1 && key[0].Field == "_id") {
		return false
	}

	for _, k := range key {
		if !SafeField(k.Field) {
			return false
		}
	}

	return true
}

// embeddedIndexes returns the indexes ferretdb-embedded keeps on c's table: name -> CREATE INDEX statement.
func embeddedIndexes(c *Collection) map[string]string {
	indexes := map[string]string{
		c.TableName + embeddedIDIndexSuffix: fmt.Sprintf(
			`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, c.TableName+embeddedIDIndexSuffix, c.TableName, IDColumn,
		),
	}

	if c.Capped() {
		return indexes
	}

	add := func(key []IndexKeyPair) {
		columns := make([]string, len(key))
		spec := make([]string, len(key))

		for i, k := range key {
			columns[i] = SortKey(k.Field)
			spec[i] = k.Field

			if k.Descending {
				columns[i] += " DESC"
				spec[i] += " DESC"
			}
		}

		h := fnv.New64a()
		_, _ = h.Write([]byte(strings.Join(spec, ",")))
		name := fmt.Sprintf("%s%skc_%016x", c.TableName, EmbeddedIndexPrefix, h.Sum64())

		indexes[name] = fmt.Sprintf(
			`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, name, c.TableName, strings.Join(columns, ", "),
		)
	}

	leading := map[string]bool{}

	for _, index := range c.Settings.Indexes {
		if embeddedKey(index.Key) {
			add(index.Key)
			leading[index.Key[0].Field] = true
		}
	}

	for field, pushable := range EmbeddedKeyFields(c) {
		if pushable && !leading[field] {
			add([]IndexKeyPair{{Field: field}})
		}
	}

	return indexes
}

// syncEmbeddedIndexes adds the SortKey columns and creates the indexes embeddedIndexes wants on c's table, and drops
// the indexes it no longer wants.
func syncEmbeddedIndexes(ctx context.Context, db *fsql.DB, c *Collection) error {
	if err := addSortKeyColumns(ctx, db, c); err != nil {
		return lazyerrors.Error(err)
	}

	want := embeddedIndexes(c)

	have, err := embeddedNames(ctx, db, `SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?`, c.TableName)
	if err != nil {
		return lazyerrors.Error(err)
	}

	var drop []string

	for name := range have {
		if strings.HasPrefix(name, c.TableName+EmbeddedIndexPrefix) && want[name] == "" {
			drop = append(drop, name)
		}
	}

	slices.Sort(drop)

	for _, name := range drop {
		if _, err = db.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS %q`, name)); err != nil {
			return lazyerrors.Error(err)
		}
	}

	for name, q := range want {
		if have[name] {
			continue
		}

		if _, err = db.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// addSortKeyColumns adds the SortKey columns of the fields of c's indexes that its table lacks.
func addSortKeyColumns(ctx context.Context, db *fsql.DB, c *Collection) error {
	fields := EmbeddedKeyFields(c)
	if len(fields) == 0 {
		return nil
	}

	have, err := embeddedNames(ctx, db, fmt.Sprintf(`SELECT name FROM pragma_table_xinfo(%s)`, quoteString(c.TableName)))
	if err != nil {
		return lazyerrors.Error(err)
	}

	for field := range fields {
		if have[sortKeyColumnPrefix+field] {
			continue
		}

		q := fmt.Sprintf(
			`ALTER TABLE %q ADD COLUMN %s ANY GENERATED ALWAYS AS (%s) VIRTUAL`,
			c.TableName, SortKey(field), sortKeyExpr(field),
		)
		if _, err = db.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// quoteString returns s as an SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// embeddedNames runs a query of one text column (names) and gives the set of its values.
func embeddedNames(ctx context.Context, db *fsql.DB, query string, args ...any) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	names := map[string]bool{}

	for rows.Next() {
		var name string
		if err = rows.Scan(&name); err != nil {
			return nil, lazyerrors.Error(err)
		}

		names[name] = true
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return names, nil
}
