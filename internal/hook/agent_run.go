package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"
)

// maxStack bounds the stack a panic leaves in the record.
const maxStack = 16 << 10

// agentMethod is the phase's method of a, nil when a does not implement the phase.
func agentMethod(a Agent, phase string) func(context.Context, Call) (Reply, error) {
	switch phase {
	case "execute":
		return a.Execute
	case "prepare":
		if p, ok := a.(Preparer); ok {
			return p.Prepare
		}
	case "open":
		if o, ok := a.(Opener); ok {
			return o.Open
		}
	case "close":
		if c, ok := a.(Closer); ok {
			return c.Close
		}
	case "collect":
		if c, ok := a.(Collector); ok {
			return c.Collect
		}
	}
	return nil
}

// RunAgent calls the phase c.Phase of a, as Run runs a hook: within timeout (the phase's
// deadline is the context's), its Reply as the hook's stdout, an error as a non-zero
// exit with the error as its stderr, a panic as a failure with its stack. A method that is
// still running KillGrace after its context ended ignored it: it fails, and its
// goroutine, which nothing can stop, is named as left running. What the agent writes to
// os.Stdout is never read as its output.
func RunAgent(ctx context.Context, a Agent, name string, c Call, timeout time.Duration) (*Result, error) {
	res := &Result{Started: time.Now()}
	m := agentMethod(a, c.Phase)
	if m == nil {
		res.Ended, res.ExitCode = time.Now(), -1
		return res, fmt.Errorf("go:%s has no %s method", name, c.Phase)
	}
	if err := ctx.Err(); err != nil {
		res.Ended, res.ExitCode, res.Stopped = time.Now(), -1, true
		return res, fmt.Errorf("stopped before it started: %w", context.Cause(ctx))
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	done := startAgent(runCtx, m, c)
	var ans agentAnswer
	select {
	case ans = <-done:
	case <-runCtx.Done():
		// The method is asked to stop; one that still runs KillGrace later ignored it.
		grace := time.NewTimer(KillGrace)
		defer grace.Stop()
		select {
		case ans = <-done:
		case <-grace.C:
			return ignoredAgent(ctx, res, name, c.Phase, timeout)
		}
	}
	res.Ended = time.Now()
	return finishAgent(ctx, runCtx, res, ans, timeout)
}

// agentAnswer is what a phase's method came back with.
type agentAnswer struct {
	reply Reply
	err   error
	panic string
}

// startAgent calls m in a goroutine of its own, a panic recovered with its stack, and returns
// where its agentAnswer will be: a channel with room for it, so that an abandoned method never
// blocks.
func startAgent(ctx context.Context, m func(context.Context, Call) (Reply, error), c Call) <-chan agentAnswer {
	done := make(chan agentAnswer, 1)
	go func() {
		var ans agentAnswer
		defer func() {
			if p := recover(); p != nil {
				stack := debug.Stack()
				if len(stack) > maxStack {
					stack = stack[:maxStack]
				}
				ans.panic = fmt.Sprintf("panic: %v\n\n%s", p, stack)
			}
			done <- ans
		}()
		ans.reply, ans.err = m(ctx, c)
	}()
	return done
}

// ignoredAgent is the result of a method still running KillGrace after its context ended: its
// goroutine is named as left running.
func ignoredAgent(ctx context.Context, res *Result, name, phase string, timeout time.Duration) (*Result, error) {
	res.Ended, res.ExitCode = time.Now(), -1
	res.Left = []string{fmt.Sprintf("the goroutine of go:%s's %s method, which did not return within %s of its context's end", name, phase, KillGrace)}
	if ctx.Err() != nil {
		res.Stopped = true
		return res, fmt.Errorf("stopped, and the method ignored its context: %w", context.Cause(ctx))
	}
	res.TimedOut = true
	return res, fmt.Errorf("timed out after %s, and the method ignored its context: its goroutine is left running", timeout)
}

// finishAgent is the result of a method that came back: its reply as the hook's stdout, or why
// the call failed.
func finishAgent(ctx, runCtx context.Context, res *Result, ans agentAnswer, timeout time.Duration) (*Result, error) {
	switch {
	case ans.panic != "":
		res.ExitCode, res.Stderr = 2, ans.panic
		return res, errors.New("panicked: " + firstLine(ans.panic))
	case runCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		res.ExitCode, res.TimedOut = -1, true
		if ans.err != nil {
			res.Stderr = ans.err.Error()
		}
		return res, fmt.Errorf("timed out after %s", timeout)
	case ctx.Err() != nil:
		res.ExitCode, res.Stopped = -1, true
		return res, fmt.Errorf("stopped: %w", context.Cause(ctx))
	case ans.err != nil:
		res.ExitCode, res.Stderr = 1, ans.err.Error()
		return res, fmt.Errorf("returned an error: %w", ans.err)
	}
	out, err := encodeReply(ans.reply)
	if err != nil {
		res.ExitCode, res.Stderr = 1, err.Error()
		return res, err
	}
	if len(out) > DefaultMaxStdout {
		res.Stdout, res.StdoutOverflow = out[:DefaultMaxStdout], true
		return res, fmt.Errorf("returned more than %d bytes", DefaultMaxStdout)
	}
	res.Stdout = out
	return res, nil
}

// encodeReply is the reply as the hook's one JSON object: its fields, and Data's other keys.
func encodeReply(r Reply) ([]byte, error) {
	fields, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode the reply: %w", err)
	}
	if len(r.Data) == 0 && r.Calls == nil {
		return append(fields, '\n'), nil
	}
	obj := map[string]any{}
	for k, v := range r.Data {
		obj[k] = v
	}
	// The reply's own fields stay the JSON they were encoded as: decoded into any, a whole
	// number past 2^53 in a call's arguments would come back rounded.
	var own map[string]json.RawMessage
	if err := json.Unmarshal(fields, &own); err != nil {
		return nil, fmt.Errorf("encode the reply: %w", err)
	}
	for k, v := range own {
		obj[k] = v
	}
	if r.Calls != nil && len(r.Calls) == 0 {
		obj["calls"] = []any{} // observed none, which an absent key would not say
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode the reply: %w", err)
	}
	return append(out, '\n'), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// GuardStdout escapes what is written to os.Stdout until restore is called: a Go agent runs
// in the test's process, and a line it prints that starts with go test's framing byte
// (0x16, "^V--- FAIL: TestG/SC-3") would be read by go test -json as an event of a test
// that does not exist. Every control byte but the newline and the tab is written as its Go
// escape (\x16), as a hook's output is shown escaped. The testing package keeps the
// os.Stdout it started with, so its own framing is untouched; anything else that prints to
// os.Stdout meanwhile is escaped too. restore writes out what is left and puts os.Stdout
// back.
func GuardStdout() (restore func()) {
	orig := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	os.Stdout = w
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		out := make([]byte, 0, 4*len(buf))
		for {
			n, err := r.Read(buf)
			out = out[:0]
			for _, c := range buf[:n] {
				if c < ' ' && c != '\n' && c != '\t' || c == 0x7f {
					out = fmt.Appendf(out, `\x%02x`, c)
					continue
				}
				out = append(out, c)
			}
			_, _ = orig.Write(out)
			if err != nil {
				return
			}
		}
	}()
	return func() {
		os.Stdout = orig
		_ = w.Close()
		<-done
		_ = r.Close()
	}
}
