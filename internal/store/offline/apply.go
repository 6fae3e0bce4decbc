package offline

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/butlerdotdev/butler-toolkit/internal/store"
	"github.com/butlerdotdev/butler-toolkit/internal/storeerr"
	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
	"github.com/butlerdotdev/butler-toolkit/pkg/manifest"
)

// ApplyClusters implements store.ClusterApplier on manifests: every cluster's document is
// worked out first, then all are written in one manifest.Write (every file rendered and
// checked before any is replaced), so a refusal of one writes none.
func (s *Store) ApplyClusters(_ context.Context, clusters []*v1alpha1.TenantCluster, o store.ApplyOptions) ([]store.Applied, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]store.Applied, len(clusters))
	var changes []manifest.Change
	edited := map[string]bool{}     // the files of the clusters edited, read again once written
	newFiles := map[string]string{} // file -> the cluster it was chosen for
	for i, c := range clusters {
		doc, cur, err := s.findCluster(c.Namespace, c.Name)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			file, err := s.newClusterFile(c, newFiles)
			if err != nil {
				return nil, err
			}
			obj := c.DeepCopy()
			changes = append(changes, manifest.Change{File: file, Obj: obj})
			out[i] = store.Applied{Object: obj, Location: file}
			continue
		}
		full := cur.DeepCopy()
		if full.Namespace == "" {
			full.Namespace = c.Namespace // a document may leave it to its team
		}
		merged, err := store.MergeApplied(full, c)
		if err != nil {
			return nil, err
		}
		src := doc.Source
		out[i] = store.Applied{Object: merged, Location: src.File}
		if equality.Semantic.DeepEqual(full, merged) {
			continue // unchanged: its file is not touched
		}
		if cur.Namespace == "" {
			merged = merged.DeepCopy()
			merged.Namespace = "" // nor does the edit add one
		}
		if src.File == manifest.Stdin {
			return nil, storeerr.Missing(storeerr.NeedWritableSource, "cannot write: tenantcluster %q came from stdin", c.Name)
		}
		changes = append(changes, manifest.Change{Source: &src, Obj: merged})
		edited[src.File] = true
	}
	if o.DryRun || len(changes) == 0 {
		return out, nil
	}
	if err := s.write(changes); err != nil {
		return nil, err
	}
	for file := range edited {
		s.reloadHeld(file)
	}
	return out, nil
}

// newClusterFile is where a new cluster goes (target), once per file: two new clusters
// whose files would be one (one name in two namespaces) are refused, not merged.
func (s *Store) newClusterFile(c *v1alpha1.TenantCluster, taken map[string]string) (string, error) {
	file, err := s.target("clusters", c.Name)
	if err != nil {
		return "", err
	}
	key := c.Namespace + "/" + c.Name
	if prev, ok := taken[file]; ok && prev != key && file != s.paths[0] {
		return "", fmt.Errorf("cannot write tenantclusters %s and %s to one new file %s: %w", prev, key, file, storeerr.ErrFileExists)
	}
	taken[file] = key
	return file, nil
}
