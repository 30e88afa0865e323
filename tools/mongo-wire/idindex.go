package main

// Why this file exists. FerretDB v1.24.2's SQLite backend pushes a bare `_id` equality down to SQLite as
//
//	SELECT _ferretdb_sjson FROM "t" WHERE _ferretdb_sjson->'$._id' = ?      (find, and the read step of update/delete)
//	UPDATE "t" SET _ferretdb_sjson = ? WHERE _ferretdb_sjson->'$._id' = ?    (every updated document)
//	DELETE FROM "t" WHERE _ferretdb_sjson->'$._id' IN (?, …)                 (deleted documents)
//
// but the unique `_id_` index it creates for every collection is on `_ferretdb_sjson->"_id"`. SQLite uses an index
// on an expression only when the query spells the very same expression, so its planner SCANs the whole table for
// every read, update and delete by `_id` (measured: findOne 6 ms at 1,000 documents, 74–98 ms at 20,000;
// the platform's performance notes). FerretDB 2.x has no SQLite backend to upgrade to, so the launcher gives every
// collection table one more, plain index on exactly the pushed-down expression: at start for the tables already in
// the data folder (before the listener opens), then, through a watcher, for every table FerretDB creates later.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver FerretDB itself uses (same module version, same process)
)

const (
	// idExpr is FerretDB's metadata.IDColumn (internal/backends/sqlite/metadata/metadata.go).
	idExpr = `_ferretdb_sjson->'$._id'`
	// collectionsTable is FerretDB's metadataTableName: one row per collection, with its table_name.
	collectionsTable = "_ferretdb_collections"
	// idIndexSuffix names the extra index "<table>__herald_id"; FerretDB names its own "<table>_<mongo index name>".
	idIndexSuffix = "__herald_id"
)

// missingQuery lists the collection tables of one database file that lack the extra index.
var missingQuery = fmt.Sprintf(
	`SELECT c.table_name FROM %q c WHERE NOT EXISTS (`+
		`SELECT 1 FROM sqlite_master s WHERE s.type = 'index' AND s.tbl_name = c.table_name AND s.name = c.table_name || '%s')`,
	collectionsTable, idIndexSuffix,
)

func idIndexDDL(table string) string {
	return fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, table+idIndexSuffix, table, idExpr)
}

// openFile opens one database file of the data folder; mode "ro" or "rw", never creating it.
func openFile(file, mode string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?mode="+mode+"&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func missingTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, missingQuery)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil // a database file FerretDB is still creating
		}
		return nil, err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, rows.Err()
}

// ensureIDIndexes adds the extra index to every collection table of one database file that lacks it and returns
// how many it added. It looks through a read-only connection first and writes only when something is missing.
func ensureIDIndexes(ctx context.Context, file string) (int, error) {
	ro, err := openFile(file, "ro")
	if err != nil {
		return 0, err
	}
	missing, err := missingTables(ctx, ro)
	_ = ro.Close()
	if _, statErr := os.Stat(file); errors.Is(statErr, os.ErrNotExist) {
		// FerretDB dropped the database while this connection held it open: its last close could then not take
		// the lock it needs to remove the write-ahead log, and a later database of the same name would read it.
		_ = os.Remove(file + "-wal")
		_ = os.Remove(file + "-shm")
		return 0, nil
	}
	if err != nil || len(missing) == 0 {
		return 0, err
	}

	rw, err := openFile(file, "rw")
	if err != nil {
		return 0, err
	}
	defer rw.Close()
	added := 0
	for _, table := range missing {
		if _, err := rw.ExecContext(ctx, idIndexDDL(table)); err != nil {
			if strings.Contains(err.Error(), "no such table") {
				continue // dropped meanwhile
			}
			return added, fmt.Errorf("%s: %w", table, err)
		}
		added++
	}
	return added, nil
}

func databaseFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "*.sqlite"))
}

// ensureAll runs ensureIDIndexes over every database file of the data folder.
func ensureAll(ctx context.Context, dir string) error {
	files, err := databaseFiles(dir)
	if err != nil {
		return err
	}
	for _, file := range files {
		start := time.Now()
		n, err := ensureIDIndexes(ctx, file)
		if err != nil {
			return fmt.Errorf("_id index in %s: %w", file, err)
		}
		if n > 0 {
			log.Printf("mongo-wire: added the _id index to %d collection(s) of %s in %s", n, filepath.Base(file),
				time.Since(start).Round(time.Millisecond))
		}
	}
	return nil
}

// signature changes whenever a database file or its write-ahead log is written (a new table is a write).
type signature struct {
	dbSize, walSize   int64
	dbMtime, walMtime int64
}

func fileSignature(file string) (signature, bool) {
	st, err := os.Stat(file)
	if err != nil {
		return signature{}, false
	}
	s := signature{dbSize: st.Size(), dbMtime: st.ModTime().UnixNano()}
	if wal, err := os.Stat(file + "-wal"); err == nil {
		s.walSize, s.walMtime = wal.Size(), wal.ModTime().UnixNano()
	}
	return s, true
}

// watchIDIndexes re-checks, every interval, each database file written since its last check, so that a collection
// created while the server runs gets its index within about one interval (its table is then nearly empty).
func watchIDIndexes(ctx context.Context, dir string, every time.Duration) {
	seen := map[string]signature{}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		files, err := databaseFiles(dir)
		if err != nil {
			log.Printf("mongo-wire: _id index watcher: %v", err)
			continue
		}
		next := make(map[string]signature, len(files))
		for _, file := range files {
			sig, ok := fileSignature(file)
			if !ok {
				continue // dropped
			}
			if prev, known := seen[file]; known && prev == sig {
				next[file] = sig
				continue
			}
			if _, err := ensureIDIndexes(ctx, file); err != nil {
				if _, exists := fileSignature(file); exists && !errors.Is(err, context.Canceled) {
					log.Printf("mongo-wire: _id index watcher: %s: %v", filepath.Base(file), err)
				}
				continue // not recorded: tried again next tick
			}
			next[file] = sig
		}
		seen = next
	}
}
