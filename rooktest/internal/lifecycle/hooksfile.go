package lifecycle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
)

// The store of an attempt's hooks.json: read back before anything runs, written before
// and after every hook (InFlight marks the one running), kept aside when a conversation
// cannot be continued.

func (a *attemptRun) fresh() bool {
	h := a.hooks.Phases
	return h.Open == nil && h.Execute == nil && h.Close == nil && h.Collect == nil
}

// recordedEnd is when the last recorded phase ended, so that a delay counts from there.
func (a *attemptRun) recordedEnd() time.Time {
	var last time.Time
	h := a.hooks.Phases
	for _, rec := range []*PhaseRecord{h.Open, h.Execute, h.Close, h.Collect} {
		if rec == nil {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, rec.EndedAt); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}

func (a *attemptRun) save() {
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "hooks.json"), a.hooks))
}

// load reads the attempt's hooks.json, if any. A file that does not parse is refused.
func (a *attemptRun) load() error {
	data, err := os.ReadFile(filepath.Join(a.dir, "hooks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(a.dir, "hooks.json"), err)
	}
	var h HooksFile
	if err := decodeJSON(data, &h); err != nil {
		return fmt.Errorf("%s is corrupt: %w", filepath.Join(a.dir, "hooks.json"), err)
	}
	p := h.Phases
	for _, rec := range []*PhaseRecord{p.Open, p.Execute, p.Close, p.Collect} {
		if rec == nil {
			continue
		}
		hook.Numbers(rec.Data)
		for _, t := range rec.Turns {
			hook.Numbers(t.Data)
		}
	}
	a.hooks = h
	return nil
}

// decodeJSON decodes a record with numbers as the hooks printed them.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
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
	a.hooks = HooksFile{Version: 1}
	return kept, nil
}
