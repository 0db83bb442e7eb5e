package ui

import (
	"strconv"
	"strings"

	"github.com/vugu/vugu"
)

// DiskEditor is the list of the machine's further disks (the first disk is the
// form's device): one row per disk in the --disk form (DEVICE,fs=...,dd=...),
// each editable and removable, and a button that adds one. It edits the form's
// "disks" control, so links, runs and errors follow the form.
type DiskEditor struct {
	lab *Root
}

// NewDiskSpec is the disk the add button appends: a USB stick with one copier.
const NewDiskSpec = "usb2-stick,fs=ext4,dd=1,bs=1M,count=256"

// DiskSpecs splits a "disks" control into its disks (empty parts dropped).
func DiskSpecs(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Specs are the further disks, in mount order.
func (c *DiskEditor) Specs() []string { return DiskSpecs(c.lab.Form.Form["disks"]) }

func (c *DiskEditor) set(specs []string) {
	c.lab.Form.Form["disks"] = strings.Join(specs, ";")
	delete(c.lab.Form.Errs, "disks")
	c.lab.Form.changed(true)
}

// SetDisk handles an edit of disk i's row.
func (c *DiskEditor) SetDisk(i int, e vugu.DOMEvent) {
	specs := c.Specs()
	if i < 0 || i >= len(specs) {
		return
	}
	v := strings.TrimSpace(e.PropString("target", "value"))
	if v == "" {
		specs = append(specs[:i], specs[i+1:]...)
	} else {
		specs[i] = v
	}
	c.set(specs)
}

// Remove drops disk i.
func (c *DiskEditor) Remove(i int) {
	specs := c.Specs()
	if i < 0 || i >= len(specs) {
		return
	}
	c.set(append(specs[:i], specs[i+1:]...))
}

// Add appends a disk (NewDiskSpec).
func (c *DiskEditor) Add() { c.set(append(c.Specs(), NewDiskSpec)) }

// RowID and RemoveID are disk i's input and remove button ids.
func (c *DiskEditor) RowID(i int) string    { return "disk-" + strconv.Itoa(i+1) }
func (c *DiskEditor) RemoveID(i int) string { return "disk-rm-" + strconv.Itoa(i+1) }

// Label names disk i as the kernel numbers it (the first disk is 8:0).
func (c *DiskEditor) Label(i int) string { return "disk " + strconv.Itoa(i+2) }

// Err is the engine's message about the disks ("" if none).
func (c *DiskEditor) Err() string { return c.lab.Form.Errs["disks"] }

// Help says what a row holds.
func (c *DiskEditor) Help() string {
	for _, f := range Fields("") {
		if f.ID == "disks" {
			return f.Help
		}
	}
	return ""
}
