package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/store"
)

// Handler serves the site read-only: GET and HEAD of its pages, and _version, which
// changes when the records do (the pages poll it and reload). Every response forbids
// what the pages never need: scripts from anywhere but the site, frames, forms, and
// requests to other hosts.
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' "+scriptHashes()+"; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		p := strings.TrimPrefix(path.Clean("/"+req.URL.Path), "/")
		if p == "" || strings.HasSuffix(req.URL.Path, "/") {
			p = path.Join(p, "index.html")
		}
		if p == "_version" {
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("Cache-Control", "no-store")
			fmt.Fprint(w, s.Version())
			return
		}
		var b bytes.Buffer
		err := s.Render(&b, p)
		if errors.Is(err, ErrNotFound) {
			http.NotFound(w, req)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		switch path.Ext(p) {
		case ".css":
			h.Set("Content-Type", "text/css; charset=utf-8")
		case ".js":
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		default:
			h.Set("Content-Type", "text/html; charset=utf-8")
		}
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(b.Bytes())
	})
}

// scriptHashes allow the one inline script the pages have: the run page's filter.
func scriptHashes() string {
	return "'" + page.ScriptHash() + "'"
}

// Version changes when the records do: a run is added or removed, or a run's run.yaml,
// report.yaml, or a scenario's verdict or hooks.json is written. The newest run of each
// agent is the one a test may be writing, so only its scenarios are looked into.
func (s *Site) Version() string {
	h := sha256.New()
	stamp := func(p string) {
		if info, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", p, info.ModTime().UnixNano(), info.Size())
		}
	}
	newest := map[string]bool{}
	for _, r := range store.ListRuns(s.Root, "") {
		fmt.Fprintln(h, r.Dir)
		stamp(filepath.Join(r.Dir, "run.yaml"))
		stamp(filepath.Join(r.Dir, "report.yaml"))
		if newest[r.Agent] {
			continue
		}
		newest[r.Agent] = true
		dirs, _ := os.ReadDir(filepath.Join(r.Dir, "scenarios"))
		for _, d := range dirs {
			sdir := filepath.Join(r.Dir, "scenarios", d.Name())
			stamp(filepath.Join(sdir, "verdict.yaml"))
			stamp(filepath.Join(sdir, "hooks.json"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Loopback refuses an address to listen on that is not the loopback interface: records
// hold agents' replies and hooks' output, which are not for the network.
func Loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %s: the view serves records only on the loopback interface (127.0.0.1 or [::1])", addr)
	}
	return nil
}

// LoopbackHosts serves h only to requests whose Host header names the loopback interface
// (localhost, 127.0.0.1, [::1]) or the host of addr, the address the view was asked to
// listen on: a web page elsewhere that rebinds its own name to 127.0.0.1 cannot read the
// records through a visitor's browser.
func LoopbackHosts(h http.Handler, addr string) http.Handler {
	given, _, _ := net.SplitHostPort(addr)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		host := req.Host
		if hn, _, err := net.SplitHostPort(host); err == nil {
			host = hn
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		ip := net.ParseIP(host)
		if !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) && !strings.EqualFold(host, given) {
			http.Error(w, "the view answers only requests for a loopback host name (localhost, 127.0.0.1, [::1])", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, req)
	})
}
