// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"sync"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// How a command runs, shared by the concerns that act around commands (the replica set's sessions and
// transactions, the fail points): clientconn hands every OP_MSG command to Handler.EmbeddedCommand (its one hook,
// shared.patch), which runs it through the hooks the concerns register, outermost first, then through the commands
// the concerns add, then through FerretDB's own commands. Without hooks this is FerretDB's own dispatch. An OP_QUERY
// (a driver's first handshake, hello or isMaster with the client's metadata) is shown to the concerns that asked to
// see it (Handler.EmbeddedQuery, shared.patch too), then FerretDB answers it as before.

// embeddedCall is one command as the hooks see it.
type embeddedCall struct {
	h       *Handler
	conn    any      // the client connection, as an identity
	netConn net.Conn // the client connection itself (a fail point may close it)
	msg     *wire.OpMsg
	command string

	// injected: its answer is a fail point's error, not the command's (the command did not run).
	injected bool
}

// embeddedNext runs the rest of the chain, then the command.
type embeddedNext func(ctx context.Context) (*wire.OpMsg, error)

// embeddedHook runs around a command: it may answer without running it, run it in another context, or change what
// it answers.
type embeddedHook func(ctx context.Context, call *embeddedCall, next embeddedNext) (*wire.OpMsg, error)

type embeddedHookEntry struct {
	order int // lower runs outside higher
	hook  embeddedHook
}

var (
	embeddedHooks      []embeddedHookEntry
	embeddedConnClosed []func(conn any)
	embeddedQuerySeen  []func(conn any, query *wirebson.Document)

	// embeddedAddedCommands are commands FerretDB does not have (or that a concern answers instead of it).
	embeddedAddedCommands = map[string]func(ctx context.Context, call *embeddedCall) (*wire.OpMsg, error){}

	embeddedHooksMu sync.Mutex // registration only (in init functions)
)

// embeddedRegisterHook registers a concern's hook; order places it (lower runs outside higher).
func embeddedRegisterHook(order int, hook embeddedHook) {
	embeddedHooksMu.Lock()
	defer embeddedHooksMu.Unlock()

	embeddedHooks = append(embeddedHooks, embeddedHookEntry{order: order, hook: hook})
	slices.SortStableFunc(embeddedHooks, func(a, b embeddedHookEntry) int { return a.order - b.order })
}

// embeddedOnConnClosed registers what a concern does when a client connection closes.
func embeddedOnConnClosed(f func(conn any)) {
	embeddedHooksMu.Lock()
	defer embeddedHooksMu.Unlock()

	embeddedConnClosed = append(embeddedConnClosed, f)
}

// EmbeddedCommand runs an OP_MSG command of a client connection through the concerns' hooks.
func (h *Handler) EmbeddedCommand(ctx context.Context, conn any, netConn net.Conn, msg *wire.OpMsg, command string) (*wire.OpMsg, error) { //nolint:lll // for readability
	call := &embeddedCall{h: h, conn: conn, netConn: netConn, msg: msg, command: command}

	next := call.run
	for i := len(embeddedHooks) - 1; i >= 0; i-- {
		hook, inner := embeddedHooks[i].hook, next
		next = func(ctx context.Context) (*wire.OpMsg, error) { return hook(ctx, call, inner) }
	}

	return next(ctx)
}

// run runs the command itself: one a concern adds, else FerretDB's.
func (call *embeddedCall) run(ctx context.Context) (*wire.OpMsg, error) {
	if f := embeddedAddedCommands[call.command]; f != nil {
		return f(ctx, call)
	}

	if cmd := call.h.Commands()[call.command]; cmd != nil && cmd.Handler != nil {
		return cmd.Handler(ctx, call.msg)
	}

	return nil, handlererrors.NewCommandErrorMsg(
		handlererrors.ErrCommandNotFound,
		fmt.Sprintf("no such command: '%s'", call.command),
	)
}

type embeddedLocalAddrKey struct{}

// EmbeddedConnContext is the context of a client connection's commands, with the address the client connected to
// (hello names the server by it).
func EmbeddedConnContext(ctx context.Context, netConn net.Conn) context.Context {
	return context.WithValue(ctx, embeddedLocalAddrKey{}, netConn.LocalAddr().String())
}

// embeddedLocalAddr is the address the client of ctx connected to ("" outside a connection).
func embeddedLocalAddr(ctx context.Context) string {
	addr, _ := ctx.Value(embeddedLocalAddrKey{}).(string)
	return addr
}

// embeddedOnQuery registers what a concern learns from the query document of a client connection's OP_QUERY.
func embeddedOnQuery(f func(conn any, query *wirebson.Document)) {
	embeddedHooksMu.Lock()
	defer embeddedHooksMu.Unlock()

	embeddedQuerySeen = append(embeddedQuerySeen, f)
}

// EmbeddedQuery shows the concerns an OP_QUERY of a client connection, before FerretDB answers it.
func (h *Handler) EmbeddedQuery(conn any, query *wire.OpQuery) {
	if len(embeddedQuerySeen) == 0 {
		return
	}

	doc := query.Query()
	if doc == nil {
		return
	}

	for _, f := range embeddedQuerySeen {
		f(conn, doc)
	}
}

// EmbeddedConnClosed tells the concerns that a client connection closed.
func (h *Handler) EmbeddedConnClosed(conn any) {
	for _, f := range embeddedConnClosed {
		f(conn)
	}
}

// embeddedWithSection0 returns msg with its section of kind 0 replaced by doc (the document sequences, kind 1, kept):
// for a concern that changes the command a handler will read.
func embeddedWithSection0(msg *wire.OpMsg, doc *wirebson.Document) (*wire.OpMsg, error) {
	raw, err := doc.Encode()
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	b := binary.LittleEndian.AppendUint32(nil, uint32(msg.Flags)&^uint32(wire.OpMsgChecksumPresent))

	for _, s := range msg.Sections() {
		b = append(b, s.Kind)

		if s.Kind == 0 {
			b = append(b, raw...)
			continue
		}

		sec := append([]byte(s.Identifier), 0)
		for _, d := range s.Documents() {
			sec = append(sec, d...)
		}

		b = binary.LittleEndian.AppendUint32(b, uint32(len(sec)+4))
		b = append(b, sec...)
	}

	var res wire.OpMsg
	if err = res.UnmarshalBinaryNocopy(b); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return &res, nil
}
