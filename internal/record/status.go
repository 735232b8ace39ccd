package record

// Status is a criterion's or a scenario's outcome.
type Status string

// The three outcomes. Unable to Verify is never folded into Pass or Fail.
const (
	Pass           Status = "Pass"
	Fail           Status = "Fail"
	UnableToVerify Status = "Unable to Verify"
)

// Why a criterion or scenario is Unable to Verify.
const (
	AgentNeverRan = "agent_never_ran"
	NotObservable = "not_observable"
	Undecidable   = "undecidable"
)
