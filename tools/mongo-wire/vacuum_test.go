package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/FerretDB/wire/wirebson"
)

// pragmaInt reads one integer PRAGMA of a database file.
func pragmaInt(t *testing.T, file, pragma string) int {
	t.Helper()
	db, err := openFile(file, "ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("PRAGMA " + pragma).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A database the launcher's FerretDB creates is in incremental auto-vacuum mode: after a delete of most of a
// collection, vacuumFile returns the free pages and the file shrinks.
func TestVacuumReturnsFreedPages(t *testing.T) {
	dir := t.TempDir()
	conn := startFerretDB(t, dir)
	docs := wirebson.MakeArray(4000)
	for i := range 4000 {
		must(t, docs.Add(wirebson.MustDocument("_id", fmt.Sprintf("d%05d", i), "body", strings.Repeat("x", 2000))))
	}
	command(t, conn, "insert", "docs", "documents", docs)
	command(t, conn, "delete", "docs", "deletes", wirebson.MustArray(wirebson.MustDocument("q", wirebson.MustDocument(), "limit", int32(0))))
	file := filepath.Join(dir, "herald.sqlite")
	if mode := pragmaInt(t, file, "auto_vacuum"); mode != autoVacuumIncremental {
		t.Fatalf("auto_vacuum %d, want incremental (%d)", mode, autoVacuumIncremental)
	}
	free := pragmaInt(t, file, "freelist_count")
	pages := pragmaInt(t, file, "page_count")
	if free < 1000 {
		t.Fatalf("only %d free pages after the delete", free)
	}
	if n, err := vacuumFile(context.Background(), file, free+1); err != nil || n != 0 {
		t.Fatalf("below its threshold: returned %d (%v), want none", n, err)
	}
	n, err := vacuumFile(context.Background(), file, 256)
	if err != nil || n != free || pragmaInt(t, file, "freelist_count") != 0 {
		t.Fatalf("returned %d of %d free pages (%v)", n, free, err)
	}
	if left := pragmaInt(t, file, "page_count"); left > pages-free {
		t.Fatalf("%d pages after, %d before with %d free", left, pages, free)
	}
}

// An old database (auto_vacuum none) is rewritten by -compact in incremental mode, its free pages gone; a folder a
// server holds is refused.
func TestCompactConvertsAnOldFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "old.sqlite")
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE TABLE t (x TEXT)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO t SELECT printf('%.2000c', 'x') FROM n",
		"DELETE FROM t",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if mode := pragmaInt(t, file, "auto_vacuum"); mode != 0 {
		t.Fatalf("auto_vacuum %d before, want none", mode)
	}
	before := folderFileSize(file)

	lock, err := lockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := compactFolder(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("compact of a held folder: %v", err)
	}
	lock.Close()

	if err := compactFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	after := folderFileSize(file)
	if mode := pragmaInt(t, file, "auto_vacuum"); mode != autoVacuumIncremental || after*10 > before {
		t.Fatalf("after compact: auto_vacuum %d, %d → %d bytes", mode, before, after)
	}
}
