package rooktest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// config is everything a run's -rook.* flags, their environment twins and the judge's
// ROOK_JUDGE_* settings say, read and checked once, before the suite's files are read.
type config struct {
	opts  options
	judge judgeOptions
}

// settings are where a config is read from: the flags given on the command line, each
// flag's value, and the environment, which gives a flag not given its value (the flag's
// twin: ROOKTEST_ONLY for -rook.only, ROOK_JUDGE_URL for -rook.judge-url).
type settings struct {
	given  map[string]bool
	flag   func(name string) string
	getenv func(string) string
}

// processSettings are the test binary's own flags and environment.
func processSettings() settings {
	s := settings{given: map[string]bool{}, getenv: os.Getenv}
	flag.Visit(func(f *flag.Flag) { s.given[f.Name] = true })
	s.flag = func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return s
}

// get is the setting of flag name: the flag's value when it was given, else the value of
// the environment variable env ("" for the flag's ROOKTEST_ twin), trimmed. as is the name
// the value came under, for an error to name what to fix.
func (s settings) get(name, env string) (v, as string) {
	if s.given[name] {
		return strings.TrimSpace(s.flag(name)), "-" + name
	}
	if env == "" {
		env = envName(name)
	}
	return strings.TrimSpace(s.getenv(env)), env
}

// value is get's value alone.
func (s settings) value(name, env string) string {
	v, _ := s.get(name, env)
	return v
}

// bool is the boolean setting of flag name.
func (s settings) bool(name string) (bool, error) {
	v, as := s.get(name, "")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", as, v)
	}
	return b, nil
}

// readConfig reads and checks a run's config from s.
func readConfig(s settings) (config, error) {
	var c config
	var err error
	if c.opts, err = readOptions(s); err != nil {
		return c, err
	}
	c.judge, err = readJudgeOptions(s)
	return c, err
}
