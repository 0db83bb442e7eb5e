package report

// Doc explains one number: what it is, the kernel variable or tracepoint it mirrors,
// the function that computes it, and what healthy and pathological look like.
type Doc struct {
	Name     string // the series column or card ID
	Meaning  string
	Kernel   string // the kernel variable or tracepoint field
	Function string // the kernel function that computes or updates it
	Healthy  string
	Bad      string // what pathological looks like
}

// Text is the doc in one paragraph (tooltips, aria).
func (d Doc) Text() string {
	s := d.Meaning
	if d.Kernel != "" {
		s += " Kernel: " + d.Kernel + "."
	}
	if d.Function != "" {
		s += " Computed in " + d.Function + "."
	}
	if d.Healthy != "" {
		s += " Healthy: " + d.Healthy + "."
	}
	if d.Bad != "" {
		s += " Pathological: " + d.Bad + "."
	}
	return s
}

// Stat is one filesystem counter of a run, for the Result and the CLI.
type Stat struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	Doc   string `json:"doc"`
}
