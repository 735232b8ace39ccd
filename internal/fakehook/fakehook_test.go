package fakehook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMaxAlive(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	span := func(a, b int) Span { return Span{Start: at(a), End: at(b)} }
	assert.Equal(t, 0, MaxAlive(nil))
	assert.Equal(t, 1, MaxAlive([]Span{span(0, 10), span(10, 20)}), "one ends as the next starts")
	assert.Equal(t, 3, MaxAlive([]Span{span(0, 10), span(5, 15), span(8, 9), span(12, 30)}))
	assert.Equal(t, 2, MaxAlive([]Span{span(0, 100), span(1, 2), span(3, 4), span(5, 6)}))
}
