package engine

import (
	"errors"
	"fmt"
)

// FailureError is a run stopped by an invariant failure: Error is the short
// message (the invariant and its numbers, the simulated time and the seed);
// Details holds the run's Config as JSON, to reproduce it, for a fold on the
// page or --verbose on the command line.
type FailureError struct {
	Err    error   // the invariant failure ("invariant NAME: ...")
	AtS    float64 // simulated time of the failure, seconds
	Seed   uint64
	Config []byte // the run's Config as JSON
}

func (e *FailureError) Error() string {
	return fmt.Sprintf("%v (at t=%.6fs, seed %d)", e.Err, e.AtS, e.Seed)
}

func (e *FailureError) Unwrap() error { return e.Err }

// Details is the long part of the failure: the config that reproduces it.
func (e *FailureError) Details() string { return "config " + string(e.Config) }

// ErrorDetails is the Details of err's FailureError (or of any error in its chain
// with a Details method), or "".
func ErrorDetails(err error) string {
	var d interface{ Details() string }
	if errors.As(err, &d) {
		return d.Details()
	}
	return ""
}
