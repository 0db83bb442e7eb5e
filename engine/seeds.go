package engine

import (
	"context"
	"fmt"

	"github.com/wblab/wblab/engine/stats"
)

// MaxSeeds bounds a seed sweep.
const MaxSeeds = 100

// CheckSeeds validates a seed count (0 means 1).
func CheckSeeds(n int) (int, error) {
	if n == 0 {
		return 1, nil
	}
	if n < 1 || n > MaxSeeds {
		return 0, fmt.Errorf("seeds: %d out of range [1, %d]", n, MaxSeeds)
	}
	return n, nil
}

// SeedConfigs returns cfg with the seeds cfg.Seed, cfg.Seed+1, ... (n configs).
func SeedConfigs(cfg Config, n int) []Config {
	out := make([]Config, n)
	for i := range out {
		out[i] = cfg.Clone()
		out[i].Seed = cfg.Seed + uint64(i)
	}
	return out
}

// SeedSweep is one config run with several seeds: what varies between them is the
// machine variation (sim.MachineVariation) and what the dynamics make of it.
type SeedSweep struct {
	Seeds []uint64 `json:"seeds"`
	// WriteBW is write_bw over the seeds: mean, min-max, sd and the 95 % CI.
	WriteBW stats.Summary `json:"write_bw_MBps"`
	Results []*Result     `json:"results"`
}

// RunSeeds runs cfg with n seeds (cfg.Seed .. cfg.Seed+n-1; n in [1, MaxSeeds])
// in parallel through RunAll.
func RunSeeds(ctx context.Context, cfg Config, n int) (*SeedSweep, error) {
	n, err := CheckSeeds(n)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfgs := SeedConfigs(cfg, n)
	res, err := RunAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	sw := &SeedSweep{Results: res}
	bw := make([]float64, n)
	for i, r := range res {
		sw.Seeds = append(sw.Seeds, r.Seed)
		bw[i] = r.WriteBWMBps
	}
	sw.WriteBW = stats.Of(bw)
	return sw, nil
}

// Text is the sweep's summary: one line per seed and the statistics.
func (s *SeedSweep) Text() string {
	out := ""
	for i, r := range s.Results {
		out += fmt.Sprintf("seed %-6d write_bw %8.2f MB/s  (%d events)\n", s.Seeds[i], r.WriteBWMBps, r.Events)
	}
	w := s.WriteBW
	out += fmt.Sprintf("%d seeds   write_bw mean %.2f MB/s, min-max %.2f-%.2f, sd %.2f (CV %.2f%%), 95%% CI ±%.2f\n",
		w.N, w.Mean, w.Min, w.Max, w.SD, 100*w.CV(), w.CI95)
	return out
}
