package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestSlowdownRequests(t *testing.T) {
	for _, tc := range []struct {
		method, query string
		code          int
		delay         time.Duration // when code is 200
	}{
		{http.MethodPost, "for=10s", http.StatusOK, 200 * time.Millisecond},
		{http.MethodPost, "for=1m&delay=50ms", http.StatusOK, 50 * time.Millisecond},
		{http.MethodGet, "for=10s", http.StatusMethodNotAllowed, 0},
		{http.MethodPost, "", http.StatusBadRequest, 0},
		{http.MethodPost, "for=-1s", http.StatusBadRequest, 0},
		{http.MethodPost, "for=10s&delay=2s", http.StatusBadRequest, 0},
		{http.MethodPost, "for=10s&delay=soon", http.StatusBadRequest, 0},
	} {
		t.Run(tc.method+" "+tc.query, func(t *testing.T) {
			s := &slowdown{}
			w := httptest.NewRecorder()
			s.serveHTTP(w, httptest.NewRequest(tc.method, "/debug/slow?"+tc.query, nil))
			if w.Code != tc.code {
				t.Fatalf("status %d (%s), want %d", w.Code, w.Body.String(), tc.code)
			}
			active := s.until.Load() > time.Now().UnixNano()
			if active != (tc.code == http.StatusOK) {
				t.Errorf("slow after the request: %v, want %v", active, tc.code == http.StatusOK)
			}
			if tc.code == http.StatusOK && time.Duration(s.delay.Load()) != tc.delay {
				t.Errorf("delay %v, want %v", time.Duration(s.delay.Load()), tc.delay)
			}
		})
	}
}
