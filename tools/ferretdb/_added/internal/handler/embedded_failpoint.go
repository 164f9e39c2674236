// Added by ferretdb-embedded (the project's patch; not part of FerretDB).
//
// Fail points for tests (no change of FerretDB's files: hooks only): MongoDB's `configureFailPoint` command with its `failCommand` fail point,
// served only when the program is started for tests (FERRETDB_EMBEDDED_TEST_COMMANDS=on, as `mongod --setParameter
// enableTestCommands=1`); otherwise the command does not exist, as on a MongoDB started without test commands.
//
//	{configureFailPoint: "failCommand", mode: "alwaysOn" | "off" | {times: n} | {skip: n},
//	 data: {failCommands: [names], errorCode, errorLabels, closeConnection, blockConnection, blockTimeMS,
//	        writeConcernError, appName, failInternalCommands}}
//
// A command the fail point names (and, with appName, only from a client that said that name in its hello) then
// fails as told: its connection is closed without an answer; or it is held blockTimeMS first; or it answers
// errorCode (with exactly the errorLabels given, when given) without running; or it runs and its answer gets the
// writeConcernError given. It runs inside the replica set's hook (embedded_replset.go), so a command of a transaction
// or a retryable write fails there, and its error gets the labels MongoDB gives it.
package handler

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/util/embedded"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// embeddedFailPoint is the failCommand fail point as configured last.
type embeddedFailPoint struct {
	on       bool
	times    int64 // remaining activations; <0: always
	skip     int64 // matching commands to let through first
	commands []string
	appName  string

	errorCode   int32
	hasCode     bool
	errorLabels *wirebson.Array // nil: the labels MongoDB gives the error
	closeConn   bool
	block       time.Duration
	wcError     *wirebson.Document
}

var embeddedFailPoints = struct {
	mu  sync.Mutex
	fp  embeddedFailPoint
	app sync.Map // connection → its client's appName
}{}

func init() {
	if !embedded.TestCommands {
		return
	}

	embeddedRegisterHook(20, embeddedFailPointHook)
	embeddedOnConnClosed(func(conn any) { embeddedFailPoints.app.Delete(conn) })
	// Drivers send their first hello as an OP_QUERY (an OP_MSG only with a server API version): its client metadata
	// names the application.
	embeddedOnQuery(embeddedRememberAppName)
	embeddedAddedCommands["configureFailPoint"] = embeddedConfigureFailPoint
}

// embeddedConfigureFailPoint configures failCommand.
func embeddedConfigureFailPoint(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error) {
	doc, err := call.msg.RawSection0().Decode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if name, _ := doc.Get("configureFailPoint").(string); name != "failCommand" {
		return nil, embeddedErrorf(2, "fail point %q is not served here: only failCommand", name) // BadValue
	}

	fp := embeddedFailPoint{times: -1}

	switch mode := doc.Get("mode").(type) {
	case string:
		switch mode {
		case "alwaysOn":
			fp.on = true
		case "off":
		default:
			return nil, embeddedErrorf(2, "unknown mode %q", mode)
		}

	case wirebson.AnyDocument:
		m, err := mode.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		fp.on = true

		if n, ok := embeddedNumber(m.Get("times")); ok {
			fp.times = n
		}

		if n, ok := embeddedNumber(m.Get("skip")); ok {
			fp.skip = n
		}

	default:
		return nil, embeddedErrorf(14, "mode must be a string or a document") // TypeMismatch
	}

	if d, ok := doc.Get("data").(wirebson.AnyDocument); ok && fp.on {
		data, err := d.Decode()
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		if list, ok := data.Get("failCommands").(wirebson.AnyArray); ok {
			arr, err := list.Decode()
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			for i := range arr.Len() {
				if name, ok := arr.Get(i).(string); ok {
					fp.commands = append(fp.commands, name)
				}
			}
		}

		if n, ok := embeddedNumber(data.Get("errorCode")); ok {
			fp.errorCode, fp.hasCode = int32(n), true
		}

		if l, ok := data.Get("errorLabels").(wirebson.AnyArray); ok {
			if fp.errorLabels, err = l.Decode(); err != nil {
				return nil, lazyerrors.Error(err)
			}
		}

		fp.closeConn, _ = data.Get("closeConnection").(bool)
		fp.appName, _ = data.Get("appName").(string)

		if b, _ := data.Get("blockConnection").(bool); b {
			ms, _ := embeddedNumber(data.Get("blockTimeMS"))
			fp.block = time.Duration(ms) * time.Millisecond
		}

		if wc, ok := data.Get("writeConcernError").(wirebson.AnyDocument); ok {
			if fp.wcError, err = wc.Decode(); err != nil {
				return nil, lazyerrors.Error(err)
			}
		}
	}

	embeddedFailPoints.mu.Lock()
	embeddedFailPoints.fp = fp
	embeddedFailPoints.mu.Unlock()

	return embeddedOK(ctx, call)
}

// embeddedFailPointHook fails the commands the fail point names.
func embeddedFailPointHook(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error) {
	if call.command == "hello" || call.command == "isMaster" || call.command == "ismaster" {
		if doc, err := call.msg.RawSection0().Decode(); err == nil {
			embeddedRememberAppName(call.conn, doc)
		}
	}

	fp, hit := embeddedFailPointHit(call)
	if !hit {
		return next(ctx)
	}

	if fp.block > 0 {
		select {
		case <-time.After(fp.block):
		case <-ctx.Done():
			return nil, lazyerrors.Error(ctx.Err())
		}
	}

	if fp.closeConn {
		call.injected = true
		_ = call.netConn.Close()
		return nil, lazyerrors.Errorf("connection closed by the failCommand fail point")
	}

	if fp.hasCode {
		call.injected = true

		doc := wirebson.MustDocument(
			"ok", float64(0),
			"errmsg", "Failing command via 'failCommand' failpoint",
			"code", fp.errorCode,
			"codeName", embeddedCodeName(fp.errorCode),
		)
		if fp.errorLabels != nil {
			if err := doc.Add("errorLabels", fp.errorLabels); err != nil {
				return nil, lazyerrors.Error(err)
			}
		}

		return wire.NewOpMsg(doc)
	}

	reply, err := next(ctx)
	if err != nil || fp.wcError == nil {
		return reply, err
	}

	doc, info := embeddedReadReply(reply)
	if doc == nil || !info.ok {
		return reply, nil
	}

	if err = doc.Add("writeConcernError", fp.wcError); err != nil {
		return nil, lazyerrors.Error(err)
	}

	if fp.errorLabels != nil {
		if err = doc.Add("errorLabels", fp.errorLabels); err != nil {
			return nil, lazyerrors.Error(err)
		}
	}

	return wire.NewOpMsg(doc)
}

// embeddedFailPointHit tells whether the fail point fails this command, counting the activation.
func embeddedFailPointHit(call *embeddedCall) (embeddedFailPoint, bool) {
	embeddedFailPoints.mu.Lock()
	defer embeddedFailPoints.mu.Unlock()

	fp := &embeddedFailPoints.fp
	if !fp.on || !slices.Contains(fp.commands, call.command) {
		return embeddedFailPoint{}, false
	}

	if fp.appName != "" {
		if name, _ := embeddedFailPoints.app.Load(call.conn); name != fp.appName {
			return embeddedFailPoint{}, false
		}
	}

	if fp.skip > 0 {
		fp.skip--
		return embeddedFailPoint{}, false
	}

	if fp.times == 0 {
		return embeddedFailPoint{}, false
	}

	if fp.times > 0 {
		if fp.times--; fp.times == 0 {
			fp.on = false
		}
	}

	return *fp, true
}

// embeddedRememberAppName notes the application name a connection's client gave in its hello (an OP_QUERY's query
// or an OP_MSG's section 0).
func embeddedRememberAppName(conn any, hello *wirebson.Document) {
	client, ok := hello.Get("client").(wirebson.AnyDocument)
	if !ok {
		return
	}

	c, err := client.Decode()
	if err != nil {
		return
	}

	app, ok := c.Get("application").(wirebson.AnyDocument)
	if !ok {
		return
	}

	a, err := app.Decode()
	if err != nil {
		return
	}

	if name, ok := a.Get("name").(string); ok {
		embeddedFailPoints.app.Store(conn, name)
	}
}

// embeddedNumber reads a whole number of any BSON number type.
func embeddedNumber(v any) (int64, bool) {
	switch v := v.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		return int64(v), true
	default:
		return 0, false
	}
}
