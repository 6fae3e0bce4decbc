package check

import "runtime"

// aheadWindow bounds how many clusters are read ahead of the replay: each is a whole
// object held until judged.
const aheadWindow = 64

// wholeResult is a cluster read again for the replay, or why it could not be.
type wholeResult struct {
	c   *cluster
	err error
}

// ahead gives the clusters of order whole, in order, one per call of next. A lean Load's
// records are read again on every core, a window ahead of the replay (which judges them
// one after another, as its tallies need): the replay then waits for none of them.
func (t *tree) ahead(order []*cluster) (next func() wholeResult) {
	records := 0
	for _, c := range order {
		if c.c == nil {
			records++
		}
	}
	i := 0
	if records < 2 {
		return func() wholeResult {
			c, err := t.whole(order[i])
			i++
			return wholeResult{c, err}
		}
	}
	ring := make([]chan wholeResult, aheadWindow)
	for k := range ring {
		ring[k] = make(chan wholeResult, 1)
	}
	slots := make(chan struct{}, aheadWindow) // taken per cluster in flight, given back when judged
	jobs := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for j := range jobs {
				c, err := t.whole(order[j])
				ring[j%aheadWindow] <- wholeResult{c, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for j := range order {
			slots <- struct{}{}
			jobs <- j
		}
	}()
	return func() wholeResult {
		r := <-ring[i%aheadWindow]
		<-slots
		i++
		return r
	}
}
