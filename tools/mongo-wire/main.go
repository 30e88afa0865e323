// Command mongo-wire runs FerretDB (SQLite backend) embedded, as Herald's local MongoDB-wire server.
// Usage: mongo-wire -listen 127.0.0.1:27017 -data .data/mongo
//
// It also gives every collection table the index FerretDB's own `_id` lookups need (idindex.go says why): without
// it every read, update and delete by `_id` is a full table scan. It is built with FerretDB patched in one file
// (ferretdb-id-in.patch, applied by patched-modfile.sh; idpushdown_test.go says why) so that `{_id: {$in: [...]}}`
// searches that index too, instead of being evaluated in Go over the whole collection. And it makes updates atomic,
// which FerretDB's SQLite backend does not (serialize.go says why and how).
//
// Its Go runtime is tuned for a server that decodes every document it reads into short-lived garbage (a profile of a
// listing load, issue 19 item 3: FerretDB's JSON decoding ≈ 43 % of its CPU, the garbage collector and the scavenger
// returning freed pages ≈ 29 %, FerretDB's per-iterator leak tracking ≈ 6 %, memory-profile sampling ≈ 3 %):
// GOGC 400 with a 1 GiB soft memory limit (the collector runs a quarter as often; the limit makes it run as before once
// the heap nears 1 GiB), no memory-profile sampling, and ferretdb-untracked.patch drops the leak tracking. The decoding
// itself is patched too (ferretdb-sjson-fast*.patch): stored documents are read in one pass instead of once per
// nesting level, with FerretDB's own decoder for anything the fast one does not take (README). Databases it creates
// give freed pages back to the file system, and -compact converts an old folder (vacuum.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	runtime.MemProfileRate = 0 // as early as possible (runtime docs): nothing here reads a heap profile
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", ".data/mongo", "directory for the SQLite databases")
	idIndex := flag.Bool("id-index", true, "index every collection on FerretDB's pushed-down _id expression (false: only to reproduce the scans)")
	serialize := flag.Bool("serialize-updates", true, "run one update, findAndModify or delete per collection at a time (serialize.go; false: only to reproduce lost updates)")
	gcPercent := flag.Int("gc-percent", 400, "the collector's GOGC (the GOGC variable, when set, wins)")
	memoryLimit := flag.Int64("memory-limit-mb", 1024, "soft memory limit of the Go runtime in MiB (GOMEMLIMIT, when set, wins; 0: none)")
	vacuumEvery := flag.Duration("vacuum-every", 10*time.Second, "how often free pages are returned to the file system (vacuum.go; 0: never)")
	vacuumMinFree := flag.Int("vacuum-min-free-pages", 256, "free pages (4 KiB) a database file holds before they are returned")
	compact := flag.Bool("compact", false, "rewrite the folder's databases in incremental auto-vacuum mode, returning their free pages, then exit (the folder must not be served)")
	flag.Parse()
	tuneRuntime(*gcPercent, *memoryLimit)

	dir, err := filepath.Abs(*data)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *compact {
		if err := compactFolder(ctx, dir); err != nil {
			log.Fatal(err)
		}
		return
	}
	lock, err := lockFolder(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()
	if *vacuumEvery > 0 {
		go vacuumLoop(ctx, dir, *vacuumEvery, *vacuumMinFree)
	}

	if *idIndex {
		// Before the listener opens: an existing data folder is fully indexed before the first query.
		if err := ensureAll(ctx, dir); err != nil {
			log.Fatal(err)
		}
		go watchIDIndexes(ctx, dir, 200*time.Millisecond)
	}

	listener := ferretdb.ListenerConfig{TCP: *listen}
	var socket string
	if *serialize {
		// FerretDB on a private socket; this process listens on -listen and forwards (serialize.go).
		sockDir, err := os.MkdirTemp("", "mongo-wire-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(sockDir)
		socket = filepath.Join(sockDir, "ferretdb.sock")
		listener = ferretdb.ListenerConfig{Unix: socket}
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: listener,
		Handler:  "sqlite",
		// slog's default output and level, with attributes formatted only for records written (lazylog.go).
		Logger:    newLazyLogger(slog.Default().Handler()),
		SQLiteURL: sqliteURL(dir),
	})
	if err != nil {
		log.Fatal(err)
	}

	if !*serialize {
		fmt.Printf("mongo-wire listening on %s, data in %s\n", *listen, dir)
		f.Run(ctx)
		return
	}
	ran := make(chan struct{})
	go func() {
		f.Run(ctx)
		close(ran)
	}()
	// The public port opens only once FerretDB answers on its socket: a client never reaches a missing backend.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log.Fatal("FerretDB did not open its socket within 30 s")
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	go serveSerialized(ln, socket)
	fmt.Printf("mongo-wire listening on %s (updates serialized per collection), data in %s\n", *listen, dir)
	select {
	case <-ctx.Done():
	case <-ran:
	}
	ln.Close()
	<-ran
}

// sqliteURL is how FerretDB opens the folder's databases, its pragmas run in this order on every new connection.
// busy_timeout first (FerretDB adds its own, 10 s, after the others when none is given): the auto_vacuum pragma then
// waits for a writer instead of failing at once with SQLITE_BUSY. BEGIN IMMEDIATE: an update (read, then write) waits
// on the busy handler instead of failing at once when another writer holds the lock; synchronous=normal is
// the WAL setting SQLite recommends; auto_vacuum incremental: a database created now gives freed pages back
// (vacuum.go; FerretDB's default is none); journal_size_limit: the write-ahead log shrinks back to 64 MiB after a
// checkpoint that outgrew it.
func sqliteURL(dir string) string {
	return "file:" + dir + "/?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=auto_vacuum(incremental)" +
		"&_pragma=synchronous(normal)&_pragma=journal_size_limit(67108864)"
}

// tuneRuntime sets the collector's percentage and soft memory limit unless the environment set them (GOGC, GOMEMLIMIT).
func tuneRuntime(gcPercent int, memoryLimitMB int64) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && memoryLimitMB > 0 {
		debug.SetMemoryLimit(memoryLimitMB << 20)
	}
}
