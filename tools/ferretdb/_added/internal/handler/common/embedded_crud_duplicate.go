// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package common

import (
	"context"
	"errors"
	"sync"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/types"
)

// A duplicate-key error names the index and the key (crud concern): the handler's hook (handler/embedded_crud_duplicate.go)
// needs the document whose write hit the unique index; an update or findAndModify leaves it here, in its command's
// context.

type embeddedCrudDuplicateKey struct{}

// embeddedCrudDuplicate holds the document of the last write that hit a unique index.
type embeddedCrudDuplicate struct {
	mu  sync.Mutex
	doc *types.Document
}

// EmbeddedCrudDuplicateContext gives a command's context a place for that document.
func EmbeddedCrudDuplicateContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, embeddedCrudDuplicateKey{}, new(embeddedCrudDuplicate))
}

// EmbeddedCrudDuplicateDoc is the document of the last write of ctx's command that hit a unique index, or nil.
func EmbeddedCrudDuplicateDoc(ctx context.Context) *types.Document {
	d, _ := ctx.Value(embeddedCrudDuplicateKey{}).(*embeddedCrudDuplicate)
	if d == nil {
		return nil
	}

	d.mu.Lock()
	defer d.mu.Unlock()

	return d.doc
}

// embeddedCrudNoteDuplicate keeps doc when err is a duplicate-key error.
func embeddedCrudNoteDuplicate(ctx context.Context, doc *types.Document, err error) {
	var be *backends.Error
	if !errors.As(err, &be) || be.Code() != backends.ErrorCodeInsertDuplicateID {
		return
	}

	d, _ := ctx.Value(embeddedCrudDuplicateKey{}).(*embeddedCrudDuplicate)
	if d == nil {
		return
	}

	d.mu.Lock()
	d.doc = doc.DeepCopy()
	d.mu.Unlock()
}
