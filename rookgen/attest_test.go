package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	trpb "github.com/in-toto/attestation/go/predicates/test_result/v0"
	ita "github.com/in-toto/attestation/go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/testkit"
)

// readAttestation checks a Statement the way the in-toto project's own Go module reads one
// (a validator no one here wrote): the Statement parsed strictly and validated, every
// subject and configuration entry a valid ResourceDescriptor, and the predicate read as
// the test-result type, whose only field beyond the published ones is the statuses
// extension.
func readAttestation(t *testing.T, doc []byte) (*ita.Statement, *trpb.TestResult, map[string]string) {
	t.Helper()
	var st ita.Statement
	require.NoError(t, protojson.Unmarshal(doc, &st), "the Statement reads as in-toto's Statement v1")
	require.NoError(t, st.Validate())
	assert.Equal(t, "https://in-toto.io/Statement/v1", st.GetType())
	assert.Equal(t, "https://in-toto.io/attestation/test-result/v0.1", st.GetPredicateType())
	pred, err := protojson.Marshal(st.GetPredicate())
	require.NoError(t, err)
	var tr trpb.TestResult
	require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(pred, &tr))
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(pred, &fields))
	for k := range fields {
		assert.Contains(t, []string{"result", "configuration", "url", "passedTests", "warnedTests", "failedTests", "rookgoStatuses"}, k)
	}
	assert.Contains(t, []string{"PASSED", "WARNED", "FAILED"}, tr.GetResult())
	require.NotEmpty(t, tr.GetConfiguration(), "configuration is required")
	for _, rd := range append(st.GetSubject(), tr.GetConfiguration()...) {
		require.NoError(t, rd.Validate(), rd.GetName())
		require.Len(t, rd.GetDigest()["sha256"], 64, rd.GetName())
	}
	statuses := map[string]string{}
	if raw, ok := fields["rookgoStatuses"]; ok {
		require.NoError(t, json.Unmarshal(raw, &statuses))
	}
	return &st, &tr, statuses
}

// TestAttestMapsEveryStatusHonestly attests a run with a Pass, a Fail, an Unable to Verify
// and a verdict edited after it was written: only the Pass is passed; Unable to Verify is
// failed, or warned when asked, and never passed; the edited one is failed as untrusted;
// every record is a subject whose digest is the file's, the scenario snapshots are the
// configuration, and the checksums and predicate files say the same.
func TestAttestMapsEveryStatusHonestly(t *testing.T) {
	root := t.TempDir()
	runDir := testkit.WriteRun(t, filepath.Join(root, "fake", "2026-12-05T10-00-00Z"), "2026-12-05T10-00-00Z", map[string]record.Verdict{
		"SC-1": {Status: record.Pass},
		"SC-2": {Status: record.Fail},
		"SC-3": {Status: record.UnableToVerify, UnverifiableReason: record.Undecidable},
		"SC-4": {Status: record.Fail},
	})
	verdict := filepath.Join(runDir, "scenarios", "SC-4", "verdict.yaml")
	data, err := os.ReadFile(verdict)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(verdict, bytes.Replace(data, []byte("status: Fail"), []byte("status: Pass"), 1), 0o644))

	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"attest", "-dir", root, "-url", "https://ci.invalid/run/7",
		"-predicate", filepath.Join(out, "predicate.json"), "-checksums", filepath.Join(out, "records.sha256")}
	require.Equal(t, 0, run(args, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), "is FAILED")
	st, tr, statuses := readAttestation(t, stdout.Bytes())
	assert.Equal(t, "FAILED", tr.GetResult())
	assert.Equal(t, []string{"SC-1"}, tr.GetPassedTests())
	assert.ElementsMatch(t, []string{"SC-2", "SC-3", "SC-4"}, tr.GetFailedTests())
	assert.Empty(t, tr.GetWarnedTests())
	assert.Equal(t, "https://ci.invalid/run/7", tr.GetUrl())
	assert.Equal(t, map[string]string{"SC-2": "Fail", "SC-3": "Unable to Verify", "SC-4": "untrusted"}, statuses)

	names := map[string]string{}
	for _, s := range st.GetSubject() {
		names[s.GetName()] = s.GetDigest()["sha256"]
	}
	for _, rel := range []string{"run.yaml", "scenarios/SC-1/hooks.json", "scenarios/SC-1/verdict.yaml", "scenarios/SC-1/manifest.jsonl", "scenarios/SC-4/verdict.yaml"} {
		data, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(rel)))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		assert.Equal(t, hex.EncodeToString(sum[:]), names[rel], "%s is a subject with its digest", rel)
	}
	assert.NotContains(t, names, "scenarios/SC-1/snapshot.yaml", "a scenario's snapshot is configuration, not a record")
	var config []string
	for _, c := range tr.GetConfiguration() {
		config = append(config, c.GetName())
	}
	assert.Equal(t, []string{"scenarios/SC-1/snapshot.yaml", "scenarios/SC-2/snapshot.yaml", "scenarios/SC-3/snapshot.yaml", "scenarios/SC-4/snapshot.yaml"}, config)

	sums, err := os.Open(filepath.Join(out, "records.sha256"))
	require.NoError(t, err)
	defer sums.Close()
	lines := 0
	for sc := bufio.NewScanner(sums); sc.Scan(); lines++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, sc.Text())
		assert.Equal(t, names[name], sum, name)
	}
	assert.Equal(t, len(names), lines, "one checksum line per subject")
	pred, err := os.ReadFile(filepath.Join(out, "predicate.json"))
	require.NoError(t, err)
	var alone trpb.TestResult
	require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(pred, &alone))
	assert.Equal(t, tr.GetFailedTests(), alone.GetFailedTests())

	// Unable to Verify as warned, asked for: still not passed, and the run still FAILED
	// for its Fail.
	stdout.Reset()
	require.Equal(t, 0, run([]string{"attest", "-dir", root, "-unable", "warned"}, &stdout, &stderr), stderr.String())
	_, tr, _ = readAttestation(t, stdout.Bytes())
	assert.Equal(t, []string{"SC-3"}, tr.GetWarnedTests())
	assert.NotContains(t, tr.GetPassedTests(), "SC-3")
	assert.Equal(t, "FAILED", tr.GetResult())
}

// TestAttestResult is PASSED only when every test passed, WARNED for an Unable to Verify
// a policy chose to accept as a warning, and FAILED for a run that passed nothing.
func TestAttestResult(t *testing.T) {
	for name, c := range map[string]struct {
		verdicts map[string]record.Verdict
		args     []string
		want     string
	}{
		"all pass":         {map[string]record.Verdict{"SC-1": {Status: record.Pass}}, nil, "PASSED"},
		"unable as failed": {map[string]record.Verdict{"SC-1": {Status: record.Pass}, "SC-2": {Status: record.UnableToVerify}}, nil, "FAILED"},
		"unable as warned": {map[string]record.Verdict{"SC-1": {Status: record.Pass}, "SC-2": {Status: record.UnableToVerify}}, []string{"-unable", "warned"}, "WARNED"},
		"nothing passed":   {map[string]record.Verdict{"SC-1": {Status: record.UnableToVerify}}, []string{"-unable", "warned"}, "WARNED"},
		"nothing judged":   {map[string]record.Verdict{"SC-1": {}}, nil, "FAILED"},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			testkit.WriteRun(t, filepath.Join(root, "fake", "2026-12-05T10-00-00Z"), "2026-12-05T10-00-00Z", c.verdicts)
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(append([]string{"attest", "-dir", root}, c.args...), &stdout, &stderr), stderr.String())
			_, tr, _ := readAttestation(t, stdout.Bytes())
			assert.Equal(t, c.want, tr.GetResult())
		})
	}
}

// TestAttestRefusesALinkedRecord: a record that is a link was put there after the run (the
// run writes none), and the attestation is refused naming it rather than attesting what
// the link points at.
func TestAttestRefusesALinkedRecord(t *testing.T) {
	root := t.TempDir()
	runDir := testkit.WriteRun(t, filepath.Join(root, "fake", "2026-12-05T10-00-00Z"), "2026-12-05T10-00-00Z",
		map[string]record.Verdict{"SC-1": {Status: record.Pass}})
	secret := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(secret, []byte("token: s3cret"), 0o600))
	if err := os.Symlink(secret, filepath.Join(runDir, "scenarios", "SC-1", "evidence.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"attest", "-dir", root}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "scenarios/SC-1/evidence.json is not a regular file")
	assert.Empty(t, stdout.String())
}
