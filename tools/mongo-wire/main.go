// Command mongo-wire runs FerretDB (SQLite backend) embedded, as Herald's local MongoDB-wire server.
// Usage: mongo-wire -listen 127.0.0.1:27017 -data .data/mongo
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

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", ".data/mongo", "directory for the SQLite databases")
	flag.Parse()

	dir, err := filepath.Abs(*data)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		log.Fatal(err)
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

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Printf("mongo-wire listening on %s, data in %s\n", *listen, dir)
	f.Run(ctx)
}
