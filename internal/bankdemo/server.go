// Package bankdemo is a small banking agent behind an HTTP API in the shape of Rook's demo
// targets: a health check, sessions, chat, close, and an evidence endpoint that returns
// the whole session's calls, usage, effects and traces. The project's tests run Rook-shaped
// hooks and suites against it on 127.0.0.1; its replies are deterministic.
package bankdemo

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Server serves the agent. Every request but /health needs the bearer token it was made
// with, when that is not empty.
type Server struct {
	token string
	mux   *http.ServeMux

	mu       sync.Mutex
	sessions map[string]*session
	counts   map[string]int
}

// New returns a server that requires token (none when empty).
func New(token string) *Server {
	s := &Server{token: token, mux: http.NewServeMux(), sessions: map[string]*session{}, counts: map[string]int{}}
	s.mux.HandleFunc("GET /health", s.health)
	s.mux.HandleFunc("POST /api/sessions", s.auth(s.open))
	s.mux.HandleFunc("POST /api/sessions/{id}/chat", s.auth(s.withSession(s.chat)))
	s.mux.HandleFunc("POST /api/sessions/{id}/close", s.auth(s.withSession(s.close)))
	s.mux.HandleFunc("GET /api/sessions/{id}/evidence", s.auth(s.withSession(s.evidence)))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Count returns how many requests of a kind were served: "health", "open", "chat",
// "close" or "evidence".
func (s *Server) Count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[kind]
}

func (s *Server) count(kind string) {
	s.mu.Lock()
	s.counts[kind]++
	s.mu.Unlock()
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client hung up: nothing to tell it
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"error": msg})
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	s.count("health")
	reply(w, http.StatusOK, map[string]any{"status": "ok", "service": "bankdemo"})
}

func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
			fail(w, http.StatusUnauthorized, "missing or wrong bearer token")
			return
		}
		next(w, r)
	}
}

func (s *Server) withSession(next func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		sess := s.sessions[r.PathValue("id")]
		s.mu.Unlock()
		if sess == nil {
			fail(w, http.StatusNotFound, "no such session")
			return
		}
		next(w, r, sess)
	}
}

func (s *Server) open(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Engine  string `json:"engine"`
		Variant string `json:"variant"`
		Fault   string `json:"fault"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "bad session request: "+err.Error())
		return
	}
	id, err := uuid()
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	sess := newSession(id, req.Engine, req.Variant)
	s.mu.Lock()
	s.sessions[id] = sess
	s.counts["open"]++
	s.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{"conversation": id, "engine": req.Engine, "variant": req.Variant})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, sess *session) {
	var req struct {
		Goal string `json:"goal"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || strings.TrimSpace(req.Goal) == "" {
		fail(w, http.StatusBadRequest, "chat needs a goal")
		return
	}
	s.count("chat")
	turn, err := sess.chat(req.Goal)
	if err != nil {
		fail(w, http.StatusConflict, err.Error())
		return
	}
	reply(w, http.StatusOK, turn)
}

func (s *Server) close(w http.ResponseWriter, _ *http.Request, sess *session) {
	s.count("close")
	sess.close()
	reply(w, http.StatusOK, map[string]any{"closed": true})
}

func (s *Server) evidence(w http.ResponseWriter, _ *http.Request, sess *session) {
	s.count("evidence")
	reply(w, http.StatusOK, sess.evidence())
}

// uuid is a random version 4 UUID.
func uuid() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a session id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}
