// Command mongo-wire runs FerretDB (SQLite backend) embedded, as Herald's local MongoDB-wire server.
// Usage: mongo-wire -listen 127.0.0.1:27017 -data .data/mongo
//
// It also gives every collection table the index FerretDB's own `_id` lookups need (idindex.go says why): without
// it every read, update and delete by `_id` is a full table scan.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", ".data/mongo", "directory for the SQLite databases")
	idIndex := flag.Bool("id-index", true, "index every collection on FerretDB's pushed-down _id expression (false: only to reproduce the scans)")
	flag.Parse()

	dir, err := filepath.Abs(*data)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *idIndex {
		// Before the listener opens: an existing data folder is fully indexed before the first query.
		if err := ensureAll(ctx, dir); err != nil {
			log.Fatal(err)
		}
		go watchIDIndexes(ctx, dir, 200*time.Millisecond)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  "sqlite",
		// BEGIN IMMEDIATE: an update (read, then write) waits on the busy handler instead of failing at once with
		// SQLITE_BUSY when another writer holds the lock; synchronous=normal is the WAL setting SQLite recommends.
		SQLiteURL: "file:" + dir + "/?_txlock=immediate&_pragma=synchronous(normal)",
	})
	if err != nil {
		log.Fatal(err)
	}

	fmt.Printf("mongo-wire listening on %s, data in %s\n", *listen, dir)
	f.Run(ctx)
}
