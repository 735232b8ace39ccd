// Package scenarios holds the agents' scenarios and the go tests rookgen generates from
// them, one package per agent: go test ./scenarios/... runs them all.
package scenarios

//go:generate go run ../rookgen
