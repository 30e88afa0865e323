package main

import (
	"context"
	"log/slog"
	"slices"
)

// lazyAttrs is the handler of the logger given to FerretDB: it keeps the attributes of Logger.With and formats them only
// for a record that is written. FerretDB's SQL layer (internal/util/fsql) calls With with every statement's arguments
// — whole stored documents as JSON text — before each Debug call, and slog's own handlers format such attributes at
// once, whatever the level: a profile of bench/delivery found ≈ 5 % of the server's CPU quoting documents into log
// lines that the Info level then drops. Records that are written come out as the wrapped handler writes them, with one
// difference that FerretDB's calls never meet: a value that is a mutable slice or map is formatted as it is when the
// record is written, not as it was at With (LogValuers are resolved at With, as slog's handlers do).
type lazyAttrs struct {
	inner slog.Handler
	attrs []slog.Attr
}

func newLazyLogger(inner slog.Handler) *slog.Logger { return slog.New(lazyAttrs{inner: inner}) }

func (h lazyAttrs) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h lazyAttrs) Handle(ctx context.Context, r slog.Record) error {
	return h.materialize().Handle(ctx, r)
}

func (h lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	kept := slices.Clip(h.attrs) // a sibling's append must not write into this handler's array
	for _, a := range attrs {
		a.Value = a.Value.Resolve()
		kept = append(kept, a)
	}
	return lazyAttrs{inner: h.inner, attrs: kept}
}

// WithGroup applies the kept attributes first: they belong outside the group (rare in FerretDB, so done at once).
func (h lazyAttrs) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return lazyAttrs{inner: h.materialize().WithGroup(name)}
}

func (h lazyAttrs) materialize() slog.Handler {
	if len(h.attrs) == 0 {
		return h.inner
	}
	return h.inner.WithAttrs(h.attrs)
}
