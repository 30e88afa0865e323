package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// countingHandler counts the WithAttrs calls that reach the wrapped handler (the eager formatting lazyAttrs avoids).
type countingHandler struct {
	slog.Handler
	withAttrs *int
}

func (h countingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	*h.withAttrs++
	return countingHandler{h.Handler.WithAttrs(attrs), h.withAttrs}
}

func (h countingHandler) WithGroup(name string) slog.Handler {
	return countingHandler{h.Handler.WithGroup(name), h.withAttrs}
}

func textHandler(buf *bytes.Buffer) slog.Handler {
	return slog.NewTextHandler(buf, &slog.HandlerOptions{
		Level: slog.LevelInfo,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	})
}

func TestLazyLoggerFormatsNothingForDroppedRecords(t *testing.T) {
	var buf bytes.Buffer
	calls := 0
	l := newLazyLogger(countingHandler{textHandler(&buf), &calls})
	// As FerretDB's fsql does for every statement.
	for i := 0; i < 100; i++ {
		l.With(slog.Any("args", []any{`{"_id":"x","body":"` + strings.Repeat("y", 1000) + `"}`})).
			DebugContext(context.Background(), ">>> UPDATE t SET _ferretdb_sjson = ?")
	}
	if calls != 0 || buf.Len() != 0 {
		t.Fatalf("a dropped record reached the handler: %d WithAttrs calls, output %q", calls, buf.String())
	}
}

func TestLazyLoggerWritesWhatTheWrappedHandlerWrites(t *testing.T) {
	var lazy, eager bytes.Buffer
	log := func(l *slog.Logger) {
		l = l.With("conn", "127.0.0.1:1", slog.Int("n", 1))
		l.Info("accepted", "extra", true)
		l.With("a", "b").WithGroup("g").With("inner", 2).Warn("grouped", "k", "v")
		valued := l.With("v", &counter{}) // resolved once, at With: both records say v=1
		valued.Info("valuer")
		valued.Info("valuer")
		l.Error("plain")
		l.Debug("dropped")
	}
	log(newLazyLogger(textHandler(&lazy)))
	log(slog.New(textHandler(&eager)))
	if lazy.String() != eager.String() {
		t.Fatalf("lazy:\n%s\neager:\n%s", lazy.String(), eager.String())
	}
	for _, want := range []string{`msg=accepted conn=127.0.0.1:1 n=1 extra=true`, `a=b g.inner=2 g.k=v`, `msg=valuer conn=127.0.0.1:1 n=1 v=1`, `msg=plain`} {
		if !strings.Contains(lazy.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, lazy.String())
		}
	}
}

// counter is a LogValuer that counts its resolutions.
type counter struct{ n int }

func (c *counter) LogValue() slog.Value { c.n++; return slog.IntValue(c.n) }

func TestLazyLoggerKeepsSiblingsApart(t *testing.T) {
	var buf bytes.Buffer
	base := newLazyLogger(textHandler(&buf))
	for i := 0; i < 13; i++ { // past the slice's first capacities, so that appends could share an array
		base = base.With(fmt.Sprintf("k%d", i), i)
	}
	x := base.With("x", 1)
	_ = base.With("y", 2)
	x.Info("sibling")
	if out := buf.String(); !strings.Contains(out, "x=1") || strings.Contains(out, "y=2") {
		t.Fatalf("a sibling's attribute leaked in: %s", out)
	}
}

func TestLazyAttrsEmptyCallsChangeNothing(t *testing.T) {
	h := lazyAttrs{inner: textHandler(&bytes.Buffer{}), attrs: []slog.Attr{slog.Int("a", 1)}}
	if got := h.WithAttrs(nil).(lazyAttrs); len(got.attrs) != 1 || got.inner != h.inner {
		t.Fatalf("WithAttrs(nil) changed the handler: %+v", got)
	}
	if got := h.WithGroup("").(lazyAttrs); len(got.attrs) != 1 || got.inner != h.inner {
		t.Fatalf("WithGroup(\"\") changed the handler: %+v", got)
	}
}
