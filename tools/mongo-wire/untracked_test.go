package main

// Why the launcher patches FerretDB's leak tracking away (ferretdb-untracked.patch; main.go has the profile): FerretDB
// v1.24.2 records every iterator and cursor it opens in a pprof profile named after its type ("FerretDB/…", with
// the stack trace of its creation) and sets a finalizer on it. Built with the patch, no such profile exists after
// queries ran.

import (
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/FerretDB/wire/wirebson"
)

func TestNoLeakTrackingProfiles(t *testing.T) {
	conn := startFerretDB(t, t.TempDir())
	command(t, conn, "insert", "docs", "documents", wirebson.MustArray(wirebson.MustDocument("_id", "a")))
	if ids := foundIDs(t, conn, wirebson.MustDocument()); len(ids) != 1 {
		t.Fatalf("found %v, want one document", ids)
	}
	for _, p := range pprof.Profiles() {
		if strings.HasPrefix(p.Name(), "FerretDB/") {
			t.Fatalf("profile %q (%d entries): FerretDB's leak tracking is on; build with %s", p.Name(), p.Count(), withPatch)
		}
	}
}
