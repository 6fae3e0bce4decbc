package output

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/util/jsonpath"

	"github.com/butlerdotdev/butler-toolkit/internal/cmdutil"
	"github.com/butlerdotdev/butler-toolkit/internal/tables"
	"github.com/butlerdotdev/butler-toolkit/pkg/fileio"
)

// maxTemplateFile bounds -o custom-columns-file: a column spec, not data.
const maxTemplateFile = 64 << 10

// data is what jsonpath sees of an item: its object, or in view mode its view, as JSON.
func (it *Item) data(viewMode bool) (map[string]any, error) {
	if it.objectData != nil {
		return it.objectData, nil
	}
	var v any = it.View
	if !viewMode && it.Object != nil {
		v = it.Object
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("an item's view is not an object: %w", err)
	}
	it.objectData = m
	return m, nil
}

// relaxed accepts ".metadata.name" and "metadata.name" as "{.metadata.name}", as kubectl
// does.
func relaxed(path string) string {
	p := strings.TrimSpace(path)
	if strings.HasPrefix(p, "{") {
		return p
	}
	if !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "[") {
		p = "." + p
	}
	return "{" + p + "}"
}

func parsePath(flag, path string) (*jsonpath.JSONPath, error) {
	jp := jsonpath.New(flag).AllowMissingKeys(true)
	if err := jp.Parse(relaxed(path)); err != nil {
		return nil, cmdutil.UsageError("%s: %q is not a JSONPath: %v", flag, path, err)
	}
	return jp, nil
}

// values evaluates jp over data: its results joined by commas, "" when missing.
func values(jp *jsonpath.JSONPath, data map[string]any) (string, bool, error) {
	res, err := jp.FindResults(data)
	if err != nil {
		return "", false, err
	}
	var parts []string
	for _, r := range res {
		for _, v := range r {
			parts = append(parts, fmt.Sprint(v.Interface()))
		}
	}
	return strings.Join(parts, ","), len(parts) > 0, nil
}

// sortItems orders items by the JSONPath, stably: numbers by value, Kubernetes quantities
// (8Gi, 500m) by amount, anything else as text; items without the field come first. A path
// that no item has is a usage error, as in kubectl.
func sortItems(items []Item, path string, viewMode bool) error {
	jp, err := parsePath("--sort-by", path)
	if err != nil {
		return err
	}
	keys := make([]string, len(items))
	found := false
	for i := range items {
		d, err := items[i].data(viewMode)
		if err != nil {
			return err
		}
		k, ok, err := values(jp, d)
		if err != nil {
			return cmdutil.UsageError("--sort-by %q: %v", path, err)
		}
		keys[i], found = k, found || ok
	}
	if !found && len(items) > 0 {
		return cmdutil.UsageError("--sort-by %q: no item has that field", path)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(keys[idx[a]], keys[idx[b]]) })
	sorted := make([]Item, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
	return nil
}

func less(a, b string) bool {
	if fa, err := strconv.ParseFloat(a, 64); err == nil {
		if fb, err := strconv.ParseFloat(b, 64); err == nil {
			return fa < fb
		}
	}
	if qa, err := resource.ParseQuantity(a); err == nil {
		if qb, err := resource.ParseQuantity(b); err == nil {
			return qa.Cmp(qb) < 0
		}
	}
	return a < b
}

// column is one custom column: its header and its JSONPath.
type column struct {
	header string
	path   *jsonpath.JSONPath
}

// parseColumns reads "NAME:.metadata.name,TEAM:.spec.teamRef.name", or for the -file
// variant a file whose first line holds the headers and second the paths, as kubectl does.
func parseColumns(family, value string) ([]column, error) {
	var headers, paths []string
	if family == CustomColumns {
		for _, part := range strings.Split(value, ",") {
			h, p, ok := strings.Cut(part, ":")
			if !ok || h == "" || p == "" {
				return nil, cmdutil.UsageError("-o custom-columns: %q is not HEADER:JSONPATH", part)
			}
			headers, paths = append(headers, h), append(paths, p)
		}
	} else {
		b, err := fileio.ReadFile(value, maxTemplateFile)
		if err != nil {
			return nil, cmdutil.UsageError("-o %s: %v", family, err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 {
			return nil, cmdutil.UsageError("-o %s: %s must have two lines, the headers and the JSONPaths", family, value)
		}
		headers, paths = strings.Fields(lines[0]), strings.Fields(lines[1])
		if len(headers) != len(paths) || len(headers) == 0 {
			return nil, cmdutil.UsageError("-o %s: %s has %d headers and %d JSONPaths", family, value, len(headers), len(paths))
		}
	}
	cols := make([]column, len(headers))
	for i := range headers {
		jp, err := parsePath("-o "+family, paths[i])
		if err != nil {
			return nil, err
		}
		cols[i] = column{header: headers[i], path: jp}
	}
	return cols, nil
}

func (p *Printer) customColumns(d Doc, family, value string, viewMode bool) error {
	cols, err := parseColumns(family, value)
	if err != nil {
		return err
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.header
	}
	t := tables.NewTable(false, header...)
	t.NoHeaders = p.fl.NoHeaders
	for i := range d.Items {
		data, err := d.Items[i].data(viewMode)
		if err != nil {
			return err
		}
		row := make([]string, len(cols))
		for j, c := range cols {
			v, ok, err := values(c.path, data)
			if err != nil {
				return err
			}
			if !ok {
				v = "<none>"
			}
			row[j] = v
		}
		t.Row(row...)
	}
	return t.Render(p.streams.Out)
}
