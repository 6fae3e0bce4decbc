package policy

import (
	"math"
	"math/big"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/butlerdotdev/butler-toolkit/pkg/apis/butler/v1alpha1"
)

// Quota statuses (docs/rules.md §7).
const (
	QuotaOK       = "OK"
	QuotaWarning  = "Warning"
	QuotaExceeded = "Exceeded"
)

// Usage is what a set of TenantClusters consumes, summed the way the TenantCluster webhook
// sums it (docs/rules.md §7): CPU is cores × replicas as a DecimalSI quantity, memory and
// storage are the per-worker quantity added once per replica to a BinarySI zero. Because
// Quantity.Add takes the format of the first addend that moves a zero sum, the sums print
// (String) exactly as the server prints them in its messages.
type Usage struct {
	Clusters int
	Nodes    int64
	CPU      resource.Quantity
	Memory   resource.Quantity
	Storage  resource.Quantity
}

// SumUsage sums the clusters for which include returns true (nil includes all). Clusters
// being deleted still count, as on the server.
func SumUsage(clusters []v1alpha1.TenantCluster, include func(*v1alpha1.TenantCluster) bool) Usage {
	var u Usage
	cpu, mem, disk := newQuantitySum(resource.DecimalSI), newQuantitySum(resource.BinarySI), newQuantitySum(resource.BinarySI)
	for i := range clusters {
		c := &clusters[i]
		if include != nil && !include(c) {
			continue
		}
		u.Clusters++
		w := &c.Spec.Workers
		r := int64(w.Replicas)
		u.Nodes += r
		cpu.addInt(int64(w.MachineTemplate.CPU)*r, resource.DecimalSI, 1)
		mem.addQuantity(w.MachineTemplate.Memory, r)
		disk.addQuantity(w.MachineTemplate.DiskSize, r)
	}
	u.CPU, u.Memory, u.Storage = cpu.quantity(), mem.quantity(), disk.quantity()
	return u
}

// clusterOwner is the owner annotation, falling back to creator-email; "" when neither.
func clusterOwner(c *v1alpha1.TenantCluster) string {
	if o := c.Annotations[v1alpha1.AnnotationOwner]; o != "" {
		return o
	}
	return c.Annotations[v1alpha1.AnnotationCreatorEmail]
}

// EnvironmentCount counts the clusters labelled with env, skipping the one named exclude
// (pass "" to skip none). Unlabelled clusters count toward no environment.
func EnvironmentCount(clusters []v1alpha1.TenantCluster, env, exclude string) int {
	n := 0
	for i := range clusters {
		c := &clusters[i]
		if exclude != "" && c.Name == exclude {
			continue
		}
		if InEnvironment(c, env) {
			n++
		}
	}
	return n
}

// MemberCount counts the clusters labelled with env that email owns: the owner annotation,
// or when it is empty the creator-email annotation, compared as the server compares them
// (EmailsEqual: strings.EqualFold, untrimmed). A cluster with neither annotation belongs to nobody,
// so an empty email counts nothing. The cluster named exclude is skipped.
func MemberCount(clusters []v1alpha1.TenantCluster, env, email, exclude string) int {
	if email == "" {
		return 0
	}
	n := 0
	for i := range clusters {
		c := &clusters[i]
		if exclude != "" && c.Name == exclude {
			continue
		}
		if !InEnvironment(c, env) {
			continue
		}
		if EmailsEqual(clusterOwner(c), email) {
			n++
		}
	}
	return n
}

// Utilization is used / limit × 100 rounded to the nearest integer (halves away from zero),
// computed exactly. A zero limit has no meaningful ratio: Utilization returns 0 when used is
// zero or negative and math.MaxInt otherwise, so QuotaStatus reports Exceeded for any use of
// a zero allowance; TeamQuota leaves the utilisation out in that case.
func Utilization(used, limit resource.Quantity) int {
	if limit.Sign() == 0 {
		if used.Sign() > 0 {
			return math.MaxInt
		}
		return 0
	}
	if u, ok := exactInt64(used); ok {
		if l, ok := exactInt64(limit); ok {
			if n, ok := checkedMul64(u, 100); ok {
				return roundDiv(n, l)
			}
		}
	}
	num, den := ratOf(used), ratOf(limit)
	r := new(big.Rat).Quo(num, den)
	r.Mul(r, big.NewRat(100, 1))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	// Denom is positive; round half away from zero.
	m2 := new(big.Int).Abs(m)
	m2.Lsh(m2, 1)
	if m2.Cmp(r.Denom()) >= 0 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() || q.Int64() > math.MaxInt || q.Int64() < math.MinInt {
		if q.Sign() < 0 {
			return math.MinInt
		}
		return math.MaxInt
	}
	return int(q.Int64())
}

// roundDiv is n/d rounded half away from zero; d is not zero.
func roundDiv(n, d int64) int {
	q, r := n/d, n%d
	if r != 0 {
		ar, ad := absU64(r), absU64(d)
		if ar >= ad-ar {
			if (n < 0) != (d < 0) {
				q--
			} else {
				q++
			}
		}
	}
	if q > math.MaxInt {
		return math.MaxInt
	}
	if q < math.MinInt {
		return math.MinInt
	}
	return int(q)
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// ratOf is the exact value of q.
func ratOf(q resource.Quantity) *big.Rat {
	u, sc := decimalParts(q)
	r := new(big.Rat).SetInt(u)
	if sc > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10Big(int64(sc))))
	} else if sc < 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10Big(-int64(sc))))
	}
	return r
}

// QuotaStatus is the status of the highest percentage: Exceeded above 100, Warning above 80,
// else OK (docs/rules.md §7).
func QuotaStatus(pcts ...int) string {
	status := QuotaOK
	for _, p := range pcts {
		switch {
		case p > 100:
			return QuotaExceeded
		case p > 80:
			status = QuotaWarning
		}
	}
	return status
}

// QuotaLine is one resource of a team quota report. Limit, Utilization and Status are set only
// when the team sets that limit; Utilization is also left out when the limit is zero and
// something is used (the ratio is unbounded; Status is then Exceeded).
type QuotaLine struct {
	Resource    string `json:"resource"`
	Used        string `json:"used"`
	Limit       string `json:"limit,omitempty"`
	Utilization *int   `json:"utilization,omitempty"`
	Status      string `json:"status,omitempty"`
}

// QuotaReport is a team's usage against its resourceLimits; Status is the worst line status
// (OK when no limit is set).
type QuotaReport struct {
	Lines  []QuotaLine `json:"lines"`
	Status string      `json:"status"`
}

// Resource names of quota lines.
const (
	ResourceClusters = "clusters"
	ResourceNodes    = "nodes"
	ResourceCPU      = "cpu"
	ResourceMemory   = "memory"
	ResourceStorage  = "storage"
)

// TeamQuota reports the team's usage of every quota the contract names: clusters
// (maxClusters; 0 is a limit that allows none), nodes (maxTotalNodes), cpu, memory and storage
// (maxCPUCores, maxMemory, maxStorage; a zero quantity is no limit, as on the server). Pass
// every TenantCluster of the team namespace; clusters being deleted count. team may be nil
// (usage only).
func TeamQuota(team *v1alpha1.Team, clusters []v1alpha1.TenantCluster) QuotaReport {
	u := SumUsage(clusters, nil)
	var lim *v1alpha1.TeamResourceLimits
	if team != nil {
		lim = team.Spec.ResourceLimits
	}
	rep := QuotaReport{Lines: make([]QuotaLine, 0, 5), Status: QuotaOK}
	// Counts (clusters, nodes) print as integers: 2000 clusters, not the quantity "2k".
	text := func(name string, q resource.Quantity) string {
		if name == ResourceClusters || name == ResourceNodes {
			return strconv.FormatInt(q.Value(), 10)
		}
		return q.String()
	}
	add := func(name string, used resource.Quantity, limit *resource.Quantity) {
		line := QuotaLine{Resource: name, Used: text(name, used)}
		if limit != nil {
			l := limit.DeepCopy()
			line.Limit = text(name, l)
			pct := Utilization(used, l)
			if !(l.Sign() == 0 && used.Sign() > 0) {
				p := pct
				line.Utilization = &p
			}
			line.Status = QuotaStatus(pct)
			rep.Status = worseStatus(rep.Status, line.Status)
		}
		rep.Lines = append(rep.Lines, line)
	}
	count := func(p *int32) *resource.Quantity {
		if p == nil {
			return nil
		}
		return resource.NewQuantity(int64(*p), resource.DecimalSI)
	}
	quantity := func(p *resource.Quantity) *resource.Quantity {
		if p == nil || p.IsZero() {
			return nil
		}
		return p
	}
	var maxClusters, maxNodes, maxCPU, maxMem, maxDisk *resource.Quantity
	if lim != nil {
		maxClusters, maxNodes = count(lim.MaxClusters), count(lim.MaxTotalNodes)
		maxCPU, maxMem, maxDisk = quantity(lim.MaxCPUCores), quantity(lim.MaxMemory), quantity(lim.MaxStorage)
	}
	add(ResourceClusters, *resource.NewQuantity(int64(u.Clusters), resource.DecimalSI), maxClusters)
	add(ResourceNodes, *resource.NewQuantity(u.Nodes, resource.DecimalSI), maxNodes)
	add(ResourceCPU, u.CPU, maxCPU)
	add(ResourceMemory, u.Memory, maxMem)
	add(ResourceStorage, u.Storage, maxDisk)
	return rep
}

func statusRank(s string) int {
	switch s {
	case QuotaExceeded:
		return 2
	case QuotaWarning:
		return 1
	}
	return 0
}

func worseStatus(a, b string) string {
	if statusRank(b) > statusRank(a) {
		return b
	}
	return a
}

// EnvironmentUsage is one environment's cluster count, caps (0 = no cap) and clusters per
// member (owner annotation, else creator-email; clusters with neither are counted in Clusters
// only). Owners the server counts as one (EmailsEqual) are one entry, keyed by the first
// spelling met, trimmed and ASCII lower-cased (NormalizeEmail).
type EnvironmentUsage struct {
	Environment          string
	Clusters             int
	MaxClusters          int32
	MaxClustersPerMember int32
	Members              map[string]int
}

// EnvironmentUsageOf reports env's usage among clusters (every TenantCluster of the team
// namespace) and the caps team sets for it (team may be nil, or not define env: no caps).
func EnvironmentUsageOf(team *v1alpha1.Team, env string, clusters []v1alpha1.TenantCluster) EnvironmentUsage {
	eu := EnvironmentUsage{Environment: env, Members: map[string]int{}}
	if team != nil {
		if e := EnvironmentOf(team, env); e != nil && e.Limits != nil {
			if p := e.Limits.MaxClusters; p != nil && *p > 0 {
				eu.MaxClusters = *p
			}
			if p := e.Limits.MaxClustersPerMember; p != nil && *p > 0 {
				eu.MaxClustersPerMember = *p
			}
		}
	}
	label := map[string]string{} // EmailKey → the key in Members
	for i := range clusters {
		c := &clusters[i]
		if !InEnvironment(c, env) {
			continue
		}
		eu.Clusters++
		if o := clusterOwner(c); o != "" {
			k := EmailKey(o)
			l, ok := label[k]
			if !ok {
				l = NormalizeEmail(o)
				label[k] = l
			}
			eu.Members[l]++
		}
	}
	return eu
}

// ---------------------------------------------------------------------------------------
// quantitySum: the webhook's Quantity.Add loops, in int64 arithmetic.

// quantitySum reproduces a sequence of resource.Quantity.Add calls on a sum that starts as a
// zero of a given format. Quantity.Add keeps the exact value and, whenever the running sum is
// zero, takes the addend's format; the printed form depends only on that value and format. So
// the sum is kept as an int64 while every addend is an integer and nothing overflows (no
// allocation), and as an exact Quantity otherwise; the format is tracked separately with the
// same rule, including adding the same addend r times (a replicas loop) in O(1).
type quantitySum struct {
	format resource.Format
	v      int64              // the value while slow is nil
	slow   *resource.Quantity // owned exact value once the sum left int64 integers
}

func newQuantitySum(f resource.Format) quantitySum { return quantitySum{format: f} }

// addInt adds the integer a (an addend of format f) r times.
func (s *quantitySum) addInt(a int64, f resource.Format, r int64) {
	if r <= 0 {
		return
	}
	if s.slow == nil {
		if a == 0 {
			if s.v == 0 {
				s.format = f
			}
			return
		}
		if p, ok := checkedMul64(a, r); ok {
			if n, ok := checkedAdd64(s.v, p); ok {
				if crossesZero(s.v, a, r) {
					s.format = f
				}
				s.v = n
				return
			}
		}
		s.promote()
	}
	s.addSlow(*resource.NewQuantity(a, f), r)
}

// addQuantity adds q r times, as a loop of r Quantity.Add(q) calls would.
func (s *quantitySum) addQuantity(q resource.Quantity, r int64) {
	if r <= 0 {
		return
	}
	if s.slow == nil {
		if a, ok := exactInt64(q); ok {
			s.addInt(a, q.Format, r)
			return
		}
		s.promote()
	}
	s.addSlow(q, r)
}

// addSum adds o's value once, as one Quantity.Add of the sum o stands for.
func (s *quantitySum) addSum(o *quantitySum) {
	if o.slow == nil {
		s.addInt(o.v, o.format, 1)
		return
	}
	if s.slow == nil {
		s.promote()
	}
	s.addSlow(o.quantity(), 1)
}

// clone is an independent copy.
func (s *quantitySum) clone() quantitySum {
	c := *s
	if s.slow != nil {
		q := s.slow.DeepCopy()
		c.slow = &q
	}
	return c
}

func (s *quantitySum) promote() {
	s.slow = resource.NewQuantity(s.v, s.format)
	s.v = 0
}

func (s *quantitySum) addSlow(q resource.Quantity, r int64) {
	if q.Sign() == 0 {
		if s.slow.Sign() == 0 {
			s.format = q.Format
		}
		return
	}
	if crossesZeroSlow(s.slow, q, r) {
		s.format = q.Format
	}
	t := q.DeepCopy()
	if r != 1 {
		t.Mul(r)
	}
	s.slow.Add(t)
}

// quantity is the sum as the server's Quantity would be: same value, same format.
func (s *quantitySum) quantity() resource.Quantity {
	if s.slow == nil {
		return *resource.NewQuantity(s.v, s.format)
	}
	q := s.slow.DeepCopy()
	q.Format = s.format
	return q
}

// crossesZero reports whether a running sum s, adding a (not zero) r times, is zero before
// one of the additions: s + k·a == 0 for some 0 <= k < r.
func crossesZero(s, a, r int64) bool {
	if s == 0 {
		return true
	}
	if (s > 0) == (a > 0) {
		return false
	}
	q := s / a // negative
	return q*a == s && q > -r
}

func crossesZeroSlow(s *resource.Quantity, a resource.Quantity, r int64) bool {
	ss, sa := s.Sign(), a.Sign()
	if ss == 0 {
		return true
	}
	if ss == sa {
		return false
	}
	us, es := decimalParts(*s)
	ua, ea := decimalParts(a)
	// s/a = us·10^-es / (ua·10^-ea) = us·10^(ea-es) / ua
	e := int64(ea) - int64(es)
	if e > 4096 || e < -4096 {
		return false // not reachable with parsed quantities (nano precision, int64 range)
	}
	num, den := us, ua
	if e > 0 {
		num = new(big.Int).Mul(us, pow10Big(e))
	} else if e < 0 {
		den = new(big.Int).Mul(ua, pow10Big(-e))
	}
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() != 0 {
		return false
	}
	q.Neg(q)
	return q.Sign() > 0 && q.Cmp(big.NewInt(r)) < 0
}

// decimalParts returns q as unscaled · 10^-scale, without touching q's storage.
func decimalParts(q resource.Quantity) (*big.Int, int32) {
	c := q.DeepCopy()
	d := c.AsDec()
	return new(big.Int).Set(d.UnscaledBig()), int32(d.Scale())
}

var decPow10 = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

func pow10Big(e int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil) }

// exactInt64 is q's value when it is an integer that fits an int64. It reads q without
// changing the caller's Quantity (q is a copy; a shared inf.Dec is only read) and does not
// allocate for the usual integer quantities.
func exactInt64(q resource.Quantity) (int64, bool) {
	if v, ok := q.AsInt64(); ok {
		return v, true
	}
	d := q.AsDec()
	u, ok := d.Unscaled()
	if !ok {
		return 0, false
	}
	sc := int64(d.Scale()) // value = u · 10^-sc
	switch {
	case u == 0:
		return 0, true
	case sc <= 0:
		if -sc >= int64(len(decPow10)) {
			return 0, false
		}
		return checkedMul64(u, decPow10[-sc])
	default:
		if sc >= int64(len(decPow10)) {
			return 0, false
		}
		p := decPow10[sc]
		if u%p != 0 {
			return 0, false
		}
		return u / p, true
	}
}

func checkedMul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func checkedAdd64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) == (b > 0) {
		return c, true
	}
	return 0, false
}

func fmtCount(n int64) string { return strconv.FormatInt(n, 10) }
