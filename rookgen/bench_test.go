package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmarks of a whole suite: generated, compiled and run by go test as a user runs
// it, each figure set beside its baseline measured in the same run. make bench runs them;
// docs/performance.md records what they printed.

// noopHook is a Node hook that answers every phase at once; execute echoes the goal.
const noopHook = `import { readFileSync } from 'node:fs';
const phase = process.argv[2];
if (phase === 'execute') {
  const goal = readFileSync(0, 'utf8');
  process.stdout.write(JSON.stringify({ output: 'echo: ' + goal, conversation: 'c1' }) + '\n');
} else if (phase === 'open') {
  process.stdout.write('{"conversation": "c1"}\n');
}
`

// BenchmarkSuite runs a suite of 50 scenarios through 5 no-op Node hooks (prepare once,
// then open, execute, close and collect per scenario) with go test, two scenarios at a
// time, against the same 201 Node processes started bare by this benchmark, two at a time
// as well, with the same stdin. The harness side is the whole test binary: its start, the
// plan, the records, the judge, report.yaml and report.html. The sides alternate which
// goes first, so that machine noise hits both alike.
func BenchmarkSuite(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("needs node")
	}
	const scenarios, concurrency = 50, 2
	dir := newModule(b)
	write(b, dir, "profiles/noop/hooks/noop.mjs", noopHook)
	linkPage(b, dir, "noop") // the harness's side writes report.html, as it always has here
	hooks := ""
	for _, ph := range []string{"prepare", "open", "execute", "close", "collect"} {
		hooks += "  " + ph + ": hooks/noop.mjs\n"
	}
	write(b, dir, "profiles/noop/noop.yaml", fmt.Sprintf("id: noop\nhooks:\n%scapabilities: {multi_turn: true}\nconcurrency: %d\n", hooks, concurrency))
	for i := 1; i <= scenarios; i++ {
		write(b, dir, fmt.Sprintf("scenarios/noop/SC-%03d.yaml", i), fmt.Sprintf("id: SC-%03d\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n", i))
	}
	rookgen(b, dir)
	bin, _ := compileSuite(b, dir, "noop")
	script := filepath.Join(dir, "profiles/noop/hooks/noop.mjs")

	bareSuite := func() time.Duration {
		start := time.Now()
		spawn(b, filepath.Dir(script), "", node, script, "prepare")
		work := make(chan int)
		var wg sync.WaitGroup
		for range concurrency {
			wg.Go(func() {
				for range work {
					for _, ph := range []string{"open", "execute", "close", "collect"} {
						stdin := ""
						if ph == "execute" {
							stdin = "hello"
						}
						spawn(b, filepath.Dir(script), stdin, node, script, ph)
					}
				}
			})
		}
		for i := range scenarios {
			work <- i
		}
		close(work)
		wg.Wait()
		return time.Since(start)
	}
	harnessSuite := func() time.Duration {
		res := runSuite(b, bin, filepath.Join(dir, "scenarios/noop"), "-test.v", "-rook.dir="+b.TempDir())
		passed(b, res, scenarios)
		return res.wall
	}

	var bare, harness time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			bare += bareSuite()
			harness += harnessSuite()
		} else {
			harness += harnessSuite()
			bare += bareSuite()
		}
		i++
	}
	calls := float64(b.N * (1 + 4*scenarios))
	b.ReportMetric(bare.Seconds()/float64(b.N), "bare-s/suite")
	b.ReportMetric(harness.Seconds()/float64(b.N), "harness-s/suite")
	b.ReportMetric(float64(harness-bare)/float64(time.Millisecond)/calls, "overhead-ms/hook")
	b.ReportMetric(float64(harness)/float64(bare), "ratio")
}

// BenchmarkConcurrency runs 16 latency-bound scenarios (execute answers after 1 s, the
// other hooks at once) at -rook.concurrency 1, 4, 16 and auto in one iteration, and reports
// the speed-up over 1, the efficiency (speed-up over the ideal min(N, 16); auto's N is its
// ceiling) and the CPU time per scenario of the test process and its hooks together.
func BenchmarkConcurrency(b *testing.B) {
	const scenarios = 16
	dir := newModule(b)
	write(b, dir, "profiles/slow/slow.yaml", `id: slow
hooks:
  prepare: {command: [sh, -c, "true"]}
  open: {command: [sh, -c, "echo '{\"conversation\": \"c1\"}'"]}
  execute: {command: [sh, -c, "sleep 1; echo '{\"output\": \"hello\"}'"]}
  close: {command: [sh, -c, "true"]}
`)
	for i := 1; i <= scenarios; i++ {
		write(b, dir, fmt.Sprintf("scenarios/slow/SC-%02d.yaml", i), fmt.Sprintf("id: SC-%02d\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n", i))
	}
	rookgen(b, dir)
	bin, _ := compileSuite(b, dir, "slow")
	// auto's ceiling, with no concurrency in the profile, is eight per core: 16 on two.
	levels := []string{"1", "4", "16", "auto"}
	ideal := map[string]int{"1": 1, "4": 4, "16": 16, "auto": min(8*runtime.GOMAXPROCS(0), scenarios)}
	wall := map[string]time.Duration{}
	cpu := map[string]time.Duration{}
	for b.Loop() {
		for _, n := range levels {
			res := runSuite(b, bin, filepath.Join(dir, "scenarios/slow"), "-test.v", "-rook.dir="+b.TempDir(), "-rook.concurrency="+n)
			passed(b, res, scenarios)
			wall[n] += res.wall
			cpu[n] += res.cpu
		}
	}
	for _, n := range levels {
		speedup := float64(wall["1"]) / float64(wall[n])
		if n != "1" {
			b.ReportMetric(speedup, "speedup@"+n)
			b.ReportMetric(speedup/float64(ideal[n]), "efficiency@"+n)
		} else {
			b.ReportMetric(wall["1"].Seconds()/float64(b.N), "s@1")
		}
		b.ReportMetric(float64(cpu[n])/float64(time.Millisecond)/float64(b.N*scenarios), "cpu-ms/scenario@"+n)
	}
}

// BenchmarkScale generates, compiles and runs suites of 100, 1,000, 5,000 and 20,000
// scenarios with a trivial sh hook at concurrency 4, in one iteration, and reports for each
// size the compile time and the compiler's peak memory, the run's time per scenario, the
// test process's peak RSS, and the go test -json stream per scenario; and the ratios of the
// larger sizes to the 100-scenario suite's (of the last iteration: make bench runs one).
//
// At 100 and 20,000 it also runs, side by side, two baselines. The floor: a bare test
// binary with the same literal subtests, each with one criterion subtest, doing nothing;
// what testing itself keeps per subtest is under any suite, and the harness's memory goal
// is its growth from 100 to 20,000 over the floor's (floor-growth-ratio, goal 1.25x). And
// the suite built without the records' seal (store's sealedDir overlaid to seal nothing):
// what the manifest costs a run's time and memory at that size (sealed-vs-unsealed-*).
func BenchmarkScale(b *testing.B) {
	sizes := []int{100, 1000, 5000, 20000}
	type figures struct {
		gen, compile, run         time.Duration
		compileMB, rssMB, junitMB float64
		oursMB                    float64
		jsonBytes                 int
		floorMB                   float64
		floorLiveMB, liveMB       float64 // the largest heap left live after a collection
		unsealed                  time.Duration
		unsealedMB                float64
	}
	unsealed := unsealedOverlay(b)
	got := map[int]*figures{}
	for b.Loop() {
		for _, n := range sizes {
			f := &figures{}
			got[n] = f
			dir := newModule(b)
			linkPage(b, dir, "tiny") // the run's end writes the page: its memory is measured too
			write(b, dir, "profiles/tiny/tiny.yaml", "id: tiny\nhooks:\n  execute: {command: [sh, -c, \"echo '{\\\"output\\\": \\\"hi\\\"}'\"]}\nconcurrency: 4\n")
			for i := range n {
				write(b, dir, fmt.Sprintf("scenarios/tiny/SC-%05d.yaml", i), fmt.Sprintf("id: SC-%05d\ntitle: scenario number %d\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hi}}\n", i, i))
			}
			start := time.Now()
			rookgen(b, dir)
			f.gen = time.Since(start)
			var maxrss int64
			var bin string
			bin, maxrss = compileSuite(b, dir, "tiny")
			f.compileMB = float64(maxrss) / 1024
			f.compile = time.Since(start) - f.gen
			res := runSuite(b, bin, filepath.Join(dir, "scenarios/tiny"), "-rook.dir="+b.TempDir(), "-test.v=test2json", "-test.timeout=0")
			passed(b, res, n)
			f.run, f.rssMB, f.jsonBytes = res.wall, float64(res.maxrssKB)/1024, len(res.out)
			events := eventsFile(b, res.out)
			f.junitMB = junitFrom(b, dir, events)
			f.oursMB = junitOurs(b, dir, events)
			if n != 100 && n != 20000 {
				continue
			}
			// The floor and the unsealed suite run with the collector's trace: the largest heap
			// left live after a collection is what each keeps, the collector's headroom aside.
			floor := runSuiteTraced(b, floorSuite(b, n), b.TempDir(), "-test.v=test2json", "-test.timeout=0")
			f.floorMB, f.floorLiveMB = float64(floor.maxrssKB)/1024, liveMB(floor.out)
			bin, _ = compileSuite(b, dir, "tiny", "-overlay="+unsealed)
			res = runSuiteTraced(b, bin, filepath.Join(dir, "scenarios/tiny"), "-rook.dir="+b.TempDir(), "-test.v=test2json", "-test.timeout=0")
			passed(b, res, n)
			f.unsealed, f.unsealedMB, f.liveMB = res.wall, float64(res.maxrssKB)/1024, liveMB(res.out)
		}
	}
	base := got[100]
	for _, n := range sizes {
		f := got[n]
		b.ReportMetric(f.gen.Seconds(), fmt.Sprintf("generate-s@%d", n))
		b.ReportMetric(f.compile.Seconds(), fmt.Sprintf("compile-s@%d", n))
		b.ReportMetric(f.compileMB, fmt.Sprintf("compile-MB@%d", n))
		b.ReportMetric(float64(f.run)/float64(time.Millisecond)/float64(n), fmt.Sprintf("run-ms/scenario@%d", n))
		b.ReportMetric(f.rssMB, fmt.Sprintf("peak-RSS-MB@%d", n))
		b.ReportMetric(float64(f.jsonBytes)/float64(n), fmt.Sprintf("json-B/scenario@%d", n))
		b.ReportMetric(f.junitMB, fmt.Sprintf("gotestsum-RSS-MB@%d", n))
		b.ReportMetric(f.junitMB/f.rssMB, fmt.Sprintf("gotestsum-vs-run-RSS@%d", n))
		b.ReportMetric(f.oursMB, fmt.Sprintf("rookgen-junit-RSS-MB@%d", n))
		b.ReportMetric(f.oursMB/f.rssMB, fmt.Sprintf("rookgen-junit-vs-run-RSS@%d", n))
		if n != 100 {
			b.ReportMetric(f.rssMB/base.rssMB, fmt.Sprintf("RSS-vs-100@%d", n))
			b.ReportMetric((float64(f.run)/float64(n))/(float64(base.run)/100), fmt.Sprintf("per-scenario-vs-100@%d", n))
		}
		if f.floorMB > 0 {
			b.ReportMetric(f.floorMB, fmt.Sprintf("floor-RSS-MB@%d", n))
			b.ReportMetric(f.floorLiveMB, fmt.Sprintf("floor-live-MB@%d", n))
			b.ReportMetric(f.liveMB, fmt.Sprintf("live-MB@%d", n))
			b.ReportMetric(f.run.Seconds()/f.unsealed.Seconds(), fmt.Sprintf("sealed-vs-unsealed-time@%d", n))
			b.ReportMetric(f.rssMB/f.unsealedMB, fmt.Sprintf("sealed-vs-unsealed-RSS@%d", n))
		}
	}
	top := got[20000]
	b.ReportMetric((top.rssMB-base.rssMB)/(top.floorMB-base.floorMB), "floor-growth-ratio@20000")
	b.ReportMetric((top.liveMB-base.liveMB)/max(top.floorLiveMB-base.floorLiveMB, 1), "live-growth-ratio@20000")
}

// runSuiteTraced runs a suite as runSuite does, with the collector's trace on its stderr
// (GODEBUG=gctrace=1), for liveMB.
func runSuiteTraced(b *testing.B, bin, dir string, args ...string) measured {
	b.Helper()
	res, err := measure(dir, []string{"GODEBUG=gctrace=1"}, append([]string{bin}, args...)...)
	if err != nil {
		b.Fatalf("%s: %v\n%s", bin, err, tail(res.out, 4000))
	}
	return res
}

// gcLine is a collection in the collector's trace: "gc 12 @3.1s ...: ..., 6->7->3 MB, ...".
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @.*?(\d+)->(\d+)->(\d+) MB`)

// liveMB is the largest heap a collection left live in the trace out holds, in MB.
func liveMB(out string) float64 {
	most := 0.0
	for _, m := range gcLine.FindAllStringSubmatch(out, -1) {
		if v, _ := strconv.ParseFloat(m[3], 64); v > most {
			most = v
		}
	}
	return most
}

// floorSuite builds the floor of a suite of n scenarios: a test binary with one test whose
// n literal subtests, named as the generated ones are, each run one criterion subtest that
// does nothing.
func floorSuite(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	write(b, dir, "go.mod", "module example.com/floor\n\ngo 1.26\n")
	var src strings.Builder
	src.WriteString("package floor_test\n\nimport \"testing\"\n\nfunc criterion(t *testing.T) { t.Run(\"C1_s\", func(*testing.T) {}) }\n\nfunc TestTiny(t *testing.T) {\n")
	for i := range n {
		fmt.Fprintf(&src, "\tt.Run(\"SC-%05d_scenario_number_%d\", criterion)\n", i, i)
	}
	src.WriteString("}\n")
	write(b, dir, "floor_test.go", src.String())
	bin := filepath.Join(b.TempDir(), "floor.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the floor: %v\n%s", err, out)
	}
	return bin
}

// unsealedOverlay writes a go build -overlay file that replaces internal/store/seal.go with
// itself but for sealedDir, which then finds no attempt's record to seal: the records are
// written and read as before the manifest.
func unsealedOverlay(b *testing.B) string {
	b.Helper()
	seal, err := filepath.Abs("../internal/store/seal.go")
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(seal)
	if err != nil {
		b.Fatal(err)
	}
	const head = "func sealedDir(path string) (dir, rel string, ok bool) {\n"
	if !bytes.Contains(src, []byte(head)) {
		b.Fatalf("%s has no %q to overlay: update unsealedOverlay", seal, head)
	}
	src = bytes.Replace(src, []byte(head), []byte(head+"\treturn \"\", \"\", false\n}\n\nfunc sealedDirAsWritten(path string) (dir, rel string, ok bool) {\n"), 1)
	dir := b.TempDir()
	replaced := filepath.Join(dir, "seal.go")
	if err := os.WriteFile(replaced, src, 0o644); err != nil {
		b.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{seal: replaced}})
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, overlay, 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}

// eventsFile writes a run's output as go test -json gives it: the run's output is the test
// binary's (-test.v=test2json), and go test -json is it through test2json, done here,
// outside what is measured.
func eventsFile(b *testing.B, events string) string {
	b.Helper()
	conv := exec.Command("go", "tool", "test2json", "-t", "-p", "example.com/agents/scenarios/tiny")
	conv.Stdin = strings.NewReader(events)
	stream, err := conv.Output()
	if err != nil {
		b.Fatalf("go tool test2json: %v", err)
	}
	jsonFile := filepath.Join(b.TempDir(), "events.json")
	if err := os.WriteFile(jsonFile, stream, 0o644); err != nil {
		b.Fatal(err)
	}
	return jsonFile
}

// junitOurs has rookgen junit read a run's go test -json stream and write its JUnit, and
// returns its peak RSS in MB (the launcher's when it used less: an upper bound).
func junitOurs(b *testing.B, dir, jsonFile string) float64 {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "rookgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build rookgen: %v\n%s", err, out)
	}
	junit := filepath.Join(b.TempDir(), "junit.xml")
	res, err := measure(dir, nil, bin, "junit", "-o", junit, jsonFile)
	if errors.Is(err, errBelowLauncher) {
		err = nil // reported as the launcher's peak: an upper bound
	}
	if err != nil {
		b.Fatalf("rookgen junit: %v\n%s", err, tail(res.out, 2000))
	}
	if info, err := os.Stat(junit); err != nil || info.Size() == 0 {
		b.Fatalf("rookgen junit wrote no JUnit: %v", err)
	}
	return float64(res.maxrssKB) / 1024
}

// junitFrom has gotestsum read a run's go test -json stream and write its JUnit, as CI
// does, and returns gotestsum's peak RSS in MB (for a small run, where gotestsum uses less
// than the launcher, the launcher's: an upper bound).
func junitFrom(b *testing.B, dir, jsonFile string) float64 {
	b.Helper()
	bin, err := exec.Command("go", "tool", "-n", "gotestsum").Output()
	if err != nil {
		b.Fatalf("go tool -n gotestsum: %v", err)
	}
	junit := filepath.Join(b.TempDir(), "junit.xml")
	res, err := measure(dir, nil, strings.TrimSpace(string(bin)), "--junitfile", junit, "--format", "none", "--raw-command", "--", "cat", jsonFile)
	if errors.Is(err, errBelowLauncher) {
		err = nil // reported as the launcher's peak: an upper bound
	}
	if err != nil {
		b.Fatalf("gotestsum: %v\n%s", err, tail(res.out, 2000))
	}
	if info, err := os.Stat(junit); err != nil || info.Size() == 0 {
		b.Fatalf("gotestsum wrote no JUnit: %v", err)
	}
	return float64(res.maxrssKB) / 1024
}

// compileSuite builds the generated package of agent into a test binary, and returns it
// and the build's peak memory in KiB (the largest of go and the compiler and linker it
// waited for).
func compileSuite(b *testing.B, dir, agent string, flags ...string) (string, int64) {
	b.Helper()
	bin := filepath.Join(b.TempDir(), agent+".test")
	res, err := measure(dir, []string{goflags}, append(append([]string{"go", "test", "-c", "-o", bin}, flags...), "./scenarios/"+agent)...)
	if err != nil {
		b.Fatalf("go test -c: %v\n%s", err, res.out)
	}
	return bin, res.maxrssKB
}

// runSuite runs a compiled suite in dir, as go test runs a test binary.
func runSuite(b *testing.B, bin, dir string, args ...string) measured {
	b.Helper()
	res, err := measure(dir, nil, append([]string{bin}, args...)...)
	if err != nil {
		b.Fatalf("%s: %v\n%s", bin, err, tail(res.out, 4000))
	}
	return res
}

type measured struct {
	wall     time.Duration
	cpu      time.Duration // the process's and its children's, user and system
	maxrssKB int64         // the peak RSS of the process or of the largest child it waited for
	out      string
}

// measure runs argv in dir and measures it. It is started by a launcher
// (testdata/launcher, built once), because on Linux a child's peak resident set starts from
// the memory of the process that forked it: started from this benchmark, which holds the
// earlier suites' output, or from this test binary run again, a suite would report the
// launcher's peak rather than its own. The launcher is smaller than any test binary.
func measure(dir string, env []string, argv ...string) (measured, error) {
	launcher, err := launcherBin()
	if err != nil {
		return measured{}, err
	}
	report := filepath.Join(os.TempDir(), fmt.Sprintf("rookbench-%d-%d.json", os.Getpid(), time.Now().UnixNano()))
	defer func() { _ = os.Remove(report) }()
	cmd := exec.Command(launcher, argv...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "ROOKBENCH_RUSAGE="+report)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	m := measured{wall: time.Since(start), out: out.String()}
	if err != nil {
		return m, err
	}
	var u launcherReport
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &u)
	}
	if err != nil {
		return m, fmt.Errorf("read the launcher's report: %w", err)
	}
	if u.MaxrssKB <= u.LauncherKB {
		m.maxrssKB = u.LauncherKB // the most it can have been
		return m, fmt.Errorf("%s peaked at %d KiB, not above the launcher's own %d KiB: its peak cannot be told: %w", argv[0], u.MaxrssKB, u.LauncherKB, errBelowLauncher)
	}
	m.cpu, m.maxrssKB = time.Duration(u.CPUNanos), u.MaxrssKB
	return m, nil
}

// errBelowLauncher is measure's error for a process that used less memory than the
// launcher that started it: its peak is only known to be at most the launcher's.
var errBelowLauncher = errors.New("below the launcher")

type launcherReport struct {
	MaxrssKB   int64 `json:"maxrss_kb"`
	LauncherKB int64 `json:"launcher_kb"`
	CPUNanos   int64 `json:"cpu_ns"`
}

// launcherBin builds testdata/launcher once per test binary.
var launcherBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "rookbench-launcher")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "launcher")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/launcher").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the benchmarks' launcher: %w\n%s", err, out)
	}
	return bin, nil
})

// spawn runs one process bare: stdin given, stdout read, as the harness gives and reads a
// hook's.
func spawn(b *testing.B, dir, stdin string, argv ...string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Errorf("%v: %v", argv, err)
	}
}

// passed fails the benchmark unless the suite's run says all n scenarios passed.
func passed(b *testing.B, res measured, n int) {
	b.Helper()
	if !strings.Contains(res.out, fmt.Sprintf(": %d passed, 0 failed,", n)) {
		b.Fatalf("the suite's %d scenarios did not all pass:\n%s", n, tail(res.out, 4000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
