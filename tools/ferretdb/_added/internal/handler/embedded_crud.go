// Added by ferretdb-embedded (the project's patch; not part of FerretDB).
//
// The crud concern: the CRUD commands answer as MongoDB's do (its driver specification tests, source/crud). Each
// feature is in a file of its own (embedded_crud_*.go, here and in common/); what can be done on the command as a
// whole (findAndModify's fields, comment documents, let, collation) is done here, in one hook around the command:
// each feature may rewrite the command before FerretDB reads it, and the reply after. FERRETDB_EMBEDDED_CRUD=off
// (embedded.CrudOff) gives FerretDB's own answers and no embeddedCrud in buildInfo.
package handler

import (
	"context"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedCrudAfter changes a command's reply (ok: 1, or a duplicate-key error's).
type embeddedCrudAfter func(reply *types.Document) error

// embeddedCrudFeature rewrites a command document in place before FerretDB reads it. It says whether it changed it,
// and may return what to do to the reply.
type embeddedCrudFeature func(ctx context.Context, call *embeddedCall, doc *types.Document) (changed bool, after embeddedCrudAfter, err error) //nolint:lll // for readability

// embeddedCrudFeatures are the features that act on whole commands, in the order they run.
var embeddedCrudFeatures []embeddedCrudFeature

// embeddedCrudCommands are the commands the features look at.
var embeddedCrudCommands = map[string]bool{
	"find": true, "aggregate": true, "count": true, "distinct": true, "insert": true, "update": true,
	"delete": true, "findAndModify": true, "findandmodify": true, "getMore": true, "explain": true,
}

func init() {
	if embedded.CrudOff {
		return
	}

	embeddedRegisterHook(30, embeddedCrudHook)

	embeddedMarker(func(doc *types.Document) {
		doc.Set("embeddedCrud", true)
	})
}

// embeddedCrudHook runs the features around a command. A command that none of them rewrites (the common case) is
// not decoded: a shallow look at its top level and its statements decides; only a duplicate-key error in its reply
// makes it decoded, for the error's details.
func embeddedCrudHook(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	if !embeddedCrudCommands[call.command] {
		return next(ctx)
	}

	raw, err := call.msg.RawDocument()
	if err != nil {
		return next(ctx)
	}

	top, err := raw.Decode()
	if err != nil {
		return next(ctx)
	}

	embeddedCrudNoteSession(top)

	// where a write that hit a unique index leaves its document (embedded_crud_duplicate.go)
	ctx = common.EmbeddedCrudDuplicateContext(ctx)

	if !embeddedCrudRewrites(call, top) {
		reply, err := next(ctx)
		if !embeddedCrudHasDuplicate(call, reply, err) {
			return reply, err
		}

		doc, derr := opMsgDocument(call.msg)
		if derr != nil {
			return reply, err
		}

		_, after, _ := embeddedCrudDuplicate(ctx, call, doc)

		return embeddedCrudAfterAll(reply, err, []embeddedCrudAfter{after})
	}

	doc, err := opMsgDocument(call.msg)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	var afters []embeddedCrudAfter
	var changed bool

	for _, f := range embeddedCrudFeatures {
		c, after, err := f(ctx, call, doc)
		if err != nil {
			return nil, err
		}

		changed = changed || c

		if after != nil {
			afters = append(afters, after)
		}
	}

	if changed {
		msg, err := documentOpMsg(doc)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		call.msg = msg
	}

	var reply *wire.OpMsg

	if answer := embeddedCrudAggregateAnswer(call, doc); answer != nil {
		reply, err = answer(ctx) // embedded_crud_out.go
	} else {
		reply, err = next(ctx)
	}

	if len(afters) == 0 {
		return reply, err
	}

	return embeddedCrudAfterAll(reply, err, afters)
}

// embeddedCrudAfterAll runs the features' changes of a reply.
func embeddedCrudAfterAll(reply *wire.OpMsg, err error, afters []embeddedCrudAfter) (*wire.OpMsg, error) {
	if err != nil {
		// a duplicate-key error gets its details as a reply (embedded_crud_duplicate.go); others stay errors
		if reply, err = embeddedCrudDuplicateReply(err); err != nil {
			return nil, err
		}
	}

	if reply == nil {
		return nil, nil
	}

	res, err := opMsgDocument(reply)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	for _, after := range afters {
		if err = after(res); err != nil {
			return nil, err
		}
	}

	return documentOpMsg(res)
}

// embeddedCrudRewrites tells, from a shallow look, whether a feature rewrites the command or answers it.
func embeddedCrudRewrites(call *embeddedCall, top *wirebson.Document) bool {
	for _, name := range []string{"let", "collation", "fields", "arrayFilters"} {
		if top.Get(name) != nil {
			return true
		}
	}

	if c := top.Get("comment"); c != nil {
		if _, ok := c.(string); !ok {
			return true
		}
	}

	switch call.command {
	case "distinct":
		return top.Get("hint") != nil // embedded_crud_hint.go

	case "aggregate":
		if _, ok := top.Get("aggregate").(string); !ok {
			return true
		}

		pipeline, ok := top.Get("pipeline").(wirebson.RawArray)
		if !ok {
			return false
		}

		arr, err := pipeline.Decode()
		if err != nil || arr.Len() == 0 {
			return false
		}

		last, ok := arr.Get(arr.Len() - 1).(wirebson.RawDocument)
		if !ok {
			return false
		}

		stage, err := last.Decode()

		return err == nil && (stage.Get("$out") != nil || stage.Get("$merge") != nil)

	case "update", "delete":
		statement := func(raw wirebson.RawDocument) bool {
			d, err := raw.Decode()
			return err == nil && (d.Get("arrayFilters") != nil || d.Get("collation") != nil || d.Get("sort") != nil)
		}

		if list, ok := top.Get(call.command + "s").(wirebson.RawArray); ok {
			arr, err := list.Decode()
			if err != nil {
				return false
			}

			for i := range arr.Len() {
				if raw, ok := arr.Get(i).(wirebson.RawDocument); ok && statement(raw) {
					return true
				}
			}
		}

		for _, s := range call.msg.Sections() {
			if s.Kind != 1 {
				continue
			}

			for _, d := range s.Documents() {
				if statement(wirebson.RawDocument(d)) {
					return true
				}
			}
		}
	}

	return false
}

// embeddedCrudHasDuplicate tells whether a write's answer holds a duplicate-key error (or write errors to look at).
func embeddedCrudHasDuplicate(call *embeddedCall, reply *wire.OpMsg, err error) bool {
	switch call.command {
	case "insert", "update", "findAndModify", "findandmodify":
	default:
		return false
	}

	if err != nil {
		_, rerr := embeddedCrudDuplicateReply(err)
		return rerr == nil
	}

	if reply == nil {
		return false
	}

	raw, rerr := reply.RawDocument()
	if rerr != nil {
		return false
	}

	res, rerr := raw.Decode()
	if rerr != nil {
		return false
	}

	return res.Get("writeErrors") != nil || res.Get("code") == int32(handlererrors.ErrDuplicateKeyInsert)
}
