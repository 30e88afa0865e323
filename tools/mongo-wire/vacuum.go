package main

// Disk that is given back (issue 44 item 5). FerretDB opens SQLite with auto_vacuum none unless told otherwise: pages
// freed by deletes (Herald's retention purge) are reused, but a database file never shrinks. The launcher opens every
// database with auto_vacuum incremental (main.go's SQLiteURL; SQLite applies it to a database created that way, not
// to an existing one), and returns free pages to the file system in small steps while it runs (vacuumLoop). An old
// data folder made without it is converted once, offline, by -compact (compactFolder): VACUUM rewrites each file in
// incremental mode. A lock file keeps -compact from running on a folder a server is serving.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

const (
	// autoVacuumIncremental is PRAGMA auto_vacuum's answer for incremental mode.
	autoVacuumIncremental = 2
	// vacuumStepPages bounds one incremental_vacuum transaction (4 KiB pages: 1 MiB): it holds the database's write
	// lock while it moves pages, so every other writer waits for it; a step of 2,048 pages held it long enough to
	// show in live writes' tails during a purge.
	vacuumStepPages = 256
)

// vacuumRest is the pause after a step, as long as the step took: the vacuum holds the write lock half the time at
// most, and writers queued behind a step go before the next one.
func vacuumRest(ctx context.Context, took time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(took):
	}
}

// vacuumFile returns the free pages of one database file once there are at least minFree, in steps of
// vacuumStepPages, and answers how many it returned. A file not in incremental mode is left alone (see -compact).
func vacuumFile(ctx context.Context, file string, minFree int) (int, error) {
	db, err := openFile(file, "rw")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var mode, free int
	if err := db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil || mode != autoVacuumIncremental {
		return 0, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil || free < minFree {
		return 0, err
	}
	returned := 0
	var took time.Duration
	for free > 0 {
		if returned > 0 {
			vacuumRest(ctx, took)
		}
		started := time.Now()
		// One step of the statement returns one page: read it to its end (Exec would step it once).
		rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", min(free, vacuumStepPages)))
		if err != nil {
			return returned, err
		}
		for rows.Next() {
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return returned, err
		}
		took = time.Since(started)
		before := free
		if err := db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return returned, err
		}
		if free >= before {
			return returned, nil // nothing returned: another writer keeps freeing pages, or none can move
		}
		returned += before - free
	}
	return returned, nil
}

// vacuumLoop runs vacuumFile over every database file of dir every interval until ctx ends.
func vacuumLoop(ctx context.Context, dir string, every time.Duration, minFree int) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		files, err := databaseFiles(dir)
		if err != nil {
			log.Printf("vacuum: %v", err)
			continue
		}
		for _, file := range files {
			if n, err := vacuumFile(ctx, file, minFree); err != nil && ctx.Err() == nil {
				log.Printf("vacuum %s: %v", filepath.Base(file), err)
			} else if n > 0 {
				log.Printf("vacuum %s: returned %d free pages", filepath.Base(file), n)
			}
		}
	}
}

// lockFolder takes the data folder's lock file (flock, released when the process ends): a server holds it while it
// serves, and -compact refuses a folder whose lock it cannot take.
func lockFolder(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ".mongo-wire.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is in use by a running mongo-wire: stop it first", dir)
	}
	return f, nil
}

// compactFolder rewrites every database file of dir in incremental auto_vacuum mode (VACUUM), returning its free
// pages, and reports each file's size before and after. The folder must not be served meanwhile (lockFolder).
func compactFolder(ctx context.Context, dir string) error {
	lock, err := lockFolder(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	files, err := databaseFiles(dir)
	if err != nil {
		return err
	}
	for _, file := range files {
		before := folderFileSize(file)
		if err := compactFile(ctx, file); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(file), err)
		}
		fmt.Printf("compacted %s: %d → %d bytes\n", filepath.Base(file), before, folderFileSize(file))
	}
	return nil
}

func compactFile(ctx context.Context, file string) error {
	db, err := openFile(file, "rw")
	if err != nil {
		return err
	}
	defer db.Close()
	for _, stmt := range []string{"PRAGMA auto_vacuum = INCREMENTAL", "VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// folderFileSize is a database file's size with its write-ahead log.
func folderFileSize(file string) int64 {
	var total int64
	for _, f := range []string{file, file + "-wal"} {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	return total
}
