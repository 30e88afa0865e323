package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newFerretFile makes a database file shaped as FerretDB v1.24.2 makes it (registry.go): the collections table, one
// STRICT collection table and FerretDB's own unique `_id_` index on `_ferretdb_sjson->"_id"`.
func newFerretFile(t *testing.T, dir, name string, tables ...string) string {
	t.Helper()
	file := filepath.Join(dir, name+".sqlite")
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %q (name TEXT NOT NULL UNIQUE, table_name TEXT NOT NULL UNIQUE, settings TEXT NOT NULL) STRICT`, collectionsTable))
	for _, table := range tables {
		addFerretTable(t, db, table)
	}
	return file
}

func addFerretTable(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE %q (_ferretdb_sjson TEXT NOT NULL CHECK(_ferretdb_sjson != '')) STRICT`, table))
	mustExec(t, db, fmt.Sprintf(`INSERT INTO %q (name, table_name, settings) VALUES (?, ?, '{}')`, collectionsTable), table, table)
	mustExec(t, db, fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (_ferretdb_sjson->"_id")`, table+"__id_", table))
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// plans returns SQLite's plan of the three statements FerretDB issues for a read, an update and a delete by _id.
func plans(t *testing.T, file, table string) map[string]string {
	t.Helper()
	db, err := openFile(file, "ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The statements of FerretDB's internal/backends/sqlite/collection.go (Query, UpdateAll, DeleteAll).
	stmts := map[string]struct {
		q    string
		args []any
	}{
		"select": {fmt.Sprintf(`SELECT _ferretdb_sjson FROM %q WHERE %s = ?`, table, idExpr), []any{`"x"`}},
		"update": {fmt.Sprintf(`UPDATE %q SET _ferretdb_sjson = ? WHERE %s = ?`, table, idExpr), []any{`{}`, `"x"`}},
		"delete": {fmt.Sprintf(`DELETE FROM %q WHERE %s IN (?, ?)`, table, idExpr), []any{`"x"`, `"y"`}},
	}
	out := map[string]string{}
	for kind, s := range stmts {
		rows, err := db.Query(`EXPLAIN QUERY PLAN `+s.q, s.args...)
		if err != nil {
			t.Fatalf("%s: %v", s.q, err)
		}
		var details []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			details = append(details, detail)
		}
		rows.Close()
		out[kind] = strings.Join(details, "; ")
	}
	return out
}

func assertIndexed(t *testing.T, file, table string, want bool) {
	t.Helper()
	for kind, plan := range plans(t, file, table) {
		uses := strings.Contains(plan, "USING INDEX "+table+idIndexSuffix)
		if uses != want {
			t.Errorf("%s on %s: plan %q, want the index used: %v", kind, table, plan, want)
		}
	}
}

func TestEnsureAllIndexesExistingTables(t *testing.T) {
	dir := t.TempDir()
	file := newFerretFile(t, dir, "herald", "deliveries_0a1b2c3d", "events_01020304")
	assertIndexed(t, file, "deliveries_0a1b2c3d", false) // FerretDB's own `_id_` index is not used: a SCAN
	if err := ensureAll(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	assertIndexed(t, file, "deliveries_0a1b2c3d", true)
	assertIndexed(t, file, "events_01020304", true)
	if n, err := ensureIDIndexes(context.Background(), file); err != nil || n != 0 {
		t.Fatalf("second pass: added %d, err %v; want 0, nil", n, err)
	}
}

func TestWatcherIndexesLaterTablesAndDatabases(t *testing.T) {
	dir := t.TempDir()
	file := newFerretFile(t, dir, "herald", "events_01020304")
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { watchIDIndexes(ctx, dir, 20*time.Millisecond); close(stopped) }()
	// Stopped before the temporary folder is removed (cleanups run last in, first out): a watcher still opening a
	// database there left a file behind in CI ("directory not empty").
	t.Cleanup(func() { cancel(); <-stopped })

	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	addFerretTable(t, db, "attempts_0badf00d")
	other := newFerretFile(t, dir, "other", "subscriptions_11223344")

	deadline := time.Now().Add(5 * time.Second)
	for _, c := range []struct{ file, table string }{{file, "attempts_0badf00d"}, {other, "subscriptions_11223344"}} {
		for !strings.Contains(plans(t, c.file, c.table)["select"], "USING INDEX") {
			if time.Now().After(deadline) {
				t.Fatalf("%s never got its index", c.table)
			}
			time.Sleep(10 * time.Millisecond)
		}
		assertIndexed(t, c.file, c.table, true)
	}
}
