// Command ferretdb-embedded runs FerretDB 1.24 (SQLite backend) as a child of the Node service.
//
// Usage: ferretdb-embedded <absolute data dir>
//
// It listens on 127.0.0.1 with an ephemeral port, prints the MongoDB URI as the first line of stdout,
// and stops on SIGINT/SIGTERM or when stdin closes, so a parent that dies never leaves it running.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ferretdb-embedded <data dir>")
		os.Exit(2)
	}
	dir, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Logger:   logger,
		Handler:  "sqlite",
		// WAL is FerretDB's default; synchronous=NORMAL (safe with WAL: a crash of this process or of the service
		// loses nothing, only a power cut may lose the last commits) spares an fsync on every write.
		SQLiteURL: "file:" + filepath.ToSlash(dir) + "/?_pragma=synchronous(normal)",
	})
	if err != nil {
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The parent keeps our stdin open; EOF means it is gone.
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()

	fmt.Println(f.MongoDBURI())
	if err := f.Run(ctx); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
	os.Exit(1)
}
