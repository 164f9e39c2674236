// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/handler/common/aggregations"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// embeddedJoin is an aggregation of the form [$match, $sort (optional), $skip and $limit stages, $project
// (optional), $lookup]: a page of documents and what they refer to, as the service reads a project with its teacher,
// and a page of projects with their teachers.
type embeddedJoin struct {
	filter *types.Document
	page   *backends.QueryPushdown
	keep   func(name string) bool
	lookup *embeddedLookup
	// matchKeep keeps the top-level fields of the matches that the lookup's pipeline (one $project inclusion) keeps;
	// nil without a pipeline.
	matchKeep func(name string) bool
}

// embeddedJoinOf returns the join an aggregation's stages form, or nil when they form another pipeline. stages are
// the pipeline's documents, built the stages already validated.
func embeddedJoinOf(stages []any, built []aggregations.Stage) *embeddedJoin {
	if len(stages) < 3 || len(built) != len(stages) {
		return nil
	}

	filter, ok := stageValue(stages[0], "$match").(*types.Document)
	if !ok {
		return nil
	}

	// Dotted keys are filtered in Go by FerretDB's own path (no nested pushdown): not proved exact here.
	for _, key := range filter.Keys() {
		if strings.ContainsRune(key, '.') {
			return nil
		}
	}

	page, n := embeddedPagePushdown(stages)
	if page == nil || page.Limit <= 0 || len(stages)-n < 1 || len(stages)-n > 2 {
		return nil
	}

	lookup, ok := built[len(built)-1].(*embeddedLookup)
	if !ok {
		return nil
	}

	// A lookup with localField, and a pipeline that is at most one $project including top-level fields.
	if lookup.localField == nil || len(lookup.stages) > 1 {
		return nil
	}

	j := &embeddedJoin{filter: filter, page: page, lookup: lookup}

	if len(lookup.stages) == 1 {
		projection, isDoc := stageValue(lookup.stages[0], "$project").(*types.Document)
		if !isDoc {
			return nil
		}

		if j.matchKeep, _, ok = embeddedInclusion(projection); !ok {
			return nil
		}
	}

	if len(stages)-n == 2 {
		projection, isDoc := stageValue(stages[n], "$project").(*types.Document)
		if !isDoc {
			return nil
		}

		if j.keep, _, ok = embeddedInclusion(projection); !ok {
			return nil
		}
	}

	return j
}

// embeddedJoinReply answers an aggregation of the form [$match, $sort (optional), $skip and $limit stages, $project
// (an inclusion of top-level fields, with or without _id; optional), $lookup] from storage when the backend proves the
// documents' read exact (pushdown.patch): the documents and each one's matches go from SQLite's JSON to the reply's
// BSON, the looked-up array added as the last field (or in place of a field of that name), as FerretDB's own stages
// give them; a local value whose matches the backend cannot read exactly (null or missing among them, for a project
// without a teacher) has them read as the $lookup stage reads them. It returns nil when the pipeline has another
// form, when its result may not fit in the first batch, when the documents' read is not exact, or when the stage
// refuses a local value (an array): FerretDB's own path then answers, reading again.
func embeddedJoinReply(ctx context.Context, db backends.Database, c backends.Collection, cName string, stages []any, built []aggregations.Stage, batchSize int64, ns string) (*wire.OpMsg, error) { //nolint:lll // for readability
	if embeddedReadpathOff {
		return nil, nil
	}

	j := embeddedJoinOf(stages, built)
	if j == nil || j.page.Limit > batchSize {
		return nil, nil
	}

	// FerretDB's own path reads a capped collection in its insertion order: left to it.
	list, err := db.ListCollections(ctx, &backends.ListCollectionsParams{Name: cName})
	if err != nil || len(list.Collections) == 0 || list.Collections[0].Capped() {
		return nil, nil //nolint:nilerr // FerretDB's own path reports it
	}

	docs, ok, err := embeddedExactRaw(ctx, c, &backends.QueryParams{
		Filter:   j.filter,
		Pushdown: j.page,
	}, j.keep)
	if err != nil || !ok {
		return nil, err
	}

	from, err := db.Collection(j.lookup.from)
	if err != nil {
		return nil, nil //nolint:nilerr // FerretDB's own path reports it
	}

	// The matches kept since the last write (embedded_readpath_cache.go), taken before `from` is read.
	cache := embeddedJoinCacheFor(ctx, strings.SplitN(ns, ".", 2)[0], j.lookup)

	firstBatch := wirebson.MakeArray(len(docs))

	locals := make([]any, len(docs))
	// Whether each document has a field named as the lookup's `as` (then replaced in place, not appended).
	hasAs := make([]bool, len(docs))

	for i, raw := range docs {
		var ok bool
		if locals[i], hasAs[i], ok = embeddedJoinLocal(j.lookup, raw); ok {
			continue
		}

		doc, err := raw.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		hasAs[i] = doc.Get(j.lookup.as) != nil

		local, err := bson.ToDocument(raw)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if locals[i], err = j.lookup.localValue(local); err != nil {
			return nil, nil //nolint:nilerr // FerretDB's own path refuses it
		}
	}

	// The matches of each local value already looked up (or kept), for the values that have a key.
	looked := make(map[embeddedJoinKey][]wirebson.RawDocument)

	pending := locals

	if cache != nil {
		pending = make([]any, 0, len(locals))

		for _, v := range locals {
			if key, keyed := embeddedJoinKeyOf(v); keyed {
				if matches, kept := cache.get(key); kept {
					looked[key] = matches
					continue
				}
			}

			pending = append(pending, v)
		}
	}

	// The matches of the page's other local values read at once (a page's projects and their teachers), when they
	// can be.
	batched, err := embeddedJoinBatch(ctx, j.lookup, from, pending, j.matchKeep)
	if err != nil {
		return nil, err
	}

	for key, matches := range batched {
		cache.put(key, matches)
	}

	for i, raw := range docs {
		value := locals[i]
		key, keyed := embeddedJoinKeyOf(value)

		var matches []wirebson.RawDocument

		var seen bool
		if keyed {
			if matches, seen = batched[key]; !seen {
				matches, seen = looked[key]
			}
		}

		if !seen {
			if matches, err = embeddedJoinMatches(ctx, j.lookup, from, value, j.matchKeep); err != nil {
				return nil, err
			}

			if keyed {
				looked[key] = matches
				cache.put(key, matches)
			}
		}

		// The document's bytes with the array appended, unless it has a field of that name: it is replaced in place.
		if !hasAs[i] {
			if err = firstBatch.Add(embeddedJoinAppend(raw, j.lookup.as, matches)); err != nil {
				return nil, lazyerrors.Error(err)
			}

			continue
		}

		found := wirebson.MakeArray(len(matches))
		for _, m := range matches {
			if err = found.Add(m); err != nil {
				return nil, lazyerrors.Error(err)
			}
		}

		doc, err := raw.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if err = doc.Replace(j.lookup.as, found); err != nil {
			return nil, lazyerrors.Error(err)
		}

		if err = firstBatch.Add(doc); err != nil {
			return nil, lazyerrors.Error(err)
		}
	}

	reply, err := wirebson.NewDocument(
		"cursor", wirebson.MustDocument("firstBatch", firstBatch, "id", int64(0), "ns", ns),
		"ok", float64(1),
	)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return wire.NewOpMsg(reply)
}

// embeddedJoinLocal returns a document's local value read from its BSON, and whether it has a field named as the
// lookup's `as`, when the local field is a top-level field holding a scalar with a key or null, or missing (null, as
// localValue says); false otherwise (localValue then reads it).
func embeddedJoinLocal(l *embeddedLookup, raw wirebson.RawDocument) (any, bool, bool) {
	if len(l.localField) != 1 {
		return nil, false, false
	}

	var local any = types.Null
	var hasAs, scalar bool

	known := embeddedRawFields(raw, func(name []byte, t byte, v []byte) {
		switch string(name) {
		case l.as:
			hasAs = true
		case l.localField[0]:
			local, scalar = embeddedRawScalar(t, v)
		default:
			return
		}
	})

	if !known || (!scalar && local != types.Null) {
		return nil, false, false
	}

	if !scalar {
		local = types.Null
	}

	return local, hasAs, true
}

// embeddedRawFields calls f with each top-level field of a BSON document: its name, type and value's bytes. It
// returns false when the document holds a type whose size is not read here (f then saw only the fields before it).
func embeddedRawFields(raw []byte, f func(name []byte, t byte, v []byte)) bool {
	if len(raw) < 5 {
		return false
	}

	for i := 4; i < len(raw)-1; {
		t := raw[i]
		i++

		end := bytes.IndexByte(raw[i:], 0)
		if end < 0 {
			return false
		}

		name := raw[i : i+end]
		i += end + 1

		var n int

		switch t {
		case 0x01, 0x09, 0x11, 0x12: // double, date, timestamp, int64
			n = 8
		case 0x02: // string: its length, then its bytes and a NUL
			if i+4 > len(raw) {
				return false
			}

			n = 4 + int(int32(binary.LittleEndian.Uint32(raw[i:])))
		case 0x03, 0x04: // document, array: their length counts itself
			if i+4 > len(raw) {
				return false
			}

			n = int(int32(binary.LittleEndian.Uint32(raw[i:])))
		case 0x07: // ObjectId
			n = 12
		case 0x08: // boolean
			n = 1
		case 0x0A: // null
			n = 0
		case 0x10: // int32
			n = 4
		case 0x13: // decimal128
			n = 16
		default:
			return false
		}

		if n < 0 || i+n > len(raw)-1 {
			return false
		}

		f(name, t, raw[i:i+n])
		i += n
	}

	return true
}

// embeddedRawScalar returns the value of a BSON field of type t (its bytes v) when it is a scalar with a join key
// (embeddedJoinKeyOf) or null, as FerretDB's types hold it; false otherwise.
func embeddedRawScalar(t byte, v []byte) (any, bool) {
	switch t {
	case 0x01:
		return math.Float64frombits(binary.LittleEndian.Uint64(v)), true
	case 0x02:
		if len(v) < 5 {
			return nil, false
		}

		return string(v[4 : len(v)-1]), true
	case 0x07:
		return types.ObjectID(v), true
	case 0x08:
		return v[0] != 0, true
	case 0x0A:
		return types.Null, true
	case 0x10:
		return int32(binary.LittleEndian.Uint32(v)), true
	case 0x12:
		return int64(binary.LittleEndian.Uint64(v)), true
	default:
		return nil, false
	}
}

// embeddedJoinAppend returns a document's BSON with a last field `name` holding the array of matches: the
// document's elements, then the array's element, then the terminator, under the new length.
func embeddedJoinAppend(raw wirebson.RawDocument, name string, matches []wirebson.RawDocument) wirebson.RawDocument {
	size := 4 + 1

	for i, m := range matches {
		size += 1 + len(strconv.Itoa(i)) + 1 + len(m)
	}

	out := make([]byte, 0, len(raw)+1+len(name)+1+size)
	out = append(out, raw[:len(raw)-1]...)
	out = append(out, 0x04)
	out = append(out, name...)
	out = append(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(size))

	for i, m := range matches {
		out = append(out, 0x03)
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, 0)
		out = append(out, m...)
	}

	out = append(out, 0, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))

	return out
}

// embeddedJoinKey is a local or foreign value as $lookup's equality compares it: numbers by value whatever their
// type (an integral double is the integer), strings, booleans and ObjectIds by themselves. Other values have none.
type embeddedJoinKey struct {
	kind byte
	n    int64
	f    float64
	s    string
}

// embeddedJoinKeyOf returns a value's key, and false for a value without one (null, a document, an array, a regular
// expression, a date, NaN, ...). A null's key (kind 'z') only names it for the per-value reads.
func embeddedJoinKeyOf(v any) (embeddedJoinKey, bool) {
	switch v := v.(type) {
	case int32:
		return embeddedJoinKey{kind: 'n', n: int64(v)}, true
	case int64:
		return embeddedJoinKey{kind: 'n', n: v}, true
	case float64:
		// Integral doubles within int64's range equal the integer of that value (-0 is 0).
		if v == math.Trunc(v) && v >= -(1<<63) && v < 1<<63 {
			return embeddedJoinKey{kind: 'n', n: int64(v)}, true
		}

		if math.IsNaN(v) || math.IsInf(v, 0) {
			return embeddedJoinKey{}, false
		}

		return embeddedJoinKey{kind: 'f', f: v}, true
	case string:
		return embeddedJoinKey{kind: 's', s: v}, true
	case bool:
		if v {
			return embeddedJoinKey{kind: 'b', n: 1}, true
		}

		return embeddedJoinKey{kind: 'b'}, true
	case types.ObjectID:
		return embeddedJoinKey{kind: 'o', s: string(v[:])}, true
	case wirebson.ObjectID:
		return embeddedJoinKey{kind: 'o', s: string(v[:])}, true
	case types.NullType, wirebson.NullType:
		return embeddedJoinKey{kind: 'z'}, true
	default:
		return embeddedJoinKey{}, false
	}
}

// embeddedJoinBatch reads the matches of a page's local values in one query of `from`, {foreignField: {$in: <the
// distinct values that have a key, null aside>}}, when the backend answers it exactly, and returns them by key,
// each key's in `from`'s natural order, as one query per value returns them (a foreign array matches each of its
// elements' keys). It returns nil when there are fewer than two such values, when foreignField is dotted, or when
// the backend cannot answer the $in exactly: the values are then read one by one. keep, when not nil, keeps the
// matches' top-level fields (the lookup's $project); the batch needs foreignField among them to hand them out.
func embeddedJoinBatch(ctx context.Context, l *embeddedLookup, from backends.Collection, locals []any, keep func(string) bool) (map[embeddedJoinKey][]wirebson.RawDocument, error) { //nolint:lll // for readability
	// A single document (a project by id) is read by value without building the batch.
	if len(locals) < 2 || strings.ContainsRune(l.foreignField, '.') || (keep != nil && !keep(l.foreignField)) {
		return nil, nil
	}

	byKey := make(map[embeddedJoinKey][]wirebson.RawDocument)
	values := types.MakeArray(len(locals))

	for _, v := range locals {
		key, ok := embeddedJoinKeyOf(v)
		if _, seen := byKey[key]; !ok || key.kind == 'z' || seen {
			continue
		}

		byKey[key] = nil
		values.Append(v)
	}

	if values.Len() < 2 {
		return nil, nil
	}

	filter := must.NotFail(types.NewDocument(l.foreignField, must.NotFail(types.NewDocument("$in", values))))

	matches, ok, err := embeddedExactRaw(ctx, from, &backends.QueryParams{
		Filter:   filter,
		Pushdown: &backends.QueryPushdown{},
	}, keep)
	if err != nil || !ok {
		return nil, err
	}

	for _, m := range matches {
		var value any

		var scalar bool

		embeddedRawFields(m, func(name []byte, t byte, v []byte) {
			if string(name) == l.foreignField {
				value, scalar = embeddedRawScalar(t, v)
			}
		})

		if !scalar {
			doc, err := m.Decode()
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			value = doc.Get(l.foreignField)
		}

		elements := []any{value}

		if raw, isArray := value.(wirebson.RawArray); isArray {
			arr, err := raw.Decode()
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			elements = make([]any, arr.Len())
			for i := range elements {
				elements[i] = arr.Get(i)
			}
		}

		var added []embeddedJoinKey

		for _, e := range elements {
			key, ok := embeddedJoinKeyOf(e)
			if _, wanted := byKey[key]; !ok || !wanted || slices.Contains(added, key) {
				continue
			}

			added = append(added, key)
			byKey[key] = append(byKey[key], m)
		}
	}

	return byKey, nil
}

// embeddedJoinMatches returns, as BSON, the documents of `from` a local value matches: read from storage as BSON
// when the backend proves the equality exact, else as the $lookup stage reads them (a null or missing value, a
// document, a regular expression, or a field the pushdown does not answer exactly), converted. keep, when not nil,
// keeps the matches' top-level fields as the lookup's $project does.
func embeddedJoinMatches(ctx context.Context, l *embeddedLookup, from backends.Collection, value any, keep func(string) bool) ([]wirebson.RawDocument, error) { //nolint:lll // for readability
	switch value.(type) {
	case types.NullType, *types.Document, *types.Array, types.Regex:
	default:
		matches, ok, err := embeddedExactRaw(ctx, from, &backends.QueryParams{
			Filter:   must.NotFail(types.NewDocument(l.foreignField, value)),
			Pushdown: &backends.QueryPushdown{},
		}, keep)
		if err != nil || ok {
			return matches, err
		}
	}

	found, err := l.lookedUp(ctx, from, value)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	matches := make([]wirebson.RawDocument, 0, found.Len())

	for i := range found.Len() {
		doc, err := bson.FromDocument(must.NotFail(found.Get(i)).(*types.Document))
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		raw, err := doc.Encode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		matches = append(matches, raw)
	}

	return matches, nil
}

// embeddedExactRaw runs a query and returns its documents as BSON (only the top-level fields keep keeps, when not
// nil), with ok true, when the backend proved the result exact; ok false (and nothing read) otherwise.
func embeddedExactRaw(ctx context.Context, c backends.Collection, qp *backends.QueryParams, keep func(string) bool) ([]wirebson.RawDocument, bool, error) { //nolint:lll // for readability
	res, err := c.Query(ctx, qp)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	defer res.Iter.Close()

	bi, isBSON := res.Iter.(backends.BSONIterator)
	if !res.PushedDown || !isBSON {
		return nil, false, nil
	}

	var buf []byte
	var ends []int

	for {
		if buf, err = bi.AppendNextBSON(buf, keep); err != nil {
			if errors.Is(err, iterator.ErrIteratorDone) {
				break
			}

			return nil, false, lazyerrors.Error(err)
		}

		ends = append(ends, len(buf))
	}

	docs := make([]wirebson.RawDocument, len(ends))
	start := 0

	for i, end := range ends {
		docs[i] = wirebson.RawDocument(buf[start:end])
		start = end
	}

	return docs, true, nil
}
