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

	"github.com/FerretDB/FerretDB/internal/handler/common"
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

// embeddedCrudHook runs the features around a command.
func embeddedCrudHook(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	if !embeddedCrudCommands[call.command] {
		return next(ctx)
	}

	doc, err := opMsgDocument(call.msg)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	// where a write that hit a unique index leaves its document (embedded_crud_duplicate.go)
	ctx = common.EmbeddedCrudDuplicateContext(ctx)

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

	embeddedCrudNoteSession(doc)

	var reply *wire.OpMsg

	if answer := embeddedCrudAggregateAnswer(call, doc); answer != nil {
		reply, err = answer(ctx) // embedded_crud_out.go
	} else {
		reply, err = next(ctx)
	}

	if len(afters) == 0 {
		return reply, err
	}

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
