package tables

import (
	"bytes"
	"testing"
)

func TestTableIsPlainWhenPiped(t *testing.T) {
	tb := NewTable(false, "NAME", "CLUSTERS", "MAX CLUSTERS")
	tb.Row("dev", "2", "-")
	tb.Row("production", "10", "6")
	var b bytes.Buffer
	if err := tb.Render(&b); err != nil {
		t.Fatal(err)
	}
	want := "NAME         CLUSTERS   MAX CLUSTERS\n" +
		"dev          2          -\n" +
		"production   10         6\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}
