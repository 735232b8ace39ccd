package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// The store of an attempt's hooks.json: read back before anything runs, written as every
// hook starts (record.InFlight marks the one running) and after the last, kept aside when a
// conversation cannot be continued.
//
// A hook's end is written with the next hook's start (one write and one sync per hook, not
// two), or before the judge, a stop or a delay_seconds wait: what is on disk is at most the
// parsing of one hook's output behind. A process that dies in that moment leaves the hook
// marked in flight, as if it had died a moment earlier, and a continued run treats it so.

func (a *attemptRun) fresh() bool {
	h := a.hooks.Phases
	return h.Open == nil && h.Execute == nil && h.Close == nil && h.Collect == nil
}

// recordedEnd is when the last recorded phase ended, so that a delay counts from there.
func (a *attemptRun) recordedEnd() time.Time {
	var last time.Time
	h := a.hooks.Phases
	for _, rec := range []*record.PhaseRecord{h.Open, h.Execute, h.Close, h.Collect} {
		if rec == nil {
			continue
		}
		if rec.EndedAt.After(last) {
			last = rec.EndedAt
		}
	}
	return last
}

func (a *attemptRun) save() {
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "hooks.json"), a.hooks))
	a.unsaved = false
}

// flush writes what ended and is not yet on disk.
func (a *attemptRun) flush() {
	if a.unsaved {
		a.save()
	}
}

// load reads the attempt's hooks.json, if any. A file that does not parse is refused.
func (a *attemptRun) load() error {
	h, err := store.ReadHooks(a.dir)
	if err != nil {
		return err
	}
	a.hooks = *h
	return nil
}

// abandon keeps the attempt's records aside in abandoned/<n>/ and starts it afresh.
func (a *attemptRun) abandon() (string, error) {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return "", fmt.Errorf("abandon %s: %w", a.dir, err)
	}
	var kept string
	for n := 1; ; n++ {
		kept = filepath.Join(a.dir, "abandoned", strconv.Itoa(n))
		if _, err := os.Stat(kept); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err := os.MkdirAll(kept, 0o755); err != nil {
		return "", fmt.Errorf("abandon %s: %w", a.dir, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "abandoned", "attempts", "snapshot.yaml":
			continue
		}
		if err := os.Rename(filepath.Join(a.dir, e.Name()), filepath.Join(kept, e.Name())); err != nil {
			return "", fmt.Errorf("abandon %s: %w", a.dir, err)
		}
	}
	a.hooks = record.Hooks{Version: 1}
	return kept, nil
}
