package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// unsetenv clears a variable for one test and puts it back after.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	if v, ok := os.LookupEnv(key); ok {
		t.Cleanup(func() { os.Setenv(key, v) })
	}
	os.Unsetenv(key)
}

func TestTuneRuntimeSetsGCPercentAndMemoryLimit(t *testing.T) {
	unsetenv(t, "GOGC")
	unsetenv(t, "GOMEMLIMIT")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	tuneRuntime(400, 1024)
	if got := debug.SetGCPercent(400); got != 400 {
		t.Fatalf("GOGC = %d, want 400", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1024<<20 {
		t.Fatalf("memory limit = %d, want %d", got, 1024<<20)
	}
}

func TestTuneRuntimeLeavesWhatTheEnvironmentSet(t *testing.T) {
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "512MiB")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	tuneRuntime(400, 1024)
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("GOGC = %d, want the 150 already in force", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("memory limit = %d, want it untouched", got)
	}
}
