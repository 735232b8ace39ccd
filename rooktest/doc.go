// Package rooktest runs agent scenarios as go tests, under Rook's fixed lifecycle.
//
// rookgen writes one test file per profile; each holds a [Suite] (where the profile and the
// agent's scenarios live, and their content hashes when generated) and a test function that
// calls [Start] and then t.Run once per scenario with [Run.Scenario]. Start loads the YAML,
// refuses a stale generated file, checks the profile's environment, and creates the run's
// record folder; each scenario subtest then runs open, execute per turn, close and collect
// as real subprocesses (prepare runs once per run, first), judges the recorded evidence, and
// reports one subtest per acceptance criterion.
//
// # Example
//
// A generated file looks like this:
//
//	var suiteStaging = rooktest.Suite{
//		Agent:   "refunds",
//		Profile: rooktest.File{Path: "profiles/refunds/staging.yaml", SHA256: "..."},
//		Scenarios: []rooktest.Scenario{
//			{ID: "SC-004", File: rooktest.File{Path: "scenarios/refunds/SC-004.yaml", SHA256: "..."}},
//		},
//	}
//
//	func TestStaging(t *testing.T) {
//		run := rooktest.Start(t, suiteStaging)
//		t.Run("SC-004_refund_over_limit", run.Scenario("SC-004"))
//	}
//
// # Outcomes
//
// Pass passes. Fail calls t.Error with a first line that stands alone ("Fail: expected
// issue_refund is never called"), then criterion, expected, achieved, evidence and
// confidence. Unable to Verify calls t.Skip with its reason; -rook.strict turns it, and
// unrunnable scenarios, into failures. A hook failure fails its scenario with phase, turn,
// script, exit status and the tail of stderr. Structured facts go out with t.Attr
// (rook.run_id, rook.records, rook.status, rook.reason), which gotestsum writes as JUnit
// properties.
//
// # Flags
//
// -rook.only, -rook.tag, -rook.class, -rook.category narrow the selection; -rook.dir moves
// the records; -rook.concurrency overrides the profile; -rook.strict is above.
// -rook.phases and -rook.skip run part of the lifecycle; -rook.run=<id> continues a run in
// place and -rook.resume=<id> starts a new one that carries unchanged verdicts forward. Each
// has a ROOKTEST_* environment twin (ROOKTEST_ONLY, ...), for IDE runners.
package rooktest
