package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wblab/wblab/engine"
)

// runSeedsCmd is "wblab run --seeds N": the case with N seeds in parallel.
func runSeedsCmd(ctx context.Context, cfg engine.Config, o *runOpts, stdout, stderr io.Writer) int {
	if cfg.Seed > ^uint64(0)-uint64(o.seeds) {
		return report(stderr, badInput("--seed %d: too large for --seeds %d", cfg.Seed, o.seeds))
	}
	sw, err := engine.RunSeeds(ctx, cfg, o.seeds)
	if err != nil {
		writeRunError(stderr, "wblab run: "+cfg.Case, err, o.verbose)
		return exitFailed
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(sw)
	} else {
		// the first seed's summary, then every seed's write_bw and the statistics
		if err = sw.Results[0].WriteSummary(stdout); err == nil {
			_, err = io.WriteString(stdout, "\n"+sw.Text())
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "wblab run: writing the result: %v\n", err)
		return exitFailed
	}
	return exitOK
}
