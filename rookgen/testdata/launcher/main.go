//go:build unix

// Command launcher runs its arguments as a command and writes the command's peak resident
// set and CPU time as JSON to the file ROOKBENCH_RUSAGE names, then exits with the
// command's status. The benchmarks start what they measure through it, not directly: on
// Linux a child's peak (ru_maxrss) starts from the memory of the process that forked it,
// and this program is smaller than any test binary it starts, where the benchmark itself
// (holding the earlier suites' output) or the test binary it is (18 MB) is not.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

type report struct {
	MaxrssKB   int64 `json:"maxrss_kb"`
	LauncherKB int64 `json:"launcher_kb"`
	CPUNanos   int64 `json:"cpu_ns"`
}

func main() {
	path := os.Getenv("ROOKBENCH_RUSAGE")
	if path == "" || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ROOKBENCH_RUSAGE=FILE launcher COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROOKBENCH_RUSAGE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	own := hwmKB() // the floor under what the child can be seen to use
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r := report{LauncherKB: own, CPUNanos: int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxrssKB = int64(ru.Maxrss) // KiB on Linux
	}
	data, _ := json.Marshal(r)
	if werr := os.WriteFile(path, data, 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// hwmKB is this process's peak resident set so far (VmHWM), in KiB; 0 where /proc has none.
func hwmKB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
