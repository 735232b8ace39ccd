package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
)

// judgeCheckCmd qualifies a judge server before a suite trusts it: the judge kit's
// known-answer requests, scored per class, and how the server takes response_format. It
// exits 1 when the judge is right less often than -min overall, or fails the preflight.
func judgeCheckCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen judge-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", os.Getenv("ROOK_JUDGE_URL"), "the judge server's base URL (default $ROOK_JUDGE_URL)")
	model := fs.String("model", os.Getenv("ROOK_JUDGE_MODEL"), "the judge model (default $ROOK_JUDGE_MODEL)")
	minimum := fs.Float64("min", 0.8, "the share of the kit's criteria the judge must decide right")
	samples := fs.Int("samples", 1, "answers asked for each request, as -rook.judge-samples")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound on each request")
	mode := fs.String("mode", modeljudge.ModeOne, "one or commit (the replies withheld first), as -rook.judge-mode")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *url == "" || *model == "" || fs.NArg() > 0 || *minimum <= 0 || *minimum > 1 || *samples < 1 || *samples%2 == 0 ||
		*mode != modeljudge.ModeOne && *mode != modeljudge.ModeCommit {
		fmt.Fprintln(stderr, "usage: rookgen judge-check [-url URL] [-model M] [-min 0.8] [-samples N (odd)] [-mode one|commit]; the API key is read from $ROOK_JUDGE_API_KEY")
		return 2
	}
	j := modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: *url, Model: *model, APIKey: os.Getenv("ROOK_JUDGE_API_KEY"),
		Timeout: *timeout, Retries: 3, Preflight: true, Samples: *samples, Mode: *mode})
	ctx := context.Background()
	if err := j.Preflight(ctx); err != nil {
		fmt.Fprintf(stderr, "rookgen judge-check: %v\n", err)
		return 1
	}
	scores := modeljudge.CheckKit(ctx, j)
	fmt.Fprintf(stdout, "judge %s at %s: %d requests of the judge kit, asked %s\n", *model, j.URL(), len(modeljudge.Kit()),
		map[string]string{modeljudge.ModeOne: "once each", modeljudge.ModeCommit: "first with the replies withheld where the record has calls or collected evidence"}[*mode])
	if err := modeljudge.WriteKit(stdout, scores); err != nil {
		fmt.Fprintf(stderr, "rookgen judge-check: %v\n", err)
		return 1
	}
	format := j.Format()
	if format == "json_schema" {
		fmt.Fprintln(stdout, "response_format: the server takes a json_schema")
	} else {
		fmt.Fprintf(stdout, "response_format: the server refused or ignored a json_schema; the judge asks with %s (answers are still validated here)\n", format)
	}
	all := scores[len(scores)-1]
	if all.Accuracy() < *minimum {
		fmt.Fprintf(stderr, "rookgen judge-check: the judge decided %d of %d right (%.2f), below -min %.2f: do not trust it with a suite\n",
			all.Right, all.Asked, all.Accuracy(), *minimum)
		return 1
	}
	fmt.Fprintf(stdout, "ok: %.2f at least -min %s\n", all.Accuracy(), strings.TrimRight(fmt.Sprintf("%.2f", *minimum), "0"))
	return 0
}
