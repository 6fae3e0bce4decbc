package store

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// MaxEvents bounds one read of Events (a noisy object can have thousands).
const MaxEvents = 500

// SortEvents orders events oldest first, by the time each last happened.
func SortEvents(evs []corev1.Event) {
	sort.SliceStable(evs, func(i, j int) bool { return EventTime(&evs[i]).Before(EventTime(&evs[j])) })
}

// EventTime is when an event last happened: lastTimestamp, else eventTime, else
// firstTimestamp, else its creation.
func EventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}
