package rooktest

import (
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/scenario"
)

// brief is what planning reads of a scenario, and all Start keeps of it: its selectors,
// whether it is excluded or not executable (and why), how many turns it takes, what it
// observes, and whether go test's -run selects its subtest. A job reads the whole
// scenario again from its file when it starts, so that a suite of thousands is not held
// in memory for the length of the run: a brief is a few dozen bytes, its id the
// generated suite's own string, its class, category and tags shared with every other
// scenario that carries the same.
type brief struct {
	id              string
	class, category string
	tags            []string
	skipReason      string // set only when notExecutable
	turns           int32
	flags           briefFlag
}

type briefFlag uint8

const (
	excluded briefFlag = 1 << iota
	notExecutable
	multiTurn
	gradesUsage // a usage criterion, or requires usage
	judgedModel // an llm_judge criterion, or a red-team signal a judge model decides
	runSelected // go test's -run (and -skip) select its subtest
)

func (b *brief) has(f briefFlag) bool { return b.flags&f != 0 }

// briefer makes briefs, sharing the strings and tag lists that repeat across a suite.
type briefer struct {
	strs map[string]string
	tags map[string][]string
}

// briefOf is sc's brief, with id for its id (the suite's string when it has one) and
// runSelected set when runs selects its subtest; runs may be nil.
func (bf *briefer) briefOf(id string, sc *scenario.Scenario, runs func(string) bool) brief {
	if bf.strs == nil {
		bf.strs, bf.tags = map[string]string{}, map[string][]string{}
	}
	b := brief{id: id, class: bf.str(sc.Class), category: bf.str(sc.Category), tags: bf.tagList(sc.Tags), turns: int32(sc.Turns())}
	obs := sc.Observes()
	for _, f := range []struct {
		on   bool
		flag briefFlag
	}{
		{sc.Excluded, excluded}, {sc.NotExecutable, notExecutable}, {sc.IsMultiTurn(), multiTurn},
		{obs.Has(check.ObservesUsage), gradesUsage}, {obs.Has(check.ObservesModel), judgedModel},
		{runs == nil || runs(sc.Subtest()), runSelected},
	} {
		if f.on {
			b.flags |= f.flag
		}
	}
	if sc.NotExecutable {
		b.skipReason = sc.SkipReason
	}
	return b
}

func (bf *briefer) str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := bf.strs[s]; ok {
		return v
	}
	bf.strs[s] = s
	return s
}

func (bf *briefer) tagList(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	key := strings.Join(tags, "\x00")
	if v, ok := bf.tags[key]; ok {
		return v
	}
	list := make([]string, len(tags))
	for i, t := range tags {
		list[i] = bf.str(t)
	}
	bf.tags[key] = list
	return list
}
