package record

// Pricing is a profile's price table (pricing:), as the run's profile.yaml keeps it: what
// a million tokens cost, in and out, per model, and which model the agent's usage is
// priced at. The judge's usage is priced at the model the judge was asked for.
type Pricing struct {
	// Currency names the unit of the prices ("USD" when the profile does not say).
	Currency   string           `yaml:"currency" json:"currency"`
	AgentModel string           `yaml:"agent_model" json:"agent_model"`
	Models     map[string]Price `yaml:"models" json:"models"`
}

// Price is what a million tokens cost.
type Price struct {
	InputPerMillion  float64 `yaml:"input_per_million" json:"input_per_million"`
	OutputPerMillion float64 `yaml:"output_per_million" json:"output_per_million"`
}
