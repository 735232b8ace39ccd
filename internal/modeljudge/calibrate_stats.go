package modeljudge

import (
	"fmt"
	"io"
	"sort"

	"github.com/rookgo/rookgo/internal/record"
)

// statuses are the confusion matrix's rows (the judge's) and columns (the person's).
var statuses = []record.Status{record.Pass, record.Fail, record.UnableToVerify}

func index(s record.Status) int {
	for i, st := range statuses {
		if st == s {
			return i
		}
	}
	return -1
}

// confidences, from the lowest: a level counts the pairs the judge decided at it or above.
var confidences = []string{"Low", "Medium", "High"}

// Calibration is how far the judge agrees with people over some pairs.
type Calibration struct {
	N, Agree  int
	Agreement float64
	// Kappa is Cohen's kappa: agreement beyond what the two sides' own rates of each status
	// would give by chance. KappaDefined is false when chance alone explains everything
	// (both sides gave one and the same status to every row).
	Kappa        float64
	KappaDefined bool
	// Confusion counts pairs by the judge's status (row) and the person's (column), in the
	// order Pass, Fail, Unable to Verify.
	Confusion [3][3]int
	// AtOrAbove is the agreement among the pairs the judge decided at each confidence level
	// or above; Reaches is the lowest level whose agreement reaches the target, "" when none.
	AtOrAbove map[string]CalibrationLevel
	Reaches   string
}

// CalibrationLevel is the agreement at one confidence level and above.
type CalibrationLevel struct {
	N, Agree  int
	Agreement float64
}

// Calibrate measures pairs against a target agreement.
func Calibrate(pairs []LabelPair, target float64) Calibration {
	s := Calibration{N: len(pairs), AtOrAbove: map[string]CalibrationLevel{}}
	for _, p := range pairs {
		j, h := index(p.Judge), index(p.Person)
		if j < 0 || h < 0 {
			continue
		}
		s.Confusion[j][h]++
		if j == h {
			s.Agree++
		}
	}
	if s.N == 0 {
		return s
	}
	s.Agreement = float64(s.Agree) / float64(s.N)
	var chance float64
	for k := range statuses {
		judged, labelled := 0, 0
		for i := range statuses {
			judged += s.Confusion[k][i]
			labelled += s.Confusion[i][k]
		}
		chance += float64(judged) * float64(labelled) / float64(s.N*s.N)
	}
	if chance < 1 {
		s.Kappa, s.KappaDefined = (s.Agreement-chance)/(1-chance), true
	}
	for li, level := range confidences {
		var l CalibrationLevel
		for _, p := range pairs {
			if rank(p.Confidence) >= li {
				l.N++
				if p.Judge == p.Person {
					l.Agree++
				}
			}
		}
		if l.N > 0 {
			l.Agreement = float64(l.Agree) / float64(l.N)
		}
		s.AtOrAbove[level] = l
		if s.Reaches == "" && l.N > 0 && l.Agreement >= target {
			s.Reaches = level
		}
	}
	return s
}

func rank(confidence string) int {
	for i, c := range confidences {
		if c == confidence {
			return i
		}
	}
	return -1
}

// ByCriterion groups pairs by their criterion (scenario/criterion), keys sorted.
func ByCriterion(pairs []LabelPair) (keys []string, groups map[string][]LabelPair) {
	groups = map[string][]LabelPair{}
	for _, p := range pairs {
		groups[p.Key] = append(groups[p.Key], p)
	}
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, groups
}

// Says is a judged row's calibration as verdict rows and messages say it.
func (s Calibration) Says() string {
	return fmt.Sprintf("agrees with people %d of %d", s.Agree, s.N)
}

// WriteCalibration prints the statistics of every criterion and of all of them, against target.
func WriteCalibration(w io.Writer, pairs []LabelPair, target float64) error {
	keys, groups := ByCriterion(pairs)
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	line := func(name string, s Calibration) {
		kappa := "undefined (one status throughout)"
		if s.KappaDefined {
			kappa = fmt.Sprintf("%.3f", s.Kappa)
		}
		reaches := fmt.Sprintf("no confidence level reaches %.2f", target)
		if s.Reaches != "" {
			l := s.AtOrAbove[s.Reaches]
			reaches = fmt.Sprintf("reaches %.2f from %s confidence up (%d of %d)", target, s.Reaches, l.Agree, l.N)
		}
		p("%s: agreement %.3f (%d of %d), kappa %s; %s\n", name, s.Agreement, s.Agree, s.N, kappa, reaches)
	}
	for _, k := range keys {
		line(k, Calibrate(groups[k], target))
	}
	all := Calibrate(pairs, target)
	line("all criteria", all)
	p("\nconfusion (rows: the judge; columns: people)\n%-18s %6s %6s %18s\n", "", "Pass", "Fail", "Unable to Verify")
	for i, st := range statuses {
		p("%-18s %6d %6d %18d\n", st, all.Confusion[i][0], all.Confusion[i][1], all.Confusion[i][2])
	}
	return err
}
