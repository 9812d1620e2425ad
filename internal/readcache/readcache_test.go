package readcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// server is a stand-in API: a value per key and a count of reads.
type server struct {
	mu    sync.Mutex
	value map[string]int
	reads atomic.Int32
}

func (s *server) load(key string) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		s.reads.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		v, ok := s.value[key]
		if !ok {
			return 0, errors.New("not found")
		}
		return v, nil
	}
}

func (s *server) write(c *Cache[string, int], key string, v int) {
	c.Invalidate()
	s.mu.Lock()
	s.value[key] = v
	s.mu.Unlock()
	c.Invalidate()
}

// Each step is a read (want the value, or -1 for an error) or a write.
type step struct {
	read  string
	write string
	value int
}

func TestReadsSeeEveryWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		steps     []step
		want      []int // the reads' results
		wantReads int32 // requests to the server
	}{
		"repeated reads share one request": {
			steps:     []step{{read: "a"}, {read: "a"}, {read: "a"}},
			want:      []int{1, 1, 1},
			wantReads: 1,
		},
		"a read after a write sees it": {
			steps:     []step{{read: "a"}, {write: "a", value: 2}, {read: "a"}, {read: "a"}},
			want:      []int{1, 2, 2},
			wantReads: 2,
		},
		"a write of another key drops every entry": {
			steps:     []step{{read: "a"}, {write: "b", value: 5}, {read: "a"}, {read: "b"}},
			want:      []int{1, 1, 5},
			wantReads: 3,
		},
		"a failed read is not remembered": {
			steps:     []step{{read: "missing"}, {write: "missing", value: 7}, {read: "missing"}},
			want:      []int{-1, 7},
			wantReads: 2,
		},
		"create then re-read: the absent object is not served": {
			steps:     []step{{read: "new"}, {read: "new"}, {write: "new", value: 3}, {read: "new"}},
			want:      []int{-1, -1, 3},
			wantReads: 3,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := &server{value: map[string]int{"a": 1}}
			var c Cache[string, int]
			var got []int
			for _, st := range tc.steps {
				if st.write != "" {
					s.write(&c, st.write, st.value)
					continue
				}
				v, err := c.Get(context.Background(), st.read, s.load(st.read))
				if err != nil {
					v = -1
				}
				got = append(got, v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			if n := s.reads.Load(); n != tc.wantReads {
				t.Errorf("server reads = %d, want %d", n, tc.wantReads)
			}
		})
	}
}

// Concurrent readers of one key make one request.
func TestConcurrentReadsCoalesce(t *testing.T) {
	t.Parallel()
	var c Cache[string, int]
	release := make(chan struct{})
	var reads atomic.Int32
	load := func(context.Context) (int, error) {
		reads.Add(1)
		<-release
		return 42, nil
	}
	const readers = 20
	var wg sync.WaitGroup
	results := make([]int, readers)
	started := make(chan struct{}, readers)
	for i := range readers {
		wg.Go(func() {
			started <- struct{}{}
			results[i], _ = c.Get(context.Background(), "k", load)
		})
	}
	for range readers {
		<-started
	}
	close(release)
	wg.Wait()
	if n := reads.Load(); n < 1 || n > readers {
		t.Fatalf("reads = %d", n)
	}
	for i, v := range results {
		if v != 42 {
			t.Errorf("reader %d got %d", i, v)
		}
	}
	// Every reader that arrives now is served without a request.
	before := reads.Load()
	if v, _ := c.Get(context.Background(), "k", load); v != 42 || reads.Load() != before {
		t.Errorf("cached read: got %d with %d new requests", v, reads.Load()-before)
	}
}

// A read in flight while a write happens is returned to its own callers but
// neither remembered nor shared with a reader that comes after the write.
func TestReadInFlightAcrossWriteIsNotServedLater(t *testing.T) {
	t.Parallel()
	var c Cache[string, int]
	value := atomic.Int32{}
	value.Store(1)
	inLoad, release := make(chan struct{}), make(chan struct{})
	first := make(chan int)
	go func() {
		v, _ := c.Get(context.Background(), "k", func(context.Context) (int, error) {
			v := int(value.Load()) // reads the old value...
			close(inLoad)
			<-release // ...and answers after the write completed
			return v, nil
		})
		first <- v
	}()
	<-inLoad
	c.Invalidate()
	value.Store(2)
	c.Invalidate()
	// A reader after the write does not join the old request.
	got, _ := c.Get(context.Background(), "k", func(context.Context) (int, error) { return int(value.Load()), nil })
	close(release)
	if old := <-first; old != 1 {
		t.Errorf("in-flight reader got %d, want the value it read (1)", old)
	}
	if got != 2 {
		t.Errorf("reader after the write got %d, want 2", got)
	}
	again, _ := c.Get(context.Background(), "k", func(context.Context) (int, error) { return -1, errors.New("must be cached") })
	if again != 2 {
		t.Errorf("cached value = %d, want 2 (the in-flight read must not overwrite it)", again)
	}
}

// Keep false: the value is returned but the next read asks again (a pool in
// transition is polled).
func TestKeepFalseIsNotRemembered(t *testing.T) {
	t.Parallel()
	c := Cache[string, int]{Keep: func(v int) bool { return v >= 0 }}
	var reads atomic.Int32
	load := func(context.Context) (int, error) { return int(reads.Add(1)) - 3, nil } // -2, -1, 0, 1 ...
	var got []int
	for range 4 {
		v, _ := c.Get(context.Background(), "k", load)
		got = append(got, v)
	}
	if diff := cmp.Diff([]int{-2, -1, 0, 0}, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}
