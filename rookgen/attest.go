package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	trpb "github.com/in-toto/attestation/go/predicates/test_result/v0"
	ita "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// TestResultType is the in-toto predicate type attest writes.
const TestResultType = "https://in-toto.io/attestation/test-result/v0.1"

// statusesField is the predicate's extension field (in-toto's parsing rules let a producer
// add one; a consumer that does not know it ignores it) that gives each test's status as
// the report says it, so that a scenario listed as failed or warned says why: Unable to
// Verify, untrusted, not run.
const statusesField = "rookgoStatuses"

// attestCmd writes a run as an in-toto Statement with the test-result predicate: each
// scenario a test, passed, warned or failed, and the run's records as the subjects, each
// with its SHA-256. It signs nothing: signing is the CI step's (docs/ci.md).
func attestCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen attest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	choice := chooseRun(fs)
	out := fs.String("o", "", "write the Statement to this file (default: standard output)")
	predicate := fs.String("predicate", "", "also write the predicate alone to this file (for a signing step that builds the Statement itself, such as actions/attest)")
	checksums := fs.String("checksums", "", "also write the subjects to this file as sha256sum lines (actions/attest's subject-checksums)")
	url := fs.String("url", "", "the CI run's URL (default: read from GitHub Actions' or GitLab CI's variables)")
	unable := fs.String("unable", "failed", "where an Unable to Verify scenario goes: failed, or warned (for a policy that knowingly accepts WARNED)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*unable != "failed" && *unable != "warned") {
		fmt.Fprintln(stderr, "usage: rookgen attest [-run ID | -agent A [-profile P]] [-dir records] [-o statement.json] [-predicate FILE] [-checksums FILE] [-url URL] [-unable failed|warned]")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen attest: %v\n", err)
		return 1
	}
	runDir, err := choice.find()
	if err != nil {
		return fail(err)
	}
	if *url == "" {
		*url = ciRunURL()
	}
	st, err := attestRun(runDir, *unable == "warned", *url)
	if err != nil {
		return fail(err)
	}
	doc, err := indentedJSON(st)
	if err == nil && *predicate != "" {
		var pred []byte
		if pred, err = indentedJSON(st.GetPredicate()); err == nil {
			err = store.WriteFile(*predicate, pred)
		}
	}
	if err == nil && *checksums != "" {
		err = store.WriteFile(*checksums, checksumLines(st.GetSubject()))
	}
	if err == nil && *out == "" {
		_, err = stdout.Write(doc)
	} else if err == nil {
		err = store.WriteFile(*out, doc)
	}
	if err != nil {
		return fail(err)
	}
	res := st.GetPredicate().GetFields()["result"].GetStringValue()
	fmt.Fprintf(stderr, "rookgen attest: run %s is %s, with %d records as subjects\n", filepath.Base(runDir), res, len(st.GetSubject()))
	return 0
}

// attestRun builds the Statement of the run in runDir. The tests are the scenarios the run
// planned, with the status the report gives them (a verdict whose records were changed is
// untrusted there). A Pass is passed. A Fail is failed, or warned when the scenario was
// quarantined (its failure does not fail the run, and says so). Unable to Verify is failed
// unless warnUnable, and never passed; untrusted, not judged, not run and unrunnable are
// failed. The result is FAILED when any test failed or none passed, else WARNED when any
// warned, else PASSED.
func attestRun(runDir string, warnUnable bool, url string) (*ita.Statement, error) {
	st := store.Store{Dir: runDir}
	run, err := st.Run()
	if err != nil {
		return nil, err
	}
	r, err := report.Build(runDir, "")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	tr := &trpb.TestResult{Url: url}
	statuses := map[string]any{}
	for sc := range r.Scenarios.All() {
		switch {
		case sc.Status == string(record.Pass):
			tr.PassedTests = append(tr.PassedTests, sc.ID)
			continue
		case sc.Status == string(record.Fail) && sc.Quarantined != "",
			sc.Status == string(record.UnableToVerify) && warnUnable:
			tr.WarnedTests = append(tr.WarnedTests, sc.ID)
		default:
			tr.FailedTests = append(tr.FailedTests, sc.ID)
		}
		statuses[sc.ID] = sc.Status
		if sc.Quarantined != "" {
			statuses[sc.ID] = sc.Status + " (quarantined: " + sc.Quarantined + ")"
		}
	}
	if err := r.Scenarios.Err(); err != nil {
		return nil, err
	}
	for _, e := range run.Unrunnable {
		tr.FailedTests = append(tr.FailedTests, e.ScenarioID)
		statuses[e.ScenarioID] = "unrunnable: " + e.Why
	}
	switch {
	case len(tr.FailedTests) > 0 || len(tr.PassedTests)+len(tr.WarnedTests) == 0:
		tr.Result = "FAILED"
	case len(tr.WarnedTests) > 0:
		tr.Result = "WARNED"
	default:
		tr.Result = "PASSED"
	}
	records, config, err := runFiles(runDir, run)
	if err != nil {
		return nil, err
	}
	tr.Configuration = config
	pred, err := predicateOf(tr, statuses)
	if err != nil {
		return nil, err
	}
	s := &ita.Statement{Type: ita.StatementTypeUri, Subject: records, PredicateType: TestResultType, Predicate: pred}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("the statement of run %s is not valid: %w", run.ID, err)
	}
	return s, nil
}

// predicateOf is tr as JSON with the statuses extension field beside its own.
func predicateOf(tr *trpb.TestResult, statuses map[string]any) (*structpb.Struct, error) {
	b, err := protojson.Marshal(tr)
	if err != nil {
		return nil, err
	}
	pred := &structpb.Struct{}
	if err := protojson.Unmarshal(b, pred); err != nil {
		return nil, err
	}
	if len(statuses) > 0 {
		v, err := structpb.NewValue(statuses)
		if err != nil {
			return nil, err
		}
		pred.Fields[statusesField] = v
	}
	return pred, nil
}

// runFiles are the run's records (run.yaml, report.yaml, and every file of each attempt:
// hooks.json, the verdict, traces, evidence, artifacts and the manifest that seals them)
// and its configuration (the profile and each scenario as the run took them), each with
// its SHA-256, in the order of their names. A hook's own scratch (hook-state) is neither.
// A record that is not a regular file is an error: no record is read through a link.
func runFiles(runDir string, run *record.Run) (records, config []*ita.ResourceDescriptor, err error) {
	add := func(to *[]*ita.ResourceDescriptor, rel string) error {
		sum, err := store.RecordDigest(filepath.Join(runDir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		*to = append(*to, &ita.ResourceDescriptor{Name: rel, Digest: map[string]string{"sha256": sum}})
		return nil
	}
	for _, name := range []string{"profile.yaml", "report.yaml", "run.yaml"} {
		to := &records
		if name == "profile.yaml" {
			to = &config
		}
		if err := add(to, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
	}
	if len(config) == 1 {
		config[0].Annotations, _ = structpb.NewStruct(map[string]any{
			"agent": run.Agent, "profile": run.Pins.ProfileID, "profileRevision": run.Pins.ProfileRevision, "runId": run.ID})
	}
	scenarios := filepath.Join(runDir, "scenarios")
	err = filepath.WalkDir(scenarios, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(runDir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (d.Name() == "hook-state" || strings.HasPrefix(d.Name(), ".") && path != scenarios):
			return filepath.SkipDir
		case d.IsDir(), strings.HasPrefix(d.Name(), "."):
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file: a record is never a link, so this run's records were changed after they were written", rel)
		case d.Name() == "snapshot.yaml":
			return add(&config, rel)
		}
		return add(&records, rel)
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // a run that ran no scenario has no scenarios folder
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the records of %s: %w", runDir, err)
	}
	if len(config) == 0 {
		return nil, nil, fmt.Errorf("run %s recorded no configuration (no profile.yaml, no scenario snapshot)", run.ID)
	}
	return records, config, nil
}

// indentedJSON is m as in-toto's JSON, indented: protojson varies its spacing from build
// to build on purpose, so it is indented again for a file that reads the same each time.
func indentedJSON(m proto.Message) ([]byte, error) {
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// checksumLines are the subjects as sha256sum writes them ("HEX  NAME"), a name holding a
// backslash or a line break escaped the way sha256sum escapes it.
func checksumLines(subjects []*ita.ResourceDescriptor) []byte {
	var b bytes.Buffer
	for _, s := range subjects {
		name := s.GetName()
		if strings.ContainsAny(name, "\\\n\r") {
			name = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r").Replace(name)
			b.WriteByte('\\')
		}
		fmt.Fprintf(&b, "%s  %s\n", s.GetDigest()["sha256"], name)
	}
	return b.Bytes()
}

// ciRunURL is the CI run's URL from the engine's own variables: GitHub Actions' server,
// repository and run id, or GitLab CI's job URL; "" elsewhere.
func ciRunURL() string {
	if server, repo, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"); server != "" && repo != "" && id != "" {
		return server + "/" + repo + "/actions/runs/" + id
	}
	return os.Getenv("CI_JOB_URL")
}
