package engine

import "github.com/wblab/wblab/engine/report"

// What a run reports: the types live in engine/report (plain data, no model code,
// so the page's UI module reads results without linking the simulator); engine
// names them here.
type (
	Result        = report.Result
	ActorCPU      = report.ActorCPU
	DirtyAge      = report.DirtyAge
	TaskResult    = report.TaskResult
	FlusherResult = report.FlusherResult
	IostatSummary = report.IostatSummary
	MediaSummary  = report.MediaSummary
	WBTSummary    = report.WBTSummary
	ReadSummary   = report.ReadSummary
	InodeResult   = report.InodeResult
	DiskResult    = report.DiskResult
	DiskFull      = report.DiskFull
	LatencyResult = report.LatencyResult
	WaitShare     = report.WaitShare
	SavePoint     = report.SavePoint
	Series        = report.Series
	Detail        = report.Detail
	InodeDetail   = report.InodeDetail
	TaskDetail    = report.TaskDetail
	// Doc explains one number (explain.go).
	Doc = report.Doc
)

// ExitENOSPC is TaskResult.Exit of a writer whose write() failed with ENOSPC.
const ExitENOSPC = report.ExitENOSPC
