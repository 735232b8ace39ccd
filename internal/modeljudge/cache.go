package modeljudge

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/store"
)

// cacheEntry is one answer kept by fingerprint: the protocol, the server, the requested
// model and the prompt's hash. The model the server reported is kept with it, so a cached
// answer is reported as the judge's that gave it.
type cacheEntry struct {
	ReportedModel string          `json:"reported_model"`
	Contents      []string        `json:"contents"`
	Request       json.RawMessage `json:"request,omitempty"`
	Response      json.RawMessage `json:"response,omitempty"`
}

func (j *Judge) cached(key string) (cacheEntry, bool) {
	var e cacheEntry
	if j.cfg.CacheDir == "" {
		return e, false
	}
	data, err := os.ReadFile(filepath.Join(j.cfg.CacheDir, key+".json"))
	if err != nil || json.Unmarshal(data, &e) != nil {
		return e, false // a missing or damaged entry is asked again
	}
	return e, true
}

func (j *Judge) store(key string, e cacheEntry) {
	if j.cfg.CacheDir == "" {
		return
	}
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	// Best effort: an answer that cannot be cached is asked again next time.
	_ = store.WriteFile(filepath.Join(j.cfg.CacheDir, key+".json"), data)
}
