package lifecycle_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// Three secrets a hook prints every way it can (stderr across lines, stdout values and
// keys, JSON-escaped, a failing phase's diagnosis): none of them, nor a telling part of one,
// reaches a record or the log.
func TestSecretsNeverReachRecordsOrLog(t *testing.T) {
	secrets := map[string]string{
		"TOK": "tok4242secretvalue",
		"ODD": `Sup3r"Se\cr3t!Val`,
		"PEM": "-----BEGIN TEST KEY-----\nMIIEpAIBAAKCAQEA7secretline\n-----END TEST KEY-----",
	}
	tok, _ := json.Marshal(secrets["TOK"])
	odd, _ := json.Marshal(secrets["ODD"])
	pem, _ := json.Marshal(secrets["PEM"])
	out := `{"output": "tok ` + string(tok[1:len(tok)-1]) + ` odd ` + string(odd[1:len(odd)-1]) + `", ` + string(odd) + `: ` + string(pem) + `, "conversation": "c"}`
	f := newRun(t, map[string]string{
		"FAKEHOOK_EXECUTE": "json:" + out,
		"FAKEHOOK_STDERR":  "using $SECRET_TOK and $SECRET_ODD with\n$SECRET_PEM",
		"FAKEHOOK_COLLECT": "exit:3:collect failed with $SECRET_ODD and $SECRET_PEM",
	}, "")
	cfg := f.cfg
	for name, v := range secrets {
		cfg.Env = append(cfg.Env, "SECRET_"+name+"="+v)
	}
	cfg.Redactor = store.NewRedactor(secrets)
	r, err := lifecycle.New(cfg, time.Now().Add(time.Second))
	require.NoError(t, err)
	sc, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: nothing}}\n"))
	require.NoError(t, err)
	require.Nil(t, r.Prepare(context.Background(), f.logs.add))
	o := r.Scenario(context.Background(), sc, f.logs.add)
	_, err = r.Finish(context.Background(), time.Now())
	require.NoError(t, err)

	var texts []string
	texts = append(texts, f.logs.all())
	for _, a := range o.Attempts {
		for _, pe := range a.Failures {
			texts = append(texts, pe.Error(), pe.Stderr)
		}
	}
	require.NoError(t, filepath.WalkDir(r.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		texts = append(texts, string(b))
		return err
	}))
	all := strings.Join(texts, "\n")
	for _, part := range []string{"tok4242", "Sup3r", "Se\\cr3t", "cr3t!Val", "MIIEpAIBAAKCAQEA7secretline", "BEGIN TEST KEY"} {
		assert.NotContains(t, all, part)
	}
	assert.Contains(t, f.logs.all(), "[redacted:PEM]", "the key spanning lines was redacted whole")
	assert.Contains(t, all, `"[redacted:ODD]": "[redacted:PEM]"`, "a secret used as a key")
}

// A secret that equals record vocabulary (a year, a status) must not rewrite run ids,
// timestamps or verdicts: only free text is redacted.
func TestSecretEqualToRecordVocabulary(t *testing.T) {
	f := newRun(t, nil, "")
	cfg := f.cfg
	year := time.Now().UTC().Format("2006")
	cfg.Redactor = store.NewRedactor(map[string]string{"YEAR": year, "WORD": "Pass"})
	f.run.Close()
	r, err := lifecycle.New(cfg, time.Now().Add(2*time.Second))
	require.NoError(t, err)
	sc, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n"))
	require.NoError(t, err)
	o := r.Scenario(context.Background(), sc, f.logs.add)
	require.Equal(t, "Pass", string(o.Verdict.Status))
	_, err = r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	run := readYAML(t, filepath.Join(r.Dir, "run.yaml"))
	assert.Equal(t, r.ID, run["id"], "the run id keeps its year")
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, "Pass", v["status"])
	assert.Equal(t, r.ID, v["run_id"])
	r.Close()
	again, err := lifecycle.Continue(cfg, r.ID, time.Now())
	require.NoError(t, err, "the run can be continued")
	again.Close()
}
