// Package record is the schema of a run's records: the types every record file holds,
// the status words and reasons, and nothing else (it imports nothing of this module, so
// that every package can speak of records without reaching their store).
//
// A run is one folder, <records root>/<agent>/<run id>/:
//
//	run.yaml        Run: the plan (included, skipped, unrunnable), the profile pinned,
//	                phases_run, prepare's record, halting, resume_from and carried
//	profile.yaml    Profile: the profile as the run used it
//	report.yaml     Report: totals, metrics and clusters, from every scenario's records
//	prepare/hook-state/         prepare's ROOK_STATE_DIR
//	prepare/abandoned/<n>/      a failed prepare kept aside: prepare.yaml, hook-state/
//	run-state/                  ROOK_RUN_STATE_DIR
//	scenarios/<id>/snapshot.yaml    the scenario file, byte for byte
//	scenarios/<id>/request.json     Request
//	scenarios/<id>/hooks.json       Hooks: each phase's PhaseRecord, written as it ends
//	scenarios/<id>/response.json    Response: the reply, transcript, calls, usage
//	scenarios/<id>/verdict.yaml     Verdict: a Row per criterion, ForbiddenHits
//	scenarios/<id>/hook-state/      the attempt's ROOK_STATE_DIR
//	scenarios/<id>/artifacts/       copies of evidence_file
//	scenarios/<id>/abandoned/<n>/   records of an attempt that could not be continued
//	scenarios/<id>/attempts/<n>/    with repeat: each attempt's request, hooks,
//	                                response, verdict and state; the scenario's
//	                                verdict.yaml lists them as AttemptStatus
//	shards/<k>/                     in a merged run: shard k's run.yaml, report,
//	                                profile and prepare records
//
// Package store reads and writes these files.
package record
