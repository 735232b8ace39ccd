package spec

import (
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

var (
	pricingKeys = []string{"currency", "agent_model", "models"}
	priceKeys   = []string{"input_per_million", "output_per_million"}
)

// parsePricing reads pricing: a currency, the model the agent's usage is priced at, and a
// price per model (the judge's included), each price a non-negative number per million
// tokens in and out.
//
//	pricing:
//	  currency: USD
//	  agent_model: gpt-4o-mini
//	  models:
//	    gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.60}
func (p *Profile) parsePricing(e *errs, f field) {
	t := &record.Pricing{Currency: "USD", Models: map[string]record.Price{}}
	var agentNode *yaml.Node
	for _, k := range fields(e, f.v, "pricing", pricingKeys, true) {
		switch k.key {
		case "currency":
			t.Currency = str(e, k)
		case "agent_model":
			t.AgentModel, agentNode = str(e, k), k.v
		case "models":
			if k.v.Kind != yaml.MappingNode {
				e.at(k.v, "pricing.models must map each model's name to {input_per_million, output_per_million}, not %s", kindName(k.v))
				continue
			}
			for _, m := range fields(e, k.v, "pricing.models", nil, false) {
				t.Models[m.key] = price(e, m)
			}
		}
	}
	switch {
	case t.AgentModel == "":
		e.at(f.kNode, "pricing needs agent_model: the model in models the agent's usage is priced at")
	case !hasModel(t, t.AgentModel):
		e.at(agentNode, "pricing.agent_model %q has no price in pricing.models (it has: %s)", t.AgentModel, modelNames(t))
	}
	p.Pricing = t
}

func price(e *errs, m field) record.Price {
	var out record.Price
	seen := 0
	for _, k := range fields(e, m.v, "pricing.models."+m.key, priceKeys, true) {
		seen++
		v, ok := number(e, k) // refuses a negative number too
		if !ok {
			continue
		}
		if k.key == "input_per_million" {
			out.InputPerMillion = v
		} else {
			out.OutputPerMillion = v
		}
	}
	if m.v.Kind == yaml.MappingNode && seen < len(priceKeys) {
		e.at(m.v, "pricing.models.%s needs both input_per_million and output_per_million", m.key)
	}
	return out
}

func hasModel(t *record.Pricing, name string) bool { _, ok := t.Models[name]; return ok }

func modelNames(t *record.Pricing) string {
	names := make([]string, 0, len(t.Models))
	for n := range t.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	out := names[0]
	for _, n := range names[1:] {
		out += ", " + n
	}
	return out
}
