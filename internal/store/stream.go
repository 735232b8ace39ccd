package store

import (
	"bytes"
	"strings"
)

// Stream redacts text that arrives in pieces (a hook's stderr), carrying across piece and
// line boundaries: a secret split over two writes, or one that spans lines (a PEM key), is
// replaced whole. It holds back the last bytes that could begin a secret until more arrive
// or Flush. Its output is valid UTF-8.
type Stream struct {
	r       *Redactor
	pending []byte
}

// Stream returns a stream redactor; r may be nil (nothing to redact).
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Write takes the next piece and returns the redacted text that is safe to pass on.
func (s *Stream) Write(p []byte) []byte {
	s.pending = append(s.pending, p...)
	if s.r == nil || s.r.none {
		return s.take(len(s.pending))
	}
	cut := len(s.pending) - (s.r.maxLen - 1)
	for moved := true; moved && cut > 0; {
		// An occurrence that starts before cut and ends after it is held back whole.
		moved = false
		for _, f := range s.r.forms {
			from := max(0, cut-len(f)+1)
			if i := bytes.Index(s.pending[from:], []byte(f)); i >= 0 && from+i < cut {
				cut, moved = from+i, true
			}
		}
	}
	// Never cut inside a UTF-8 sequence.
	for cut > 0 && cut < len(s.pending) && s.pending[cut]&0xC0 == 0x80 {
		cut--
	}
	if cut <= 0 {
		return nil
	}
	return s.take(cut)
}

// Flush returns what is held back, redacted.
func (s *Stream) Flush() []byte { return s.take(len(s.pending)) }

func (s *Stream) take(n int) []byte {
	text := strings.ToValidUTF8(string(s.pending[:n]), "\uFFFD")
	s.pending = append(s.pending[:0:0], s.pending[n:]...)
	return []byte(s.r.String(text))
}
