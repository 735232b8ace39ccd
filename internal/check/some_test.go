package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSome(t *testing.T) {
	assert.Equal(t, "", Some(nil, 3))
	assert.Equal(t, "a, b, c", Some([]string{"a", "b", "c"}, 3))
	assert.Equal(t, "a, b and 2 more", Some([]string{"a", "b", "c", "d"}, 2))
}
