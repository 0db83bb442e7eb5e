// Package validate compares wblab with a real Linux kernel measured in QEMU: it parses
// the serial console logs of validate/qemu (README.md there), derives the measured
// figures and time series, and runs the 6.1 preset on the same cases.
package validate

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Log is one case's serial console, parsed. The guest prints "H" lines (the case and
// the settings read back from the kernel), one "S" line per sample, "E" events and
// "END"; run-case.sh adds host "H" lines around them. Other lines (BIOS, kernel
// messages) are ignored.
type Log struct {
	Name    string
	Header  map[string]string // every H key=value, except the disk lines'
	Disks   []Disk            // in the guest's order (vda first)
	Writers []Writer          // harness 2 (work "mix"): the writers, w1 first
	Samples []Sample
	Events  []Event
	StartT  float64 // guest uptime when the writers started (E start)
	EndT    float64 // guest uptime at END
}

// Disk is one virtio disk as the guest saw it, and the host throttle on it.
type Disk struct {
	Name         string // vda, vdb
	Dev          string // major:minor, the bdi's name in debugfs
	Sched        string
	WBTLatUs     int64 // 0: blk-wbt off
	Rotational   bool
	WriteCache   string
	NrRequests   int64
	MaxSectorsKB int64
	HWQueues     int64
	ThrottleBps  int64 // QEMU's throttling.bps-write on this disk
}

// Writer is one dd of harness 2: "H writer=w1 on=vda bs=1M count_MiB=0" (0: it
// runs until killed).
type Writer struct {
	Name     string // w1, w2, ...: its file and its "| dd" sample part
	Disk     string // vda, vdb
	BS       int64
	CountMiB int64
}

// Sample is one "S" line: /proc/vmstat counters (pages), each bdi's debugfs stats
// (kB, keyed by disk name), each disk's /sys/block/*/stat fields and (harness 2) each
// writer's bytes so far (its file's size, keyed by writer name).
type Sample struct {
	T   float64
	VM  map[string]int64
	BDI map[string]map[string]int64
	Blk map[string]map[string]int64
	DD  map[string]int64
	// DDCPU is each writer's dd CPU time so far (utime + stime, USER_HZ ticks), where
	// the log records it (cpu_ticks=, from December 2026's init.sh)
	DDCPU map[string]int64
}

// Event is one "E" line: a kind and its key=value fields.
type Event struct {
	Kind   string
	T      float64
	Fields map[string]string
}

// clean drops the terminal escapes SeaBIOS prints (ESC c, ESC [ ... letter) and its
// last line, "Booting from ROM..", which the guest's first line may follow without a
// newline. (No regexp: the page links this package, and regexp is 300 KB of wasm.)
func clean(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] != 0x1b {
			b.WriteByte(line[i])
			continue
		}
		switch {
		case i+1 < len(line) && line[i+1] == 'c':
			i++
		case i+1 < len(line) && line[i+1] == '[':
			j := i + 2
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';' || line[j] == '?') {
				j++
			}
			if j < len(line) && (line[j] >= 'A' && line[j] <= 'Z' || line[j] >= 'a' && line[j] <= 'z') {
				i = j
			} else {
				b.WriteByte(line[i])
			}
		default:
			b.WriteByte(line[i])
		}
	}
	s := b.String()
	if i := strings.Index(s, "Booting from ROM"); i >= 0 {
		s = strings.TrimLeft(s[i+len("Booting from ROM"):], ".")
	}
	return strings.TrimSpace(s)
}

// ReadLog parses a console log, gzip-compressed or not.
func ReadLog(name string, r io.Reader) (*Log, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(2); err == nil && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	l := &Log{Name: name, Header: map[string]string{}}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n, ended := 0, false
	for sc.Scan() {
		n++
		line := clean(sc.Text())
		var err error
		switch {
		case strings.HasPrefix(line, "H "):
			err = l.header(line[2:])
		case strings.HasPrefix(line, "S "):
			err = l.sample(line[2:])
		case strings.HasPrefix(line, "E "):
			err = l.event(line[2:])
		case strings.HasPrefix(line, "END "):
			l.EndT, err = floatField(fields(line[4:]), "t")
			ended = true
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case !ended:
		return nil, fmt.Errorf("%s: no END line (the guest did not finish the case)", name)
	case len(l.Disks) == 0:
		return nil, fmt.Errorf("%s: no H disk= line", name)
	case len(l.Samples) < 2:
		return nil, fmt.Errorf("%s: %d samples, want at least 2", name, len(l.Samples))
	}
	if l.Header["error"] != "" {
		return nil, fmt.Errorf("%s: guest error %s", name, l.Header["error"])
	}
	return l, nil
}

// fields splits "k=v k=v" (values without spaces).
func fields(s string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(s) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

func floatField(m map[string]string, k string) (float64, error) {
	v, ok := m[k]
	if !ok {
		return 0, fmt.Errorf("no %s=", k)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a number", k, v)
	}
	return f, nil
}

func intField(m map[string]string, k string) (int64, error) {
	v, ok := m[k]
	if !ok {
		return 0, fmt.Errorf("no %s=", k)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not an integer", k, v)
	}
	return n, nil
}

func (l *Log) header(s string) error {
	m := fields(s)
	if name, ok := m["writer"]; ok {
		bs, err := parseSize(m["bs"])
		if err != nil {
			return fmt.Errorf("writer %s: bs: %w", name, err)
		}
		n, err := intField(m, "count_MiB")
		if err != nil {
			return fmt.Errorf("writer %s: %w", name, err)
		}
		l.Writers = append(l.Writers, Writer{Name: name, Disk: m["on"], BS: bs, CountMiB: n})
		return nil
	}
	if name, ok := m["disk"]; ok {
		d := Disk{Name: name, Dev: m["dev"], Sched: m["sched"], WriteCache: m["write_cache"], Rotational: m["rotational"] == "1"}
		var err error
		for _, f := range []struct {
			k string
			p *int64
		}{{"wbt_lat_usec", &d.WBTLatUs}, {"nr_requests", &d.NrRequests}, {"max_sectors_kb", &d.MaxSectorsKB}, {"nr_hw_queues", &d.HWQueues}} {
			if *f.p, err = intField(m, f.k); err != nil {
				return fmt.Errorf("disk %s: %w", name, err)
			}
		}
		if t, ok := l.Header["throttle_bps_write_"+name]; ok {
			d.ThrottleBps, _ = strconv.ParseInt(t, 10, 64)
		}
		l.Disks = append(l.Disks, d)
		return nil
	}
	for k, v := range m {
		l.Header[k] = v
	}
	return nil
}

// sample parses "t=T k=v ... | bdi DEV k=v ... | blk NAME k=v ...".
func (l *Log) sample(s string) error {
	if len(l.Disks) == 0 {
		return fmt.Errorf("no H disk= line before the first sample")
	}
	parts := strings.Split(s, " | ")
	m := fields(parts[0])
	t, err := floatField(m, "t")
	if err != nil {
		return err
	}
	sm := Sample{T: t, VM: map[string]int64{}, BDI: map[string]map[string]int64{}, Blk: map[string]map[string]int64{}, DD: map[string]int64{}, DDCPU: map[string]int64{}}
	for k, v := range m {
		if k == "t" {
			continue
		}
		if sm.VM[k], err = strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Errorf("vmstat %s=%q is not an integer", k, v)
		}
	}
	for _, p := range parts[1:] {
		kind, rest, _ := strings.Cut(p, " ")
		id, kv, _ := strings.Cut(rest, " ")
		vals := map[string]int64{}
		for k, v := range fields(kv) {
			if vals[k], err = strconv.ParseInt(v, 10, 64); err != nil {
				return fmt.Errorf("%s %s: %s=%q is not an integer", kind, id, k, v)
			}
		}
		switch kind {
		case "bdi":
			disk := l.diskByDev(id)
			if disk == "" {
				continue // a bdi of no virtio disk
			}
			sm.BDI[disk] = vals
		case "blk":
			sm.Blk[id] = vals
		case "dd":
			sm.DD[id] = vals["bytes"]
			if c, ok := vals["cpu_ticks"]; ok {
				sm.DDCPU[id] = c
			}
		default:
			return fmt.Errorf("unknown sample part %q", kind)
		}
	}
	l.Samples = append(l.Samples, sm)
	return nil
}

// diskByDev names the disk a bdi belongs to. A disk's filesystem may write back
// through a bdi of its own (btrfs-N; H fs_bdi= for the first disk, fs_bdi_vdb= for
// the second); then that one is the disk's and the block device's own bdi is left out.
func (l *Log) diskByDev(dev string) string {
	for i, d := range l.Disks {
		key := "fs_bdi"
		if i > 0 {
			key += "_" + d.Name
		}
		if fb := l.Header[key]; fb != "" && fb != d.Dev {
			switch dev {
			case fb:
				return d.Name
			case d.Dev:
				return ""
			}
		}
	}
	for _, d := range l.Disks {
		if d.Dev == dev {
			return d.Name
		}
	}
	return ""
}

func (l *Log) event(s string) error {
	kind, rest, _ := strings.Cut(s, " ")
	m := fields(rest)
	e := Event{Kind: kind, Fields: m}
	if _, ok := m["t"]; ok {
		t, err := floatField(m, "t")
		if err != nil {
			return fmt.Errorf("event %s: %w", kind, err)
		}
		e.T = t
	}
	if kind == "start" {
		l.StartT = e.T
	}
	l.Events = append(l.Events, e)
	return nil
}
