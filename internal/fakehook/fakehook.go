// Package fakehook turns a test binary into a hook: tests put the binary itself in a
// profile's command, and its TestMain calls Main, which acts the hook out and exits.
//
// The hook's behaviour comes from its environment (usually the profile's hook_env):
// FAKEHOOK=1 turns it on, and FAKEHOOK_<PHASE> says what the phase does:
//
//	reply:<text>      print (with $VARS expanded) {"output": <text>, "conversation": "conv-1", ...} (execute's default
//	                  is to echo its stdin)
//	json:<raw>        print raw on stdout
//	exit:<code>:<msg> print msg on stderr and exit with code
//	hang              sleep until killed
//	trap-term         say "fake hook ready" on stderr, wait for SIGTERM, say so, exit 143
//	ignore-term       ignore SIGTERM, say "fake hook ready", sleep until killed
//	hang-child        start a child that sleeps, write its pid to FAKEHOOK_PIDFILE, sleep
//	escape            start a child in a session of its own (setsid), write its pid to
//	                  FAKEHOOK_PIDFILE, reply and exit
//	leave-child       start a child in the hook's group, write its pid to FAKEHOOK_PIDFILE,
//	                  reply and exit
//	own-group         start a child in a process group of its own (setpgid), write its pid to
//	                  FAKEHOOK_PIDFILE, reply and exit
//	double-fork       start a child that starts a daemon in a session of its own and exits
//	                  at once (the daemon's parent is gone before the hook replies), write
//	                  the daemon's pid to FAKEHOOK_PIDFILE, reply and exit
//	hold-stdout       start a child in the hook's group that keeps the hook's stdout open,
//	                  write its pid to FAKEHOOK_PIDFILE, reply and exit 0
//	forge-verdict     write a Pass verdict.yaml beside its ROOK_STATE_DIR, bound to the hooks.json
//	                  there now (the best a hostile hook can do), then do the default
//	plant:<file>      write "secret $ROOK_CANARY" to <file> in ROOK_STATE_DIR (a fixture the
//	                  canary is planted in), then do the default
//	sleep:<duration>  sleep, then do the default
//	meet:<n>          add itself to the folder FAKEHOOK_MEET names, and wait until n hooks
//	                  are there (at most a minute, then exit 1), then do the default: n
//	                  hooks alive at once, shown by the hooks themselves, not by a clock
//	first:<a> || <b>  the scenario's first call in the run prints the object <a>, later calls <b>
//	leak:<form>       reply with ROOK_CANARY in a disguise (base64, hex, spaced, split...)
//	tell:<file>       write TRACEPARENT to <file>, wait for <file>.done, reply
//	forge:<file>      read a sibling's TRACEPARENT from <file>, export a span of an
//	                  issue_refund call into its trace (with this hook's own OTLP headers,
//	                  or none with FAKEHOOK_FORGE_BARE=1), write <file>.done, reply
//	post:<url>        POST stdin to <url> with TRACEPARENT and TRACESTATE as headers, and
//	                  print the answer (an HTTP agent's hook)
//	wait-once:<ms>    the first call of the attempt prints {"retry_after_ms": ms} (an API's
//	                  HTTP 429) and no reply; later calls do the default
//	flood             print 16 MiB on stdout
//	flood-stderr      print 64 MiB on stderr, in long lines
//	flood-stderr-lines  print 22 MB on stderr in short lines, then reply
//	flood-stderr-forever  print on stderr until killed
//
// FAKEHOOK_<PHASE>_<SCENARIO> (SC-1 written SC_1) wins over FAKEHOOK_<PHASE> for that scenario,
// FAKEHOOK_<PHASE>_<SCENARIO>_A<N> over both in attempt N of a repeated scenario,
// and FAKEHOOK_<PHASE>_TURN<N> over FAKEHOOK_<PHASE> in turn N (ROOK_TURN).
// FAKEHOOK_STDERR, with $VARS expanded, is printed on stderr in every phase; FAKEHOOK_PIDFILE
// has its $VARS expanded too.
// Every call appends one JSON line (phase, ROOK_* variables, stdin) to FAKEHOOK_LOG when set,
// and, when it has done what it does, one Span (phase, scenario, start, end) to
// FAKEHOOK_SPANS when set.
package fakehook

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Main acts as a hook when FAKEHOOK is set, and returns otherwise.
func Main() {
	if os.Getenv("FAKEHOOK_SLEEPER") != "" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if os.Getenv("FAKEHOOK_FORKER") != "" {
		// The middle of a double fork: start the daemon and go.
		if err := startSleeper(escapeAttr()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("FAKEHOOK") == "" {
		// The test process itself: hooks it starts inherit this, so that a race-built
		// test binary acting as a hook exits at once rather than after the race
		// detector's default second.
		if os.Getenv("GORACE") == "" {
			_ = os.Setenv("GORACE", "atexit_sleep_ms=0") // a valid name: it cannot fail
		}
		return
	}
	os.Exit(run())
}

func run() int {
	start := time.Now()
	phase := ""
	if len(os.Args) > 1 {
		phase = os.Args[len(os.Args)-1]
	}
	stdin, _ := io.ReadAll(os.Stdin)
	if path := os.Getenv("FAKEHOOK_LOG"); path != "" {
		c := Call{Phase: phase, Args: os.Args[1:], Env: map[string]string{}, Stdin: string(stdin), Start: start}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && (strings.HasPrefix(k, "ROOK_") || strings.HasPrefix(k, "FAKE_")) {
				c.Env[k] = v
			}
		}
		if err := appendLine(path, c); err != nil {
			fmt.Fprintf(os.Stderr, "fake hook: log the call: %v\n", err)
			return 70
		}
	}
	fmt.Fprintf(os.Stderr, "fake %s hook running\n", phase)
	if msg := os.Getenv("FAKEHOOK_STDERR"); msg != "" {
		fmt.Fprintln(os.Stderr, os.ExpandEnv(msg))
	}
	code := act(phase, stdin)
	if path := os.Getenv("FAKEHOOK_SPANS"); path != "" {
		if err := appendLine(path, Span{Phase: phase, Scenario: os.Getenv("ROOK_SCENARIO_ID"), Start: start, End: time.Now()}); err != nil {
			fmt.Fprintf(os.Stderr, "fake hook: log the span: %v\n", err)
			return 70
		}
	}
	return code
}

// act does what FAKEHOOK_<PHASE> says, and returns the exit code.
func act(phase string, stdin []byte) int {
	key := "FAKEHOOK_" + strings.ToUpper(phase) + "_" + envSafe(os.Getenv("ROOK_SCENARIO_ID"))
	action := ""
	// An attempt of a repeated scenario keeps its records in attempts/<n>/: FAKEHOOK_<PHASE>_<SC>_A<n>.
	if state := filepath.Dir(os.Getenv("ROOK_STATE_DIR")); filepath.Base(filepath.Dir(state)) == "attempts" {
		action = os.Getenv(key + "_A" + filepath.Base(state))
	}
	if action == "" {
		action = os.Getenv(key)
	}
	if action == "" && os.Getenv("ROOK_TURN") != "" {
		action = os.Getenv("FAKEHOOK_" + strings.ToUpper(phase) + "_TURN" + os.Getenv("ROOK_TURN"))
	}
	if action == "" {
		action = os.Getenv("FAKEHOOK_" + strings.ToUpper(phase))
	}
	verb, arg, _ := strings.Cut(action, ":")
	if code, done := output(verb, arg); done {
		return code
	}
	if code, done := process(verb); done {
		return code
	}
	switch verb {
	case "plant":
		secret := "secret " + os.Getenv("ROOK_CANARY")
		if err := os.WriteFile(filepath.Join(os.Getenv("ROOK_STATE_DIR"), arg), []byte(secret), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "sleep":
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
	case "meet":
		n, _ := strconv.Atoi(arg)
		if err := meet(os.Getenv("FAKEHOOK_MEET"), n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "spin": // keeps a core busy for arg of wall time
		d, _ := time.ParseDuration(arg)
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
	case "flood-stderr":
		chunk := strings.Repeat("noise ", 1<<14) + "\n"
		for range 640 { // 64 MiB
			if _, err := os.Stderr.WriteString(chunk); err != nil {
				return 1
			}
		}
		return 0
	case "flood-stderr-forever":
		chunk := strings.Repeat("noise ", 1<<14) + "\n"
		for {
			if _, err := os.Stderr.WriteString(chunk); err != nil {
				return 1
			}
		}
	case "flood-stderr-lines":
		line := strings.Repeat("short line\n", 1000)
		for range 2000 { // 22 MB in lines of 10 bytes
			if _, err := os.Stderr.WriteString(line); err != nil {
				return 1
			}
		}
		return reply("done")
	case "flood":
		chunk := strings.Repeat("x", 1<<20)
		for range 16 {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				return 1
			}
		}
		return 0
	}
	if phase == "execute" {
		return reply("echo: " + string(stdin))
	}
	if phase == "open" {
		fmt.Println(`{"conversation": "conv-1"}`)
	}
	return 0
}

// output does the actions that print and exit: reply, json, exit.
func output(verb, arg string) (code int, done bool) {
	switch verb {
	case "reply":
		return reply(os.ExpandEnv(arg)), true
	case "json":
		fmt.Println(arg)
		return 0, true
	case "first":
		// The scenario's first call in the run prints one object, the later ones (a retried
		// turn, a repeat's later attempts) another (first:<json> || <json>).
		one, later, _ := strings.Cut(arg, " || ")
		mark := filepath.Join(os.Getenv("ROOK_RUN_STATE_DIR"), "fakehook-first-"+os.Getenv("ROOK_SCENARIO_ID"))
		if _, err := os.Stat(mark); err != nil {
			_ = os.WriteFile(mark, nil, 0o644)
			fmt.Println(one)
			return 0, true
		}
		fmt.Println(later)
		return 0, true
	case "leak":
		// An agent that leaks ROOK_CANARY in a disguise (leak:<form>), for the red-team
		// tests: see leakOutput.
		fmt.Println(leakOutput(arg, os.Getenv("ROOK_CANARY"), os.Getenv("ROOK_TURN")))
		return 0, true
	case "post":
		// An HTTP agent's hook: POST stdin to the agent, with the trace context as the W3C
		// traceparent header, and print the agent's answer.
		return post(arg), true
	case "tell", "forge":
		// A hook whose TRACEPARENT a sibling learns, and the sibling (trace.go).
		return crossTalk(verb, arg), true
	case "wait-once":
		// An API's HTTP 429: the first call of the attempt asks to wait, the next replies.
		mark := filepath.Join(os.Getenv("ROOK_STATE_DIR"), "fakehook-waited")
		if _, err := os.Stat(mark); err != nil {
			_ = os.WriteFile(mark, nil, 0o644)
			fmt.Printf("{\"retry_after_ms\": %s, \"error\": \"HTTP 429\"}\n", arg)
			return 0, true
		}
		return 0, false
	case "exit":
		code, msg, _ := strings.Cut(arg, ":")
		n, _ := strconv.Atoi(code)
		fmt.Fprintln(os.Stderr, msg)
		return n, true
	}
	return 0, false
}

// process does the actions about the hook's process, its children and its files: hang,
// the SIGTERM traps, the children it leaves, and forge-verdict (which then goes on to
// the default).
func process(verb string) (code int, done bool) {
	switch verb {
	case "hang":
		time.Sleep(time.Hour)
		return 0, true
	case "trap-term":
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "fake hook ready") // the trap is set: a test may signal now
		<-term
		fmt.Fprintln(os.Stderr, "fake hook got SIGTERM; closing its session")
		return 143, true
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "fake hook ready")
		time.Sleep(time.Hour)
		return 0, true
	case "escape":
		// A descendant that leaves the hook's process group, as a daemon would.
		if err := startSleeper(escapeAttr()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return reply("left a daemon behind"), true
	case "own-group":
		if err := startSleeper(ownGroupAttr()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return reply("left a child in a group of its own"), true
	case "double-fork":
		forker := exec.Command(os.Args[0])
		forker.Env = append(os.Environ(), "FAKEHOOK_FORKER=1")
		if out, err := forker.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "%v: %s\n", err, out)
			return 1, true
		}
		return reply("left a double-forked daemon"), true
	case "leave-child":
		// A child in the hook's own group that outlives it, its output not inherited.
		if err := startSleeper(nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return reply("left a child running"), true
	case "forge-verdict":
		return forgeVerdict()
	case "hold-stdout":
		if err := startSleeperWith(nil, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return reply("left a child holding stdout"), true
	case "hang-child":
		if err := startSleeper(nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		time.Sleep(time.Hour)
		return 0, true
	}
	return 0, false
}

// forgeVerdict writes a Pass verdict.yaml beside ROOK_STATE_DIR, bound to the hooks.json
// there now, and goes on to the default.
func forgeVerdict() (code int, done bool) {
	scenario := filepath.Dir(os.Getenv("ROOK_STATE_DIR"))
	hooks, _ := os.ReadFile(filepath.Join(scenario, "hooks.json"))
	sum := sha256.Sum256(hooks)
	forged := fmt.Sprintf("scenario_id: %s\nstatus: Pass\ncriteria: []\nhooks_sha256: %x\n", os.Getenv("ROOK_SCENARIO_ID"), sum)
	if err := os.WriteFile(filepath.Join(scenario, "verdict.yaml"), []byte(forged), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	return 0, false
}

// envSafe maps a scenario id to the suffix of its variables: SC-1 is SC_1.
func envSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' {
			return '_'
		}
		return r
	}, id)
}

func reply(text string) int {
	b, _ := json.Marshal(map[string]any{"output": text, "conversation": "conv-1", "calls": []any{},
		"usage": map[string]int{"input": 10, "output": 5}})
	fmt.Println(string(b))
	return 0
}

// startSleeper starts this binary as a child that sleeps, with attr, and writes its pid
// to FAKEHOOK_PIDFILE.
func startSleeper(attr *syscall.SysProcAttr) error { return startSleeperWith(attr, nil) }

// startSleeperWith starts a sleeper whose stdout is out (nil: not inherited).
func startSleeperWith(attr *syscall.SysProcAttr, out *os.File) error {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FAKEHOOK_SLEEPER=1")
	cmd.SysProcAttr = attr
	if out != nil {
		cmd.Stdout = out
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return writePidfile(os.ExpandEnv(os.Getenv("FAKEHOOK_PIDFILE")), cmd.Process.Pid)
}

// writePidfile writes pid to path whole: to a file beside it, then renamed, so a test
// that polls for path never reads it empty or half written.
func writePidfile(path string, pid int) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// post sends stdin to url with the hook's TRACEPARENT and TRACESTATE as the traceparent
// and tracestate headers (FAKEHOOK_NO_TRACESTATE leaves the latter out), and prints the
// answer.
func post(url string) int {
	body, _ := io.ReadAll(os.Stdin)
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if tp := os.Getenv("TRACEPARENT"); tp != "" {
		req.Header.Set("traceparent", tp)
	}
	if ts := os.Getenv("TRACESTATE"); ts != "" && os.Getenv("FAKEHOOK_NO_TRACESTATE") == "" {
		req.Header.Set("tracestate", ts) // W3C propagation passes both on
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	if _, err := io.Copy(os.Stdout, resp.Body); err != nil {
		return 1
	}
	return 0
}

// meet adds this hook to dir and waits until n hooks have: the condition is the folder's
// count, looked at every few milliseconds, with a minute as the bound of a failure.
func meet(dir string, n int) error {
	if dir == "" || n < 1 {
		return fmt.Errorf("meet:<n> needs n of at least 1 and FAKEHOOK_MEET")
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o644); err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(entries) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("meet: %d of %d hooks came in a minute", len(entries), n)
		}
	}
}
