package helpdesk_test

import (
	"github.com/rookgo/rookgo/examples/helpdeskagent"
	"github.com/rookgo/rookgo/rooktest"
)

// The helpdesk agent written in Go, for profile demo-go (hooks: {go: helpdesk}).
func init() { rooktest.RegisterAgent("helpdesk", helpdeskagent.New) }
