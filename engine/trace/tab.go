package trace

import (
	"math"
	"strconv"
	"strings"
)

// Tab reads one trace line the way the harness's trace_tab EVENT does
// (kernel-notes §5.3):
//
//	grep -o "[0-9.]\+: EVENT: .*" | sed 's/bdi [^ ]\+//; s/[^0-9.-]\+/ /g'
//
// and then splits the result on blanks as gnuplot does. cols[k-1] is the harness's
// column k: column 1 is the timestamp, then the numbers in printk order. A field that
// is not a number (a lone "-" or ".") is NaN. ok is false when grep would not match.
// event is matched literally.
func Tab(line, event string) (cols []float64, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	m, ok := grepO(line, event)
	if !ok {
		return nil, false
	}
	m = sedBdi(m)
	for i := 0; i < len(m); {
		if !isNumChar(m[i]) {
			i++
			continue
		}
		j := i
		for j < len(m) && isNumChar(m[j]) {
			j++
		}
		v, err := strconv.ParseFloat(m[i:j], 64)
		if err != nil {
			v = math.NaN()
		}
		cols = append(cols, v)
		i = j
	}
	return cols, true
}

// isNumChar is the bracket [0-9.-] of the harness's second sed expression.
func isNumChar(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == '-' }

// grepO is grep -o "[0-9.]\+: EVENT: .*" on one line: the leftmost match runs from the
// start of the [0-9.] run that ends at the first ": EVENT: " preceded by one, to the
// end of the line.
func grepO(line, event string) (string, bool) {
	sep := ": " + event + ": "
	for from := 0; from < len(line); {
		j := strings.Index(line[from:], sep)
		if j < 0 {
			return "", false
		}
		j += from
		s := j
		for s > 0 && (line[s-1] >= '0' && line[s-1] <= '9' || line[s-1] == '.') {
			s--
		}
		if s < j {
			return line[s:], true
		}
		from = j + 1
	}
	return "", false
}

// sedBdi is sed 's/bdi [^ ]\+//': delete the first "bdi " followed by at least one
// non-blank, together with that run of non-blanks.
func sedBdi(s string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], "bdi ")
		if i < 0 {
			return s
		}
		i += from
		k := i + len("bdi ")
		e := k
		for e < len(s) && s[e] != ' ' {
			e++
		}
		if e > k {
			return s[:i] + s[e:]
		}
		from = i + 1
	}
}
