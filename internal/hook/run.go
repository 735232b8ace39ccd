// Package hook runs one hook as a subprocess under the hook contract: argv, environment and
// stdin in, one JSON object on stdout, stderr kept as the diagnosis, the whole process group
// killed on timeout. An agent written in Go is run under the same contract in the test's own
// process, one method per phase (agent.go, agent_run.go).
package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DefaultMaxStdout bounds what a hook may print on stdout.
const DefaultMaxStdout = 8 << 20

// KillGrace is how long a hook's process group has between SIGTERM and SIGKILL.
const KillGrace = 2 * time.Second

// MaxStreamedStderr is how much of a hook's stderr is streamed to the log: go test holds
// a test's log until it ends, so a hook flooding stderr must not fill the runner's memory.
// The rest is dropped from the log, and the tail is still kept.
const MaxStreamedStderr = 1 << 20

// stderrTail is how much of a hook's stderr is kept as its diagnosis.
const stderrTail = 16 << 10

// Spec is one hook invocation.
type Spec struct {
	// Argv is the program and its arguments.
	Argv []string
	// Dir is the working directory.
	Dir string
	// Env is the complete environment.
	Env []string
	// Stdin is written to the hook's standard input, then closed; empty means an empty stdin.
	Stdin string
	// Timeout kills the hook and its process group when it runs longer.
	Timeout time.Duration
	// MaxStdout bounds stdout; zero means DefaultMaxStdout.
	MaxStdout int
	// OnStderr, when set, receives each stderr line as it is written.
	OnStderr func(line string)
	// Filter, when set, rewrites stderr as it arrives (redaction that carries across
	// writes and lines): the streamed lines and the kept tail see only its output.
	Filter Filter
}

// Filter rewrites a stream piece by piece; Flush returns what it held back.
type Filter interface {
	Write(p []byte) []byte
	Flush() []byte
}

// Result is what a hook did.
type Result struct {
	Stdout []byte
	// Stderr is the tail of what the hook wrote to stderr.
	Stderr   string
	ExitCode int
	Started  time.Time
	Ended    time.Time
	// TimedOut is set when the hook was killed at its timeout.
	TimedOut bool
	// StdoutOverflow is set when stdout went over the limit.
	StdoutOverflow bool
	// Stopped is set when the caller's context ended (the run was interrupted) before
	// the hook did.
	Stopped bool
	// Left names the processes the hook left running when it exited (ended since): a
	// background child it should have waited for or stopped, a daemon it started.
	Left []string
}

// Duration is how long the hook ran.
func (r *Result) Duration() time.Duration { return r.Ended.Sub(r.Started) }

// Run starts the hook, waits for it, and returns what it did. The error is non-nil when
// the hook could not be started, exited non-zero, timed out or overflowed stdout; the
// Result is filled in as far as the hook got in every case.
func Run(ctx context.Context, s Spec) (*Result, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("hook has no command")
	}
	limit := s.MaxStdout
	if limit <= 0 {
		limit = DefaultMaxStdout
	}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if s.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()

	res := &Result{Started: time.Now()}
	p, sio, err := launch(ctx, s)
	if err != nil {
		res.Ended = time.Now()
		res.ExitCode = -1
		if ctx.Err() != nil {
			res.Stopped = true
			return res, fmt.Errorf("stopped before it started: %w", context.Cause(ctx))
		}
		return res, fmt.Errorf("start %s: %w", s.Argv[0], err)
	}
	stdout := &capped{limit: limit}
	stderr := &lineWriter{fn: s.OnStderr, keep: stderrTail, filter: s.Filter}
	copied := sio.copy(s.Stdin, stdout, stderr)
	await(runCtx, p)
	e := p.ended()
	spent.Add(int64(e.cpu))
	// What the hook left holding its output was ended with it; a descendant that could not
	// be told apart from another hook's may still hold it: KillGrace, then it is cut off.
	drain(sio, copied)
	res.Ended = time.Now()
	stderr.flush()
	res.Stdout, res.StdoutOverflow = stdout.buf.Bytes(), stdout.over
	res.Stderr = stderr.tail()
	res.ExitCode = e.code
	res.Left = e.left

	if err := outcome(runCtx, ctx, res, e, s.Timeout); err != nil {
		return res, err
	}
	if res.StdoutOverflow {
		return res, fmt.Errorf("printed more than %d bytes on stdout, starting %s", limit, quote(res.Stdout))
	}
	return res, nil
}

// launch opens the hook's stdio and starts it, its program found on the PATH as exec.Command
// finds it.
func launch(ctx context.Context, s Spec) (process, *stdio, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	path := s.Argv[0]
	if filepath.Base(path) == path {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, nil, err
		}
		path = lp
	}
	env, err := dedupEnv(s.Env)
	if err != nil {
		return nil, nil, err
	}
	sio, err := openStdio(s.Stdin != "")
	if err != nil {
		return nil, nil, err
	}
	p, err := start(path, s.Argv, s.Dir, env, sio.child)
	sio.closeChild()
	if err != nil {
		sio.closeOurs()
		return nil, nil, err
	}
	return p, sio, nil
}

// await waits for the hook to end. When runCtx ends first (the timeout, or the run was
// interrupted) its group gets SIGTERM, and KillGrace later SIGKILL.
func await(runCtx context.Context, p process) {
	select {
	case <-p.done():
		return
	case <-runCtx.Done():
	}
	p.terminate()
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case <-p.done():
		return
	case <-grace.C:
	}
	p.kill()
	bound := time.NewTimer(endedIn)
	defer bound.Stop()
	select {
	case <-p.done():
	case <-bound.C: // ended reports it
	}
}

// copy feeds the hook its stdin and copies its stdout and stderr; the channel is closed
// when both reached their end.
func (sio *stdio) copy(stdin string, stdout, stderr io.Writer) <-chan struct{} {
	if sio.stdin != nil {
		go func() {
			_, _ = sio.stdin.WriteString(stdin) // a hook that does not read its stdin is its own business
			_ = sio.stdin.Close()
		}()
	}
	var wg sync.WaitGroup
	for _, c := range []struct {
		from *os.File
		to   io.Writer
	}{{sio.stdout, stdout}, {sio.stderr, stderr}} {
		wg.Go(func() { copyStream(c.to, c.from) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// copyBuffers are the buffers Copy copies through: a long run calls hooks tens of
// thousands of times, and a new 32 KiB buffer for each stream of each was most of the
// garbage a run made (and for each record hashed, most of what its readers made).
var copyBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// copyStream copies from to to; a read error is the end of the stream.
func copyStream(to io.Writer, from *os.File) { _, _ = Copy(to, from) }

// Copy copies from to to through a pooled buffer, as io.Copy does. Neither side is let take
// the copy over (*os.File's WriteTo would allocate a buffer of its own for a pipe or a
// hash): a run copies hooks' output and hashes its records tens of thousands of times.
func Copy(to io.Writer, from io.Reader) (int64, error) {
	buf := copyBuffers.Get().(*[32 << 10]byte)
	defer copyBuffers.Put(buf)
	return io.CopyBuffer(struct{ io.Writer }{to}, struct{ io.Reader }{from}, buf[:])
}

// drain waits for the hook's output to reach its end, at most KillGrace, and closes our
// ends of its pipes.
func drain(sio *stdio, copied <-chan struct{}) {
	t := time.NewTimer(KillGrace)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
	}
	sio.closeOurs()
	<-copied
}

// outcome says how the hook ended, from how it ended and the two contexts: the run's
// (ctx, interrupted) and the hook's own (runCtx, with its timeout). The hook's own exit
// comes first: a hook that exited 0 finished, even when the clock passed its deadline
// before its output ended (a child held it, or the deadline's SIGTERM reached a leader
// that had already exited).
func outcome(runCtx, ctx context.Context, res *Result, e ended, timeout time.Duration) error {
	switch {
	case e.err != nil:
		return fmt.Errorf("its end could not be seen: %w", e.err)
	case e.exited && e.code == 0:
	case runCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		res.TimedOut = true
		return fmt.Errorf("timed out after %s; its process group was killed", timeout)
	case ctx.Err() != nil:
		res.Stopped = true
		return fmt.Errorf("stopped: %w", context.Cause(ctx))
	case !e.exited:
		return fmt.Errorf("was killed by %s", e.how)
	default:
		return fmt.Errorf("exited with status %d", e.code)
	}
	return nil
}

// capped keeps at most limit bytes and discards the rest, so the hook never blocks.
type capped struct {
	buf   bytes.Buffer
	limit int
	over  bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// lineWriter passes whole lines to fn and keeps the last keep bytes.
type lineWriter struct {
	mu       sync.Mutex
	fn       func(string)
	keep     int
	partial  []byte
	kept     []byte
	cut      bool
	streamed int
	filter   Filter
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if w.filter != nil {
		p = w.filter.Write(p)
	}
	w.take(p)
	return n, nil
}

// take keeps p in the tail and streams its lines; w.mu is held.
func (w *lineWriter) take(p []byte) {
	w.kept = append(w.kept, p...)
	if len(w.kept) > 2*w.keep {
		w.kept = append([]byte(nil), w.kept[len(w.kept)-w.keep:]...)
		w.cut = true
	}
	if w.fn == nil || w.streamed > MaxStreamedStderr {
		return
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.emit(strings.TrimRight(string(w.partial[:i]), "\r"))
		w.partial = w.partial[i+1:]
	}
	if w.streamed > MaxStreamedStderr {
		w.partial = nil // nothing more is streamed: keep no line queue either
	}
	if len(w.partial) > 64<<10 {
		w.emit(string(w.partial))
		w.partial = nil
	}
}

// emit streams one line, until MaxStreamedStderr is spent.
func (w *lineWriter) emit(line string) {
	if w.streamed > MaxStreamedStderr {
		return
	}
	if w.streamed+len(line) > MaxStreamedStderr {
		w.streamed = MaxStreamedStderr + 1
		w.fn("stderr truncated after 1 MiB; the tail is kept in the records")
		return
	}
	w.streamed += len(line)
	w.fn(line)
}

func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.filter != nil {
		w.take(w.filter.Flush())
	}
	if w.fn != nil && len(w.partial) > 0 {
		w.emit(string(w.partial))
		w.partial = nil
	}
}

func (w *lineWriter) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.kept
	cut := w.cut
	if len(k) > w.keep {
		k, cut = k[len(k)-w.keep:], true
	}
	if cut {
		return "[... earlier stderr cut ...]\n" + string(k)
	}
	return string(k)
}

var _ io.Writer = (*lineWriter)(nil)
