// Added by ferretdb-embedded (the project's patch; not part of FerretDB).

package handler

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// MongoDB's codes and names of the errors the replica set's sessions answer (FerretDB's handlererrors has none of
// them), and the labels drivers act on.
const (
	embeddedCodeLockTimeout                        = 24
	embeddedCodeWriteConflict                      = 112
	embeddedCodeConflictingOperationInProgress     = 117
	embeddedCodeNoSuchTransaction                  = 251
	embeddedCodeTransactionTooOld                  = 225
	embeddedCodeTransactionCommitted               = 256
	embeddedCodeOperationNotSupportedInTransaction = 263

	embeddedLabelTransient = "TransientTransactionError"
	embeddedLabelRetryable = "RetryableWriteError"
)

var embeddedCodeNames = map[int32]string{
	6:                         "HostUnreachable",
	7:                         "HostNotFound",
	50:                        "MaxTimeMSExpired",
	64:                        "WriteConcernFailed",
	79:                        "UnknownReplWriteConcern",
	89:                        "NetworkTimeout",
	91:                        "ShutdownInProgress",
	100:                       "UnsatisfiableWriteConcern",
	134:                       "ReadConcernMajorityNotAvailableYet",
	189:                       "PrimarySteppedDown",
	262:                       "ExceededTimeLimit",
	9001:                      "SocketException",
	10107:                     "NotWritablePrimary",
	11600:                     "InterruptedAtShutdown",
	11601:                     "Interrupted",
	11602:                     "InterruptedDueToReplStateChange",
	13435:                     "NotPrimaryNoSecondaryOk",
	13436:                     "NotPrimaryOrSecondary",
	embeddedCodeLockTimeout:   "LockTimeout",
	embeddedCodeWriteConflict: "WriteConflict",
	embeddedCodeConflictingOperationInProgress:     "ConflictingOperationInProgress",
	embeddedCodeNoSuchTransaction:                  "NoSuchTransaction",
	embeddedCodeTransactionTooOld:                  "TransactionTooOld",
	embeddedCodeTransactionCommitted:               "TransactionCommitted",
	embeddedCodeOperationNotSupportedInTransaction: "OperationNotSupportedInTransaction",
}

// embeddedRetryableCodes are the codes of errors after which a driver retries a retryable write (and a commit or abort
// of a transaction): the server labels them RetryableWriteError, as MongoDB 4.4+ does.
var embeddedRetryableCodes = []int32{6, 7, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436}

// embeddedTransientCodes are the codes of errors in a transaction after which the whole transaction may be tried
// again: the server labels them TransientTransactionError.
var embeddedTransientCodes = []int32{embeddedCodeLockTimeout, embeddedCodeWriteConflict, embeddedCodeNoSuchTransaction}

// embeddedCodeError is an error with one of MongoDB's codes that FerretDB does not know.
type embeddedCodeError struct {
	code int32
	msg  string
}

func (e *embeddedCodeError) Error() string {
	return fmt.Sprintf("%s (%d): %s", embeddedCodeNames[e.code], e.code, e.msg)
}

func embeddedErrorf(code int32, format string, args ...any) error {
	return &embeddedCodeError{code: code, msg: fmt.Sprintf(format, args...)}
}

// embeddedCodeName is the name of MongoDB's error code (empty when neither we nor FerretDB know it).
func embeddedCodeName(code int32) string {
	if name, ok := embeddedCodeNames[code]; ok {
		return name
	}

	if name := handlererrors.ErrorCode(code).String(); !strings.HasPrefix(name, "ErrorCode(") {
		return name
	}

	return ""
}

// embeddedErrorDocument is the answer for err, as route would write it, but for our codes with their names.
func embeddedErrorDocument(err error) *wirebson.Document {
	var ce *embeddedCodeError
	if errors.As(err, &ce) {
		return wirebson.MustDocument(
			"ok", float64(0),
			"errmsg", ce.msg,
			"code", ce.code,
			"codeName", embeddedCodeNames[ce.code],
		)
	}

	return handlererrors.ProtocolError(err).Document()
}

// embeddedErrorReply answers err with the given labels.
func embeddedErrorReply(err error, labels []string) (*wire.OpMsg, error) {
	doc := embeddedErrorDocument(err)

	if len(labels) > 0 {
		arr := wirebson.MakeArray(len(labels))
		for _, l := range labels {
			must.NoError(arr.Add(l))
		}

		must.NoError(doc.Add("errorLabels", arr))
	}

	res, e := wire.NewOpMsg(doc)
	if e != nil {
		return nil, lazyerrors.Error(e)
	}

	return res, nil
}

// embeddedReplyInfo is what the replica set reads of an answer.
type embeddedReplyInfo struct {
	ok          bool
	code        int32 // of the command's error
	wcCode      int32 // of its writeConcernError
	labels      bool  // it carries errorLabels already (a fail point's: kept as they are)
	writeErrors bool
	cursorID    int64
}

func embeddedReadReply(reply *wire.OpMsg) (*wirebson.Document, embeddedReplyInfo) {
	var info embeddedReplyInfo

	raw, err := reply.RawDocument()
	if err != nil {
		return nil, info
	}

	doc, err := raw.Decode()
	if err != nil {
		return nil, info
	}

	switch ok := doc.Get("ok").(type) {
	case float64:
		info.ok = ok == 1
	case int32:
		info.ok = ok == 1
	case int64:
		info.ok = ok == 1
	}

	info.code, _ = doc.Get("code").(int32)
	info.labels = doc.Get("errorLabels") != nil

	if we := doc.Get("writeErrors"); we != nil {
		info.writeErrors = true
	}

	if wc, ok := doc.Get("writeConcernError").(wirebson.AnyDocument); ok {
		if wcDoc, err := wc.Decode(); err == nil {
			info.wcCode, _ = wcDoc.Get("code").(int32)
		}
	}

	if c, ok := doc.Get("cursor").(wirebson.AnyDocument); ok {
		if cDoc, err := c.Decode(); err == nil {
			info.cursorID, _ = cDoc.Get("id").(int64)
		}
	}

	return doc, info
}

// embeddedLabel adds labels to an answer that does not carry any yet (a fail point's labels are what it was told).
func embeddedLabel(reply *wire.OpMsg, doc *wirebson.Document, info embeddedReplyInfo, labels []string) (*wire.OpMsg, error) { //nolint:lll // for readability
	if len(labels) == 0 || info.labels || doc == nil {
		return reply, nil
	}

	arr := wirebson.MakeArray(len(labels))
	for _, l := range labels {
		must.NoError(arr.Add(l))
	}

	if err := doc.Add("errorLabels", arr); err != nil {
		return nil, lazyerrors.Error(err)
	}

	res, err := wire.NewOpMsg(doc)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return res, nil
}

// embeddedLabelsFor are the labels MongoDB gives an answer with these codes: TransientTransactionError inside a
// transaction, RetryableWriteError for a retryable write or a transaction's commit or abort.
func embeddedLabelsFor(info embeddedReplyInfo, inTxn, retryable bool) []string {
	var labels []string

	// Inside a transaction, also the errors after which a write would be retried (a primary that stepped down):
	// the transaction as a whole can be tried again. Not for its commit or abort, which are retried themselves.
	transient := slices.Contains(embeddedTransientCodes, info.code) ||
		(!retryable && slices.Contains(embeddedRetryableCodes, info.code))
	if inTxn && !info.ok && transient {
		labels = append(labels, embeddedLabelTransient)
	}

	if retryable && ((!info.ok && slices.Contains(embeddedRetryableCodes, info.code)) ||
		slices.Contains(embeddedRetryableCodes, info.wcCode)) {
		labels = append(labels, embeddedLabelRetryable)
	}

	return labels
}
